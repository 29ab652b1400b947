"""Compat benchmark: SandboxFusion's `/run_code` against our own `/judge` on the same work.

2,000 calls of a trivial Python program (each one distinct, so nothing is served from a cache), 32 in
flight at a time, through a judge this script starts (one API and its workers on a spare Redis
database, as bench/service_bench.py does). The same 2,000 programs go once as `/run_code` calls (one
program, its stdin, its raw output back) and once as `/judge` calls (a batch of one submission on a
one-test problem), the two sides alternating `--repeats` times so that load from elsewhere hits both.
Prints calls/s and p50/p99 latency of each side and the ratio /run_code : /judge.

    python bench/compat_bench.py [--calls 2000] [--concurrency 32] [--workers 1 --slots 2] [--repeats 1]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))

from service_bench import Service, service_client  # noqa: E402

PROGRAM = "a, b = map(int, input().split())\nprint(a + b)  # {tag}\n"


def _percentile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(q * (len(xs) - 1)))]


def run_code_call(http: httpx.Client, i: int, run: str) -> float:
    body = {"code": PROGRAM.format(tag=f"{run}-{i}"), "language": "python", "stdin": f"{i} 1\n"}
    t0 = time.perf_counter()
    r = http.post("/run_code", json=body)
    elapsed = time.perf_counter() - t0
    r.raise_for_status()
    out = r.json()
    assert out["status"] == "Success" and out["run_result"]["stdout"] == f"{i + 1}\n", out
    return elapsed


def judge_call(http: httpx.Client, i: int, run: str) -> float:
    sub = {"id": f"{run}-{i}", "problem_id": "compat1", "code": PROGRAM.format(tag=f"{run}-{i}")}
    t0 = time.perf_counter()
    r = http.post("/judge", json={"submissions": [sub]})
    elapsed = time.perf_counter() - t0
    r.raise_for_status()
    (res,) = r.json()["results"]
    assert res["outcome"] == "correct", res
    return elapsed


def measure(http: httpx.Client, call, n: int, concurrency: int, run: str) -> tuple[float, list[float]]:
    with ThreadPoolExecutor(concurrency) as pool:
        t0 = time.perf_counter()
        latencies = list(pool.map(lambda i: call(http, i, run), range(n)))
        return time.perf_counter() - t0, latencies


def line(name: str, n: int, wall: float, lat: list[float]) -> str:
    return (
        f"{name:>9}: {n / wall:7.1f} calls/s ({n} calls in {wall:6.2f} s) | "
        f"p50 {_percentile(lat, 0.5) * 1000:6.1f} ms | p99 {_percentile(lat, 0.99) * 1000:6.1f} ms"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--workers", type=int, default=1, help="worker processes")
    ap.add_argument("--slots", type=int, default=2, help="sandbox slots per worker")
    ap.add_argument("--repeats", type=int, default=1, help="alternating runs of each side (median)")
    ap.add_argument(
        "--redis", default="127.0.0.1:6379", help="host:port of a Redis to use a spare database of"
    )
    args = ap.parse_args()
    host, port = args.redis.split(":")
    with tempfile.TemporaryDirectory(prefix="compat-bench-") as tmp:
        service = Service(args.workers, args.slots, Path(tmp), host, int(port))
        try:
            limits = httpx.Limits(
                max_connections=args.concurrency * 2, max_keepalive_connections=args.concurrency
            )
            with service_client(service.url, timeout=600, limits=limits) as http:
                # /judge's side: one problem with one test ("0 1" -> "1"); each call's program differs
                # by its tag comment only, as on the /run_code side
                body = {
                    "time_limit_ms": 2000,
                    "memory_limit_mb": 256,
                    "tests": [{"name": "t", "input": "0 1\n", "output": "1\n"}],
                }
                http.put("/problems/compat1", json=body).raise_for_status()
                warm = min(64, args.calls)
                measure(http, run_code_call, warm, args.concurrency, "warm")
                measure(http, judge_call, warm, args.concurrency, "warm")
                sides: dict[str, list[tuple[float, list[float]]]] = {"/run_code": [], "/judge": []}
                for rep in range(args.repeats):
                    sides["/run_code"].append(
                        measure(http, run_code_call, args.calls, args.concurrency, f"rc{rep}")
                    )
                    sides["/judge"].append(
                        measure(
                            http,
                            judge_call,
                            args.calls,
                            args.concurrency,
                            f"j{rep}",
                        )
                    )
        finally:
            service.close()
    print(
        f"{args.calls} calls of a trivial python program, {args.concurrency} in flight, "
        f"{args.workers} worker(s) x {args.slots} slots, median of {args.repeats} run(s) per side"
    )
    figures = {}
    for name, runs in sides.items():
        wall = statistics.median(w for w, _ in runs)
        best = min(runs, key=lambda r: abs(r[0] - wall))
        figures[name] = (args.calls / wall, _percentile(best[1], 0.5), _percentile(best[1], 0.99))
        print(line(name, args.calls, wall, best[1]))
    (rc, rc50, rc99), (jd, jd50, jd99) = figures["/run_code"], figures["/judge"]
    print(
        f"    ratio: /run_code at {rc / jd:.2f}x the calls/s of /judge; "
        f"p50 {rc50 / jd50:.2f}x, p99 {rc99 / jd99:.2f}x its latency"
    )


if __name__ == "__main__":
    main()
