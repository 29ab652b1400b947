#!/usr/bin/env bash
# `make up`: run the stack on this machine without Docker: Redis (unless one already answers at
# FRONTIER_REDIS_URL), then the judge, the merger and the evaluator (an API and a worker each), all in
# the background, with pid files and logs under $FRONTIER_STATE_DIR/run/. `make down` stops exactly what
# this started. The work is the stack launcher's (`python -m services.stack up`, services/stack.py).
# Settings come from the usual FRONTIER_* variables; FRONTIER_API_TOKEN, when set, is what every service
# asks for and every client here sends (the health checks, on /healthz, need none).
set -euo pipefail
cd "$(dirname "$0")/.."
export FRONTIER_STATE_DIR=${FRONTIER_STATE_DIR:-$PWD/.state}
exec "${PY:-.venv/bin/python}" -m services.stack up
