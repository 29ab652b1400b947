"""Judge service benchmark: the service against a naive judge and an in-process harness, same run.

The service (HTTP + Redis + RQ, 1 worker process with 2 sandbox slots), once with each test in a
process of its own (isolation "test", the default) and once with each submission's tests in one
sandboxed process (isolation "submission", docs/spec.md 4.8), and the two baselines of
bench/baselines.py (2 workers each) judge the same workloads, in alternation (service, naive,
in-process, again) so that load from elsewhere on the machine hits all three:
  tiny     20 submissions x 200 tests of a trivial A+B program (4,000 tests), one POST /judge, full mode
  real     the reference solutions of 15 bundled problems on all their tests (inputs up to ~1 MB),
           one POST /judge, full mode
  latency  median round trip of one small submission (POST /judge of a batch of 1) on a 10-test and
           a 1-test problem
plus the fork floor (fork + exit + wait of a warm interpreter like the sandbox's keeper), measured in
the same run. The service starts its own API and worker processes on a Redis database of its own
(flushed at the end).

    python bench/service_bench.py [--workers 1 --slots 2] [--repeats 2] [--tiny-subs 20 --tiny-tests 200] [--real 15]
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import httpx
import redis

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from baselines import (  # noqa: E402
    TINY,
    InProcessJudge,
    Task,
    dir_task,
    fork_floor,
    load_now,
    naive_many,
    real_problem_dirs,
    tiny_tests,
)

from services.settings import Settings  # noqa: E402
from services.stack import LocalStack, free_port  # noqa: E402


def service_client(url: str, **kwargs) -> httpx.Client:
    """An HTTP client of one of our services that sends the bearer token, where FRONTIER_API_TOKEN is
    set (the services ask for it on every endpoint but /healthz)."""
    return httpx.Client(base_url=url, headers=Settings().auth_headers(), **kwargs)


def _claim_db(host: str, port: int) -> int:
    """An empty database, claimed (the claim key stays until the flush at the end) so no test takes it."""
    for db in range(15, 0, -1):
        conn = redis.Redis(host, port, db=db)
        if conn.set("codefrontier:test-claim", os.getpid(), nx=True, ex=3600) and conn.dbsize() == 1:
            return db
        if conn.get("codefrontier:test-claim") == str(os.getpid()).encode():
            conn.delete("codefrontier:test-claim")
    raise SystemExit("no free Redis database among 1..15")


class Service:
    """The judge's API and `workers` workers of `slots` slots (each with its own state dir), started
    through the stack launcher on a Redis database of its own."""

    def __init__(
        self, workers: int, slots: int, tmp: Path, redis_host: str, redis_port: int, env: dict | None = None
    ):
        self.db = _claim_db(redis_host, redis_port)
        self.redis_url = f"redis://{redis_host}:{redis_port}/{self.db}"
        port = free_port()
        self.url = f"http://127.0.0.1:{port}"
        env = {
            "FRONTIER_REDIS_URL": self.redis_url,
            "FRONTIER_JUDGE_PORT": str(port),
            "FRONTIER_JUDGE_URL": self.url,
            **(env or {}),  # settings of this service's own (e.g. the start rule off, bench/burst_bench.py)
        }
        self.logs = tmp / "logs"
        self.stack = LocalStack(self.logs, env, judge_slots=slots, services=("judge",))
        self.stack.start_api("judge")
        for w in range(workers):
            self.stack.start_worker(
                "judge", name=f"worker{w}", env={"FRONTIER_STATE_DIR": str(tmp / f"worker{w}")}
            )
        try:
            self.stack.wait_workers("judge", workers * slots, 60, fail_fast=True)
        except RuntimeError as err:
            self.close()
            raise SystemExit(f"the service did not come up: {err}") from None

    def close(self):
        self.stack.close()
        redis.Redis.from_url(self.redis_url).flushdb()


def _tar(d: Path) -> bytes:
    """The problem directory as tar.gz: problem.json, the statement, the tests (what PUT accepts)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name in ("problem.json", "statement.md"):
            if (d / name).is_file():
                tar.add(d / name, arcname=name)
        for p in sorted((d / "tests").glob("*.in")) + sorted((d / "tests").glob("*.out")):
            tar.add(p, arcname=f"tests/{p.name}")
    return buf.getvalue()


