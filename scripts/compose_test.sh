#!/usr/bin/env bash
# `make compose-test`: the judge in containers, end to end, with a real Docker engine.
#   1. a Docker engine: the running one, or dockerd started here (installed with
#      `apt-get install docker.io debootstrap` where missing), and compose (v2 or v1)
#   2. the base image codefrontier/base:bookworm, made offline with debootstrap + `docker import`
#   3. a wheelhouse of the judge's Python packages (build/wheelhouse) so the build needs no network
#   4. a wheelhouse of the whole project (build/wheelhouse-stack) for codefrontier/stack: the CPU build
#      of torch (copied from $TORCH_WHEEL, never downloaded) and every other dependency, cp311 manylinux
#   5. compose build (`docker compose` v2, else `docker-compose` v1: scripts/compose_lib.sh), up with Redis, the API and two workers; a /judge batch with a correct, a
#      wrong, a TLE and an MLE program (the sandbox working inside a container)
#   6. merger-api/worker and evaluator-api/worker up; two tiny checkpoints copied into the checkpoints
#      volume; POST /merge with alphas [0, 0.5, 1] (outputs checked); POST /eval of one merged checkpoint
#      on one bundled problem through the judge (report checked); then down -v.
# Not part of `make test`: the first run takes minutes (debootstrap, image builds); later ones reuse them.
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=scripts/compose_lib.sh
source scripts/compose_lib.sh
PROJECT=${COMPOSE_PROJECT:-cfcompose}
PORT=${COMPOSE_TEST_PORT:-18000}
MERGER_PORT=${COMPOSE_TEST_MERGER_PORT:-18001}
EVALUATOR_PORT=${COMPOSE_TEST_EVALUATOR_PORT:-18002}
export FRONTIER_COMPOSE_JUDGE_PORT=$PORT FRONTIER_COMPOSE_MERGER_PORT=$MERGER_PORT FRONTIER_COMPOSE_EVALUATOR_PORT=$EVALUATOR_PORT
LOG=build/compose-test.log
mkdir -p build

cleanup() {
  local rc=$?
  if [[ $rc -ne 0 ]]; then
    echo "compose-test failed; the services' logs:" >&2
    "${COMPOSE[@]}" logs --no-color --tail 40 >&2 || true
  fi
  step "tearing down"
  "${COMPOSE[@]}" down -v --remove-orphans >/dev/null 2>&1 || true
  echo "== compose-test took ${SECONDS}s"
  exit $rc
}

ensure_engine
ensure_compose
COMPOSE=("${COMPOSE_BIN[@]}" -p "$PROJECT")
step "compose: ${COMPOSE_BIN[*]}"
ensure_base_image
ensure_wheelhouse
ensure_stack_wheelhouse
step "building codefrontier/judge and codefrontier/stack (log: $LOG)"
t0=$SECONDS
"${COMPOSE[@]}" build judge-api merger-api >"$LOG" 2>&1 || { tail -n 40 "$LOG" >&2; exit 1; }
echo "   built in $((SECONDS - t0))s; codefrontier/stack is $(docker image inspect -f '{{.Size}}' codefrontier/stack:latest | awk '{printf "%.0f MB", $1 / 1e6}')"
trap cleanup EXIT
step "starting redis, judge-api and 2 judge-workers"
t0=$SECONDS
"${COMPOSE[@]}" up -d --scale judge-worker=2 redis judge-api judge-worker >>"$LOG" 2>&1

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
    # each submission's tests in one sandboxed process (docs/spec.md 4.8): the same verdicts
    shared = judge.judge(subs, mode="full", isolation="submission")
    alone = judge.judge(subs, mode="full")
    verdicts = [[[str(t.verdict) for t in r.tests] for r in rs] for rs in (shared, alone)]
    assert verdicts[0] == verdicts[1], f"isolation submission differs: {verdicts}"
print("judge: OK (TLE and MLE judged inside the worker containers, with both isolations)")
PY
echo "   judge round trip in $((SECONDS - t0))s"

step "starting merger-api, merger-worker, evaluator-api, evaluator-worker"
t0=$SECONDS
"${COMPOSE[@]}" up -d --no-recreate merger-api merger-worker evaluator-api evaluator-worker >>"$LOG" 2>&1

