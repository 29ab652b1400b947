"""Judge service benchmark: throughput through HTTP + Redis + RQ workers against the engine alone.

Same workloads, same machine, same number of sandbox slots on both sides, measured alternately so
that load from elsewhere hits both:
  small    1,000 distinct submissions x 10 small tests (one POST /judge), first-failure mode
  large    64 distinct submissions on a problem with 1 MB inputs (4 tests)
  latency  median round trip of one small submission (POST /judge of a batch of 1), on the 10-test
           problem and on a 1-test one (where the service's own overhead shows), next to the engine's
           time to judge the same submission in process
The service side starts its own API and worker processes on a Redis database of its own (flushed at
the end); the engine side is `Engine.judge_many` with the same slot count.

    python bench/service_bench.py [--workers 1 --slots 2] [--small 1000] [--repeats 2]
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import redis

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from services.judge.engine import Engine  # noqa: E402
from services.judge.models import Submission  # noqa: E402
from services.problems.spec import ProblemSpec  # noqa: E402
from services.problems.store import build_problem  # noqa: E402
from services.settings import Settings  # noqa: E402

SUM = "a, b = map(int, input().split())\nprint(a + b)  # {tag}\n"
SUM_BIG = "import sys\nprint(sum(map(int, sys.stdin.buffer.read().split())))  # {tag}\n"


def small_tests() -> list[tuple[str, str, str]]:
    return [(f"{i:02d}", f"{i} {i * 7}\n", f"{i * 8}\n") for i in range(10)]


def large_tests() -> list[tuple[str, str, str]]:
    tests = []
    for k in range(4):
        nums = [str((i * 7919 + k) % 100000) for i in range(180_000)]
        text = " ".join(nums)[: 1 << 20].rsplit(" ", 1)[0] + "\n"
        tests.append((f"big{k}", text, f"{sum(map(int, text.split()))}\n"))
    return tests


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _claim_db(host: str, port: int) -> int:
    """An empty database, claimed (the claim key stays until the flush at the end) so no test takes it."""
    for db in range(15, 7, -1):
        conn = redis.Redis(host, port, db=db)
        if conn.set("codefrontier:test-claim", os.getpid(), nx=True, ex=3600) and conn.dbsize() == 1:
            return db
        if conn.get("codefrontier:test-claim") == str(os.getpid()).encode():
            conn.delete("codefrontier:test-claim")
    raise SystemExit("no free Redis database among 8..15")


class Service:
    def __init__(self, workers: int, slots: int, tmp: Path, redis_host: str, redis_port: int):
        self.db = _claim_db(redis_host, redis_port)
        self.redis_url = f"redis://{redis_host}:{redis_port}/{self.db}"
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "FRONTIER_REDIS_URL": self.redis_url,
            "FRONTIER_JUDGE_PORT": str(self.port),
        }
        self.procs = []
        self.logs = tmp / "logs"
        self.logs.mkdir()
        self._spawn(["serve"], "api", env)
        for w in range(workers):
            wenv = {**env, "FRONTIER_STATE_DIR": str(tmp / f"worker{w}")}
            self._spawn(["worker", "--slots", str(slots)], f"worker{w}", wenv)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(self.url + "/healthz", timeout=1).json()["workers"] >= workers * slots:
                    return
            except (httpx.HTTPError, KeyError, ValueError):
                pass
            time.sleep(0.2)
        self.close()
        raise SystemExit(f"the service did not come up; logs in {self.logs}")

    def _spawn(self, args, name, env):
        out = open(self.logs / f"{name}.log", "wb")  # noqa: SIM115
        self.procs.append(
            subprocess.Popen(
                [sys.executable, "-m", "services.judge.cli", *args],
                cwd=ROOT,
                env=env,
                stdout=out,
                stderr=out,
            )
        )

    def close(self):
        for p in self.procs:
            p.send_signal(signal.SIGTERM)
        for p in self.procs:
            try:
                p.wait(15)
            except subprocess.TimeoutExpired:
                p.kill()
        redis.Redis.from_url(self.redis_url).flushdb()


def _subs(template: str, problem_id: str, n: int, run: str) -> list[dict]:
    return [
        {"id": f"{run}-{i}", "problem_id": problem_id, "code": template.format(tag=f"{run}-{i}")}
        for i in range(n)
    ]


def _check(results: list[dict], subs: list[dict]) -> None:
    assert [r["id"] for r in results] == [s["id"] for s in subs], "ids out of order"
    bad = [r for r in results if r["outcome"] != "correct"]
    assert not bad, f"{len(bad)} not correct, e.g. {bad[0]}"


def service_run(http: httpx.Client, problem_id: str, template: str, n: int, run: str) -> tuple[float, int]:
    subs = _subs(template, problem_id, n, run)
    t0 = time.perf_counter()
    r = http.post("/judge", json={"submissions": subs})
    elapsed = time.perf_counter() - t0
    r.raise_for_status()
    results = r.json()["results"]
    _check(results, subs)
    return elapsed, sum(len(x["tests"]) for x in results)


def engine_run(engine: Engine, problem, template: str, n: int, run: str) -> tuple[float, int]:
    subs = [Submission(**s) for s in _subs(template, problem.id, n, run)]
    t0 = time.perf_counter()
    results = engine.judge_many([(problem, s) for s in subs])
    elapsed = time.perf_counter() - t0
    _check([r.model_dump(mode="json") for r in results], [s.model_dump() for s in subs])
    return elapsed, sum(len(x.tests) for x in results)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workers", type=int, default=1, help="worker processes")
    ap.add_argument("--slots", type=int, default=2, help="sandbox slots per worker")
    ap.add_argument("--small", type=int, default=1000, help="submissions of the small workload")
    ap.add_argument("--large", type=int, default=64, help="submissions of the 1 MB workload")
    ap.add_argument("--repeats", type=int, default=3, help="alternating runs of each side (median)")
    ap.add_argument("--latency-samples", type=int, default=60)
    ap.add_argument(
        "--redis", default="127.0.0.1:6379", help="host:port of a Redis to use a spare database of"
    )
    args = ap.parse_args()
    host, port = args.redis.split(":")
    total_slots = args.workers * args.slots
    small_spec = ProblemSpec(id="small10", time_limit_ms=2000, memory_limit_mb=256)
    one_spec = ProblemSpec(id="small1", time_limit_ms=2000, memory_limit_mb=256)
    large_spec = ProblemSpec(id="large1mb", time_limit_ms=5000, memory_limit_mb=512)
    small, large = small_tests(), large_tests()

    with tempfile.TemporaryDirectory(prefix="service-bench-") as tmp:
        tmp = Path(tmp)
        engine = Engine(Settings(state_dir=tmp / "engine"), slots=total_slots)
        engine.warm_up()
        enc = [(n, i.encode(), o.encode()) for n, i, o in small]
        p_small = build_problem(small_spec, enc, engine.store)
        p_one = build_problem(one_spec, enc[:1], engine.store)
        p_large = build_problem(large_spec, [(n, i.encode(), o.encode()) for n, i, o in large], engine.store)
        service = Service(args.workers, args.slots, tmp, host, int(port))
        try:
            with httpx.Client(base_url=service.url, timeout=3600) as http:
                for spec, tests in ((small_spec, small), (one_spec, small[:1]), (large_spec, large)):
                    body = {
                        "time_limit_ms": spec.time_limit_ms,
                        "memory_limit_mb": spec.memory_limit_mb,
                        "tests": [{"name": n, "input": i, "output": o} for n, i, o in tests],
                    }
                    http.put(f"/problems/{spec.id}", json=body).raise_for_status()
                # warm both sides: test caches fetched, interpreters warm, C++ not involved
                service_run(http, "small10", SUM, 8, "warm")
                service_run(http, "large1mb", SUM_BIG, 2, "warm")
                engine_run(engine, p_small, SUM, 8, "warm")

                rates: dict[str, dict[str, list[float]]] = {"small": {}, "large": {}}
                for rep in range(args.repeats):
                    for name, problem, template, n in (
                        ("small", p_small, SUM, args.small),
                        ("large", p_large, SUM_BIG, args.large),
                    ):
                        t, k = service_run(http, problem.id, template, n, f"s{rep}{name}")
                        rates[name].setdefault("service", []).append(k / t)
                        t, k = engine_run(engine, problem, template, n, f"e{rep}{name}")
                        rates[name].setdefault("engine", []).append(k / t)

                latency_ms: dict[str, list[float]] = {"small10": [], "small1": []}
                engine_ms: dict[str, list[float]] = {"small10": [], "small1": []}
                for i in range(args.latency_samples):
                    for problem in (p_small, p_one):
                        t, _ = service_run(http, problem.id, SUM, 1, f"lat{i}")
                        latency_ms[problem.id].append(t * 1000)
                        sub = Submission(id="x", problem_id=problem.id, code=SUM.format(tag=f"elat{i}"))
                        t0 = time.perf_counter()
                        engine.judge(problem, sub)
                        engine_ms[problem.id].append((time.perf_counter() - t0) * 1000)
        finally:
            service.close()
            engine.close()

    side = f"{args.workers} worker(s) x {args.slots} slot(s)"
    print(
        f"judge service benchmark: service = HTTP + Redis + {side}; engine = Engine.judge_many, {total_slots} slots"
    )
    print(f"{'workload':<34} {'service tests/s':>16} {'engine tests/s':>15} {'ratio':>7}")
    for name, label in (
        ("small", f"{args.small} subs x 10 small tests"),
        ("large", f"{args.large} subs x 4 tests of 1 MB"),
    ):
        s, e = statistics.median(rates[name]["service"]), statistics.median(rates[name]["engine"])
        print(f"{label:<34} {s:>16.0f} {e:>15.0f} {s / e:>6.0%}")
    for pid, n_tests in (("small10", 10), ("small1", 1)):
        lat, eng = latency_ms[pid], engine_ms[pid]
        print(
            f"single small submission ({n_tests} test{'s' * (n_tests > 1)}), round trip: median "
            f"{statistics.median(lat):.1f} ms (p90 {statistics.quantiles(lat, n=10)[-1]:.1f} ms); "
            f"engine alone: median {statistics.median(eng):.1f} ms"
        )
    print(
        "targets: service >= 80% of the engine on the 1,000-submission batch; single submission < 50 ms median"
    )


if __name__ == "__main__":
    main()
