#!/usr/bin/env bash
# `make compose-up`: the whole stack in containers, built offline, left running (`make compose-down`
# stops it). Same inputs as `make compose-test` (scripts/compose_lib.sh): a Docker engine (dockerd
# started here if none answers), `docker compose` v2 or `docker-compose` v1, a base image made with
# debootstrap, wheelhouses of the judge's and the project's packages. Then:
#   compose build; compose up -d with COMPOSE_WORKERS judge workers (2); waits until the judge's
#   /healthz counts their loops, and the merger's and the evaluator's a worker each.
# Ports on the host: FRONTIER_COMPOSE_JUDGE_PORT (8100), FRONTIER_COMPOSE_MERGER_PORT (8101),
# FRONTIER_COMPOSE_EVALUATOR_PORT (8102). COMPOSE_PROJECT names the project (codefrontier).
# COMPOSE_UP_DRY_RUN=1 prints the compose command lines instead of running anything.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/compose_lib.sh
source scripts/compose_lib.sh
PROJECT=${COMPOSE_PROJECT:-codefrontier}
WORKERS=${COMPOSE_WORKERS:-2}
SLOTS=${FRONTIER_SLOTS:-2}
mkdir -p build
LOG=build/compose-up.log

if [[ ${COMPOSE_UP_DRY_RUN:-0} == 1 ]]; then
  detect_compose || COMPOSE_BIN=(docker-compose)
  echo "${COMPOSE_BIN[*]} -p $PROJECT build judge-api merger-api"
  echo "${COMPOSE_BIN[*]} -p $PROJECT up -d --scale judge-worker=$WORKERS"
  echo "judge http://127.0.0.1:$FRONTIER_COMPOSE_JUDGE_PORT merger http://127.0.0.1:$FRONTIER_COMPOSE_MERGER_PORT evaluator http://127.0.0.1:$FRONTIER_COMPOSE_EVALUATOR_PORT"
  exit 0
fi

ensure_engine
ensure_compose
COMPOSE=("${COMPOSE_BIN[@]}" -p "$PROJECT")
step "compose: ${COMPOSE_BIN[*]} (project $PROJECT)"
ensure_base_image
ensure_wheelhouse
ensure_stack_wheelhouse
step "building codefrontier/judge and codefrontier/stack (log: $LOG)"
"${COMPOSE[@]}" build judge-api merger-api >"$LOG" 2>&1 || { tail -n 40 "$LOG" >&2; exit 1; }
step "starting the stack with $WORKERS judge workers of $SLOTS slots"
"${COMPOSE[@]}" up -d --scale judge-worker="$WORKERS" >>"$LOG" 2>&1 || { tail -n 40 "$LOG" >&2; exit 1; }

wait_workers() {  # URL, at least N workers, what
  local url=$1 n=$2 what=$3
  for _ in $(seq 240); do
    if "$PY" - "$url" "$n" <<'PY' 2>/dev/null; then return 0; fi
import sys

import httpx

sys.exit(0 if httpx.get(sys.argv[1] + "/healthz", timeout=3).json()["workers"] >= int(sys.argv[2]) else 1)
PY
    sleep 1
  done
  echo "$what did not report $n worker(s) in 240 s; \`${COMPOSE[*]} logs\` says why" >&2
  exit 1
}
wait_workers "http://127.0.0.1:$FRONTIER_COMPOSE_JUDGE_PORT" $((WORKERS * SLOTS)) "the judge"
wait_workers "http://127.0.0.1:$FRONTIER_COMPOSE_MERGER_PORT" 1 "the merger"
wait_workers "http://127.0.0.1:$FRONTIER_COMPOSE_EVALUATOR_PORT" 1 "the evaluator"
cat <<MSG
compose-up: the stack runs (project $PROJECT, ${COMPOSE_BIN[*]})
  judge      http://127.0.0.1:$FRONTIER_COMPOSE_JUDGE_PORT   (/docs, /healthz)
  merger     http://127.0.0.1:$FRONTIER_COMPOSE_MERGER_PORT
  evaluator  http://127.0.0.1:$FRONTIER_COMPOSE_EVALUATOR_PORT
  more judge workers: ${COMPOSE[*]} up -d --scale judge-worker=4
  stop: make compose-down (volumes kept; COMPOSE_DOWN_VOLUMES=1 removes them too)
MSG