step "two tiny checkpoints into the checkpoints volume"
CKPT=build/compose-checkpoints
rm -rf "$CKPT"
TQDM_DISABLE=1 "$PY" - "$CKPT" <<'PY'
import sys

from services.testing.checkpoints import make_tiny_checkpoint

for name, seed in (("low", 1), ("high", 2)):
    make_tiny_checkpoint(f"{sys.argv[1]}/{name}", seed=seed)
PY
MERGER_CONTAINER=$("${COMPOSE[@]}" ps -q merger-api)
docker cp "$CKPT/low" "$MERGER_CONTAINER:/checkpoints/low"
docker cp "$CKPT/high" "$MERGER_CONTAINER:/checkpoints/high"
rm -rf "$CKPT"

step "merge and eval through http://127.0.0.1:$MERGER_PORT and http://127.0.0.1:$EVALUATOR_PORT"
"$PY" - "http://127.0.0.1:$MERGER_PORT" "http://127.0.0.1:$EVALUATOR_PORT" <<'PY'
import sys
import time

import httpx

merger, evaluator = sys.argv[1], sys.argv[2]


def wait_healthy(url: str, what: str, limit_s: float = 240) -> None:
    deadline = time.monotonic() + limit_s
    while True:
        try:
            r = httpx.get(f"{url}/healthz", timeout=5)
            if r.status_code == 200 and r.json()["workers"] >= 1:
                return
        except httpx.HTTPError:  # still starting
            pass
        if time.monotonic() > deadline:
            sys.exit(f"{what} did not report a worker in {limit_s:.0f} s")
        time.sleep(1)


def poll(url: str, what: str, limit_s: float) -> dict:
    deadline = time.monotonic() + limit_s
    while True:
        body = httpx.get(url, timeout=30).raise_for_status().json()
        if body["status"] in ("finished", "failed", "stopped", "canceled"):
            return body
        if time.monotonic() > deadline:
            sys.exit(f"{what} still {body['status']} after {limit_s:.0f} s: {body}")
        time.sleep(1)


wait_healthy(merger, "the merger")
wait_healthy(evaluator, "the evaluator")

t = time.monotonic()
r = httpx.post(
    f"{merger}/merge",
    json={"low": "/checkpoints/low", "high": "/checkpoints/high", "alphas": [0, 0.5, 1], "output_dir": "/checkpoints/merged"},
    timeout=30,
)
assert r.status_code == 202, f"POST /merge: {r.status_code} {r.text}"
job = poll(f"{merger}/merge/{r.json()['job_id']}", "the merge", 300)
assert job["status"] == "finished", f"merge job: {job}"
outputs = {o["alpha"]: (o["status"], o["path"]) for o in job["outputs"]}
print(f"   merge {job['status']} in {time.monotonic() - t:.1f}s: {outputs}")
assert outputs == {a: ("done", f"/checkpoints/merged/alpha_{a!r}") for a in (0.0, 0.5, 1.0)}, outputs

t = time.monotonic()
body = {
    "checkpoints": ["/checkpoints/merged/alpha_0.5"],
    "problems": ["bracket_depth"],
    "n_samples": 1,
    "max_tokens": 16,
    "backend": "transformers",
}
r = httpx.post(f"{evaluator}/eval", json=body, timeout=60)
assert r.status_code == 202, f"POST /eval: {r.status_code} {r.text}"
job = poll(f"{evaluator}/eval/{r.json()['job_id']}", "the eval", 420)
assert job["status"] == "finished" and job["report"], f"eval job: {job}"
print(f"   eval {job['status']} in {time.monotonic() - t:.1f}s: run {job['run_dir']}, report keys {sorted(job['report'])[:8]}")
PY
# the merged checkpoints on disk, seen from the evaluator's side of the shared volume
"${COMPOSE[@]}" exec -T evaluator-api sh -c \
  'for a in 0.0 0.5 1.0; do ls /checkpoints/merged/alpha_$a/*.safetensors /checkpoints/merged/alpha_$a/config.json >/dev/null || exit 1; done'
echo "   merger and evaluator in $((SECONDS - t0))s"
echo "compose-test: OK (judge, merger and evaluator in containers)"