def post(
    http: httpx.Client, subs: list[dict], mode: str = "full", isolation: str = "test"
) -> tuple[int, float]:
    t0 = time.perf_counter()
    r = http.post("/judge", json={"submissions": subs, "mode": mode, "isolation": isolation})
    elapsed = time.perf_counter() - t0
    r.raise_for_status()
    results = r.json()["results"]
    assert [x["id"] for x in results] == [s["id"] for s in subs], "ids out of order"
    bad = [x for x in results if x["outcome"] != "correct"]
    assert not bad, f"{len(bad)} not correct, e.g. {str(bad[0])[:600]}"
    return sum(len(x["tests"]) for x in results), elapsed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workers", type=int, default=1, help="worker processes")
    ap.add_argument("--slots", type=int, default=2, help="sandbox slots per worker")
    ap.add_argument("--tiny-subs", type=int, default=20)
    ap.add_argument("--tiny-tests", type=int, default=200, help="tests per tiny submission")
    ap.add_argument("--real", type=int, default=15, help="bundled problems of the real workload")
    ap.add_argument("--repeats", type=int, default=2, help="alternating rounds of the three judges (median)")
    ap.add_argument("--latency-samples", type=int, default=40)
    ap.add_argument(
        "--redis", default="127.0.0.1:6379", help="host:port of a Redis to use a spare database of"
    )
    args = ap.parse_args()
    host, port = args.redis.split(":")
    kill = 1 + Settings().borderline_band
    print(f"before: {load_now()}")
    tiny = tiny_tests(args.tiny_tests)
    tiny_codes = [TINY.format(tag=f"{{run}}-{i}") for i in range(args.tiny_subs)]
    plain = [(i, o) for _, i, o in tiny]
    dirs = real_problem_dirs(args.real)
    if not dirs:
        raise SystemExit("no bundled problem has built tests: run `make problems` first")
    tasks = {
        "tiny": [Task(code=c, tests=plain, checker={"type": "exact"}, time_limit_s=kill) for c in tiny_codes],
        "real": [dir_task(d, kill) for d in dirs],
    }
    n_tests = {k: sum(len(t.tests) for t in v) for k, v in tasks.items()}
    rates: dict[str, dict[str, list[float]]] = {"tiny": {}, "real": {}}
    # tests a baseline failed: its time limits are wall-clock ones, which a loaded machine hits
    failed = {kind: {"naive": 0, "in-process": 0} for kind in rates}
    floors = [fork_floor()]
    inproc = InProcessJudge()
    with tempfile.TemporaryDirectory(prefix="service-bench-") as tmp:
        tmp = Path(tmp)
        (tmp / "naive").mkdir()
        service = Service(args.workers, args.slots, tmp, host, int(port))
        try:
            with service_client(service.url, timeout=3600) as http:
                for pid, tests in (("tiny", tiny), ("small10", tiny[:10]), ("small1", tiny[:1])):
                    body = {
                        "time_limit_ms": 1000,
                        "memory_limit_mb": 64,
                        "tests": [
                            {"name": n, "input": i.decode(), "output": o.decode()} for n, i, o in tests
                        ],
                    }
                    http.put(f"/problems/{pid}", json=body).raise_for_status()
                for d in dirs:
                    gz = {"content-type": "application/gzip"}
                    http.put(f"/problems/{d.name}", content=_tar(d), headers=gz).raise_for_status()

                def subs(kind: str, run: str) -> list[dict]:
                    if kind == "tiny":
                        return [
                            {"id": f"{run}-{i}", "problem_id": "tiny", "code": c.format(run=run)}
                            for i, c in enumerate(tiny_codes)
                        ]
                    return [
                        {"id": f"{run}-{d.name}", "problem_id": d.name, "code": t.code}
                        for d, t in zip(dirs, tasks["real"], strict=True)
                    ]

                post(http, subs("tiny", "warm")[:2])  # every test's data fetched, slots warm
                post(http, subs("real", "warm"))
                for rep in range(args.repeats):
                    for kind in ("tiny", "real"):
                        ran, t = post(http, subs(kind, f"r{rep}"))
                        rates[kind].setdefault("service", []).append(ran / t)
                        ran, t = post(http, subs(kind, f"s{rep}"), isolation="submission")
                        rates[kind].setdefault("shared", []).append(ran / t)
                        t0 = time.perf_counter()
                        ran, passed = naive_many(tasks[kind], tmp / "naive")
                        rates[kind].setdefault("naive", []).append(ran / (time.perf_counter() - t0))
                        failed[kind]["naive"] += ran - passed
                        t0 = time.perf_counter()
                        ran, passed = inproc.run(tasks[kind])
                        rates[kind].setdefault("in-process", []).append(ran / (time.perf_counter() - t0))
                        failed[kind]["in-process"] += ran - passed
                        done = ", ".join(f"{k} {v[-1]:.1f}" for k, v in rates[kind].items())
                        print(f"{kind}, round {rep + 1}: tests/s {done}", flush=True)
                latency: dict[str, list[float]] = {"small10": [], "small1": []}
                for i in range(args.latency_samples):
                    for pid in latency:
                        sub = {"id": f"lat{i}", "problem_id": pid, "code": TINY.format(tag=f"lat{i}")}
                        _, t = post(http, [sub], mode="first_failure")
                        latency[pid].append(t * 1000)
        finally:
            service.close()
            inproc.close()
    floors.append(fork_floor())
    floor = statistics.median(f["wall_ms"] for f in floors)
    side = f"{args.workers} worker(s) x {args.slots} slot(s)"
    print(f"judge service benchmark: service = HTTP + Redis + {side}; naive and in-process: 2 workers each")
    labels = {
        "tiny": f"{args.tiny_subs} subs x {args.tiny_tests} tiny tests",
        "real": f"{len(dirs)} real programs",
    }
    for kind, label in labels.items():
        r = {k: statistics.median(v) for k, v in rates[kind].items()}
        for judge, name in (
            ("service", "service, isolation test"),
            ("shared", "service, isolation submission"),
        ):
            print(
                f"{label} ({n_tests[kind]} tests, median of {args.repeats}): {name} {r[judge]:7.1f} tests/s | "
                f"naive {r['naive']:7.1f} | in-process {r['in-process']:8.1f} | /naive "
                f"{r[judge] / r['naive']:5.2f}x | /in-process {r[judge] / r['in-process']:5.2f}x"
            )
        if any(failed[kind].values()):
            print(
                f"       tests the baselines failed (wall-clock limits on a loaded machine): {failed[kind]}"
            )
    for pid, n in (("small10", 10), ("small1", 1)):
        lat = latency[pid]
        print(
            f"single small submission ({n} test{'s' * (n > 1)}), round trip: median "
            f"{statistics.median(lat):.1f} ms (p90 {statistics.quantiles(lat, n=10)[-1]:.1f} ms)"
        )
    print(
        f"fork floor: fork + exit + wait of a warm interpreter {floor:.2f} ms (median of {len(floors)} runs of 300)"
    )
    for judge, name in (("service", "isolation test"), ("shared", "isolation submission")):
        tiny_ratio = statistics.median(rates["tiny"][judge]) / statistics.median(rates["tiny"]["naive"])
        real_ratio = statistics.median(rates["real"][judge]) / statistics.median(rates["real"]["in-process"])
        print(
            f"targets, {name}: tiny service/naive >= 15x ({tiny_ratio:.2f}x); "
            f"real service/in-process >= 1x ({real_ratio:.2f}x)"
        )
    print(f"after: {load_now()}")


if __name__ == "__main__":
    main()
