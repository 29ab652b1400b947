#!/usr/bin/env bash
# `make compose-test`: the judge in containers, end to end, with a real Docker engine.
#   1. a Docker engine: the running one, or dockerd started here (installed with
#      `apt-get install docker.io docker-compose debootstrap` where missing)
#   2. the base image codefrontier/base:bookworm, made offline with debootstrap + `docker import`
#   3. a wheelhouse of the judge's Python packages (build/wheelhouse) so the build needs no network
#   4. docker-compose build, up with Redis, the API and two workers; a /judge batch with a correct, a
#      wrong, a TLE and an MLE program (the sandbox working inside a container); then down -v.
# Not part of `make test`: the first run takes minutes (debootstrap, image build); later ones reuse both.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PY:-.venv/bin/python}
PROJECT=${COMPOSE_PROJECT:-cfcompose}
PORT=${COMPOSE_TEST_PORT:-18000}
BASE_IMAGE=codefrontier/base:bookworm
ROOTFS=build/rootfs
COMPOSE=(docker-compose -p "$PROJECT")
LOG=build/compose-test.log
mkdir -p build

step() { echo "== $*"; }

ensure_engine() {
  if docker info >/dev/null 2>&1; then return 0; fi
  if ! command -v dockerd >/dev/null || ! command -v docker-compose >/dev/null; then
    step "installing docker.io, docker-compose and debootstrap"
    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q docker.io docker-compose debootstrap
  fi
  step "starting dockerd (log: build/dockerd.log)"
  nohup dockerd >build/dockerd.log 2>&1 &
  for _ in $(seq 60); do
    docker info >/dev/null 2>&1 && return 0
    sleep 1
  done
  echo "dockerd did not start; see build/dockerd.log" >&2
  exit 1
}

ensure_base_image() {
  if docker image inspect "$BASE_IMAGE" >/dev/null 2>&1; then return 0; fi
  command -v debootstrap >/dev/null || apt-get install -y -q debootstrap
  step "making $BASE_IMAGE with debootstrap (a few minutes, once)"
  rm -rf "$ROOTFS"
  debootstrap --variant=minbase \
    --include=python3,python3-venv,g++,util-linux,ca-certificates,curl,procps,redis-server \
    bookworm "$ROOTFS" >build/debootstrap.log
  rm -rf "$ROOTFS"/var/cache/apt/archives/*.deb "$ROOTFS"/var/lib/apt/lists/*
  tar -C "$ROOTFS" -c . | docker import - "$BASE_IMAGE" >/dev/null
  rm -rf "$ROOTFS"
}

ensure_wheelhouse() {
  step "wheelhouse of the judge's packages (build/wheelhouse)"
  "$PY" scripts/judge_requirements.py >build/judge-requirements.txt
  # wheels for the image's interpreter (Debian bookworm's Python 3.11.2), not the host's; pip evaluates
  # environment markers for the host, so add what redis needs below Python 3.11.3 by hand
  echo 'async-timeout>=4.0.3' >>build/judge-requirements.txt
  "$PY" -m pip download -q -d build/wheelhouse -r build/judge-requirements.txt \
    --only-binary=:all: --python-version 3.11.2 --implementation cp --abi cp311 --abi abi3 --abi none \
    --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux_2_28_x86_64 \
    --platform linux_x86_64 2>&1 | { grep -v "is ignored: it is neither" || true; }
}

cleanup() {
  local rc=$?
  if [[ $rc -ne 0 ]]; then
    echo "compose-test failed; the services' logs:" >&2
    FRONTIER_JUDGE_PORT=$PORT "${COMPOSE[@]}" logs --no-color --tail 40 >&2 || true
  fi
  step "tearing down"
  FRONTIER_JUDGE_PORT=$PORT "${COMPOSE[@]}" down -v --remove-orphans >/dev/null 2>&1 || true
  exit $rc
}

ensure_engine
ensure_base_image
ensure_wheelhouse
step "building codefrontier/judge"
FRONTIER_JUDGE_PORT=$PORT "${COMPOSE[@]}" build judge-api >"$LOG" 2>&1 || { tail -n 40 "$LOG" >&2; exit 1; }
trap cleanup EXIT
step "starting redis, judge-api and 2 judge-workers"
FRONTIER_JUDGE_PORT=$PORT "${COMPOSE[@]}" up -d --scale judge-worker=2 redis judge-api judge-worker >>"$LOG" 2>&1

step "round trip through http://127.0.0.1:$PORT"
"$PY" - "http://127.0.0.1:$PORT" <<'PY'
import sys
import time

from services.judge.client import JudgeClient

url = sys.argv[1]
with JudgeClient(url, timeout_s=300) as judge:
    deadline = time.monotonic() + 180
    while True:  # two workers with two slots each: four worker loops
        try:
            if judge.healthz()["workers"] >= 4:
                break
        except Exception:  # noqa: BLE001 - still starting
            pass
        if time.monotonic() > deadline:
            sys.exit("the judge did not report 4 worker loops in 180 s")
        time.sleep(1)
    tests = [{"name": "1", "input": "3\n", "output": "6\n"}, {"name": "2", "input": "30" + " " * 20 + "\n", "output": "60\n"}]
    judge.put_problem("double", {"time_limit_ms": 500, "memory_limit_mb": 64, "tests": tests})
    programs = {
        "ok": "print(2 * int(input()))",
        "wa": "print(7)",
        "tle": "n = int(input())\nwhile n > 5: pass\nprint(2 * n)",
        "mle": "x = bytearray(256 << 20)\nx[::4096] = b'1' * len(x[::4096])\nprint(2 * int(input()))",
        "cpp-ok": "#include <cstdio>\nint main(){int n;scanf(\"%d\",&n);printf(\"%d\\n\",2*n);}",
    }
    subs = [
        {"id": k, "problem_id": "double", "language": "cpp" if k.startswith("cpp") else "python", "code": v}
        for k, v in programs.items()
    ]
    results = judge.judge(subs)
    got = {r.id: (r.status, str(r.outcome), str(r.first_failure.verdict) if r.first_failure else None) for r in results}
    for k, (status, outcome, verdict) in got.items():
        print(f"   {k:7s} {status:12s} {outcome:22s} {verdict or ''}")
    want = {
        "ok": ("ok", "correct", None),
        "wa": ("ok", "correctness_failure", "WA"),
        "tle": ("ok", "optimization_failure", "TLE"),
        "mle": ("ok", "correctness_failure", "MLE"),
        "cpp-ok": ("ok", "correct", None),
    }
    assert [r.id for r in results] == list(programs), "ids out of order"
    assert got == want, f"unexpected results: {got}"
print("compose-test: OK (TLE and MLE judged inside the worker containers)")
PY
