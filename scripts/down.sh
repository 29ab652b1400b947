#!/usr/bin/env bash
# `make down`: stop what `make up` started (by the pid files under .state/run/), newest service first.
# A Redis that was already running before `make up` has no pid file there and is left alone.
set -uo pipefail
cd "$(dirname "$0")/.."

FRONTIER_STATE_DIR=${FRONTIER_STATE_DIR:-$PWD/.state}
RUN_DIR=$FRONTIER_STATE_DIR/run

stop() { # NAME: SIGTERM the process of NAME's pid file, SIGKILL it after 20 s, remove the pid file
  local name=$1 pidfile=$RUN_DIR/$1.pid pid
  [[ -f $pidfile ]] || return 0
  pid=$(cat "$pidfile")
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid"
    for _ in $(seq 100); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.2
    done
    if kill -0 "$pid" 2>/dev/null; then
      echo "$name: still running after 20 s, killing"
      kill -KILL "$pid"
    fi
    echo "$name: stopped (pid $pid)"
  else
    echo "$name: was not running"
  fi
  rm -f "$pidfile"
}

stop_evaluator_worker() { stop evaluator-worker; }
stop_evaluator_api() { stop evaluator-api; }
stop_merger_worker() { stop merger-worker; }
stop_merger_api() { stop merger-api; }
stop_judge_worker() { stop judge-worker; }
stop_judge_api() { stop judge-api; }
stop_redis() { stop redis; }

stop_evaluator_worker
stop_evaluator_api
stop_merger_worker
stop_merger_api
stop_judge_worker
stop_judge_api
stop_redis
