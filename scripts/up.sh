#!/usr/bin/env bash
# `make up`: run the stack on this machine without Docker: Redis (unless one already answers at
# FRONTIER_REDIS_URL), the judge API and one judge worker, all in the background, with pid files and
# logs under .state/run/. `make down` stops exactly what this started.
#
# One function per service: a later service adds its own start_<name> (and stop_<name> in down.sh)
# and one line at the bottom. Settings come from the usual FRONTIER_* variables; FRONTIER_API_TOKEN,
# when set, is what every service asks for and every client here sends (the health checks need none).
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PY:-.venv/bin/python}
export FRONTIER_STATE_DIR=${FRONTIER_STATE_DIR:-$PWD/.state}
export FRONTIER_REDIS_URL=${FRONTIER_REDIS_URL:-redis://127.0.0.1:6379/0}
export FRONTIER_JUDGE_PORT=${FRONTIER_JUDGE_PORT:-8000}
export FRONTIER_MERGER_PORT=${FRONTIER_MERGER_PORT:-8001}
export FRONTIER_EVALUATOR_PORT=${FRONTIER_EVALUATOR_PORT:-8002}
RUN_DIR=$FRONTIER_STATE_DIR/run
WORKER_SLOTS=${FRONTIER_SLOTS:-2}
JUDGE_URL=http://127.0.0.1:$FRONTIER_JUDGE_PORT
MERGER_URL=http://127.0.0.1:$FRONTIER_MERGER_PORT
EVALUATOR_URL=http://127.0.0.1:$FRONTIER_EVALUATOR_PORT
export FRONTIER_JUDGE_URL=${FRONTIER_JUDGE_URL:-$JUDGE_URL}
export FRONTIER_MERGER_URL=${FRONTIER_MERGER_URL:-$MERGER_URL}
export FRONTIER_EVALUATOR_URL=${FRONTIER_EVALUATOR_URL:-$EVALUATOR_URL}
mkdir -p "$RUN_DIR"

# -- helpers ----------------------------------------------------------------------------------------
running() { # NAME: is the process of NAME's pid file alive?
  [[ -f $RUN_DIR/$1.pid ]] && kill -0 "$(cat "$RUN_DIR/$1.pid")" 2>/dev/null
}

start() { # NAME COMMAND...: start COMMAND in the background unless NAME already runs
  local name=$1
  shift
  if running "$name"; then
    echo "$name: already running (pid $(cat "$RUN_DIR/$name.pid"))"
    return 0
  fi
  nohup "$@" >"$RUN_DIR/$name.log" 2>&1 &
  echo $! >"$RUN_DIR/$name.pid"
  echo "$name: started (pid $!, log $RUN_DIR/$name.log)"
}

wait_for() { # NAME SECONDS TEST...: wait until TEST succeeds; on timeout show NAME's log and fail
  local name=$1 seconds=$2
  shift 2
  for _ in $(seq $((seconds * 5))); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    if [[ -f $RUN_DIR/$name.pid ]] && ! running "$name"; then break; fi
    sleep 0.2
  done
  echo "$name: did not come up; the end of $RUN_DIR/$name.log:" >&2
  tail -n 30 "$RUN_DIR/$name.log" >&2 || true
  exit 1
}

redis_answers() {
  "$PY" -c 'import redis, sys; redis.Redis.from_url(sys.argv[1], socket_connect_timeout=1).ping()' \
    "$FRONTIER_REDIS_URL" >/dev/null 2>&1
}

# /healthz needs no token (FRONTIER_API_TOKEN guards every other endpoint), so these probes send none
has_workers() { # URL N: does the service at URL report at least N workers?
  "$PY" -c 'import httpx, sys; sys.exit(httpx.get(sys.argv[1] + "/healthz").json()["workers"] < int(sys.argv[2]))' \
    "$1" "$2"
}

judge_has_workers() { has_workers "$JUDGE_URL" "$1"; }

answers() { # URL: does URL/healthz answer?
  "$PY" -c 'import httpx, sys; httpx.get(sys.argv[1] + "/healthz").raise_for_status()' "$1"
}

# -- services ---------------------------------------------------------------------------------------
start_redis() {
  if redis_answers; then
    echo "redis: answering at $FRONTIER_REDIS_URL (not started here)"
    return 0
  fi
  if ! command -v redis-server >/dev/null; then
    echo "redis: nothing answers at $FRONTIER_REDIS_URL and redis-server is not installed" \
      "(apt-get install redis-server, or set FRONTIER_REDIS_URL)" >&2
    exit 1
  fi
  local hostport host port
  hostport=$("$PY" -c 'import sys, urllib.parse as u; p = u.urlparse(sys.argv[1]); print(p.hostname or "127.0.0.1", p.port or 6379)' "$FRONTIER_REDIS_URL")
  read -r host port <<<"$hostport"
  mkdir -p "$FRONTIER_STATE_DIR/redis"
  # append-only file: a Redis restart keeps problems and accepted batches
  start redis redis-server --bind "$host" --port "$port" --dir "$FRONTIER_STATE_DIR/redis" \
    --appendonly yes --save ""
  wait_for redis 20 redis_answers
}

start_judge_api() {
  start judge-api "$PY" -m services.judge.cli serve
  wait_for judge-api 30 "$PY" -c 'import httpx, sys; httpx.get(sys.argv[1] + "/healthz").raise_for_status()' "$JUDGE_URL"
}

start_judge_worker() {
  start judge-worker "$PY" -m services.judge.cli worker --slots "$WORKER_SLOTS"
  wait_for judge-worker 60 judge_has_workers "$WORKER_SLOTS"
}

start_merger_api() {
  start merger-api "$PY" -m services.merger.cli serve --port "$FRONTIER_MERGER_PORT"
  wait_for merger-api 30 answers "$MERGER_URL"
}

start_merger_worker() {
  start merger-worker "$PY" -m services.merger.cli worker
  wait_for merger-worker 60 has_workers "$MERGER_URL" 1
}

start_evaluator_api() {
  start evaluator-api "$PY" -m services.evaluator.cli serve --port "$FRONTIER_EVALUATOR_PORT"
  wait_for evaluator-api 30 answers "$EVALUATOR_URL"
}

start_evaluator_worker() {
  start evaluator-worker "$PY" -m services.evaluator.cli worker
  wait_for evaluator-worker 90 has_workers "$EVALUATOR_URL" 1
}

start_redis
start_judge_api
start_judge_worker
start_merger_api
start_merger_worker
start_evaluator_api
start_evaluator_worker
echo "up: judge $JUDGE_URL, merger $MERGER_URL, evaluator $EVALUATOR_URL (OpenAPI at /docs on each)," \
  "Redis $FRONTIER_REDIS_URL; 'make down' stops it"
if [[ -n ${FRONTIER_API_TOKEN:-} ]]; then
  echo "every endpoint but /healthz asks for 'Authorization: Bearer \$FRONTIER_API_TOKEN'"
fi
