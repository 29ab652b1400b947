#!/usr/bin/env bash
# `make down`: stop what `make up` started (by the pid files under $FRONTIER_STATE_DIR/run/), newest
# service first (`python -m services.stack down`). A Redis that was already running before `make up`
# has no pid file there and is left alone.
set -uo pipefail
cd "$(dirname "$0")/.."
export FRONTIER_STATE_DIR=${FRONTIER_STATE_DIR:-$PWD/.state}
exec "${PY:-.venv/bin/python}" -m services.stack down
