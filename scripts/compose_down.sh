#!/usr/bin/env bash
# `make compose-down`: stop what `make compose-up` started (project COMPOSE_PROJECT, codefrontier). The
# volumes (checkpoints, runs, Redis's data, the workers' test cache) stay for the next compose-up unless
# COMPOSE_DOWN_VOLUMES=1. Judge workers get their stop_grace_period to drain (docker-compose.yml).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/compose_lib.sh
source scripts/compose_lib.sh
PROJECT=${COMPOSE_PROJECT:-codefrontier}
detect_compose || { echo "neither docker compose nor docker-compose is installed: nothing to stop" >&2; exit 1; }
args=(down --remove-orphans)
[[ ${COMPOSE_DOWN_VOLUMES:-0} == 1 ]] && args+=(-v)
"${COMPOSE_BIN[@]}" -p "$PROJECT" "${args[@]}"
