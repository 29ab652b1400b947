"""Fan-out benchmark (issue 40, item 2; docs/spec.md 4.10): the wall time of one RL step's judging
when one submission has many more tests than the rest, with and without fan-out, in one run.

A step: `--subs` submissions (8), each a correct Python program whose every test spins about
`--test-ms` (40) ms of CPU, on a problem of `--small-tests` (4) tests, except one, at a seeded random
place in the batch, on a problem of `--big-tests` (64) tests. Each step is judged in first_failure
mode with `Engine.judge_many` (its units announced to the engine, as a worker's job announces its
own) on an engine of `--slots` (2) slots with FRONTIER_FANOUT=true and on one with it false, the two
in turns, step by step, so that both see the same load. Prints the p50 and p99 of the step wall time
of each, side by side, and without/with as a ratio; checks that every result (verdicts, rewards,
outcome) is the same on both.

    sudo python bench/fanout_bench.py [--quick] [--steps 20] [--slots 2]

With `--workers 2`, fan-out across workers (docs/spec.md 4.10): two engines of `--slots` slots each
stand for two workers on one Redis (`--redis`, keys under a prefix of this process's own, deleted at
the end). Each step's submissions are split between them as a batch's jobs are (the big one's half
on the first); once the second has judged its half it is idle, and with fan-out across workers it
then runs a shard of the big submission (Engine.run_shard on its board, as a shard job does; the
queue hop of a real shard job is not timed). Without, the first judges the big one on its own slots
(its own fan-out only). Prints p50 and p99 of the step time of each, and checks the results agree.

    sudo python bench/fanout_bench.py --workers 2 --slots 1 [--quick]

Needs what the judge needs (root, cgroups). With few steps the p99 is the slowest step.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from services.judge.core.engine import Engine  # noqa: E402
from services.judge.core.models import Submission  # noqa: E402
from services.problems.spec import ProblemSpec  # noqa: E402
from services.problems.store import build_problem  # noqa: E402
from services.settings import Settings  # noqa: E402

# spins about `ms` of CPU (calibrated once here, in this process), then answers
PROGRAM = "n = int(input())\nx = 0\nfor i in range({loops}):\n    x += i\nprint(n * 2)  # {tag}\n"


def loops_for(ms: float) -> int:
    t0 = time.process_time()
    x = 0
    for i in range(2_000_000):
        x += i
    per_loop_ms = (time.process_time() - t0) * 1000 / 2_000_000
    return max(1, int(ms / per_loop_ms))


def problem(engine: Engine, pid: str, n: int):
    tests = [(f"t{i:03}", f"{i}\n".encode(), f"{2 * i}\n".encode()) for i in range(n)]
    spec = ProblemSpec.model_validate({"id": pid, "time_limit_ms": 2000, "memory_limit_mb": 128})
    return build_problem(spec, tests, engine.store)


def percentile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, math.ceil(q * len(xs)) - 1))]


def judged(result) -> tuple:
    return (result.outcome, result.rewards, [(t.name, t.verdict) for t in result.tests])


def two_workers(args, loops: int, rng: random.Random, tmp: str) -> tuple[dict[bool, list[float]], int]:
    """Step times with and without fan-out across workers (`--workers 2`), and the steps whose results
    differ."""
    import threading

    import redis

    from services.judge.queue.shards import ShardBoard, board_id

    conn = redis.Redis.from_url(args.redis)
    prefix = f"fanbench{os.getpid()}"
    owner, other = (
        Engine(Settings(state_dir=Path(tmp) / name, slots=args.slots, fanout=True))
        for name in ("owner", "other")
    )
    times: dict[bool, list[float]] = {True: [], False: []}
    differ = 0
    try:
        probs = {}
        for name, engine in (("owner", owner), ("other", other)):
            engine.warm_up()
            probs[name] = (problem(engine, "small", args.small_tests), problem(engine, "big", args.big_tests))
        for step in range(args.steps + 1):  # step 0 warms both: not counted
            big_at = rng.randrange(args.subs)
            results = {}
            for across in (True, False) if step % 2 else (False, True):
                idle = threading.Event()  # the other worker has judged its half and runs no shard
                shards: list[threading.Thread] = []

                class Spread:  # a worker's (services/judge/worker/shards.py), the queue hop left out
                    def __init__(self, step=step, idle=idle, shards=shards):
                        self.step, self.idle, self.shards = step, idle, shards

                    def wanted(self, n: int, unclaimed: int) -> int:
                        return 1 if n == args.big_tests and self.idle.is_set() else 0

                    def open(self, n, code, options, claimed, end):
                        self.code, self.options = code, options
                        board = board_id(f"step{self.step}", 0)
                        return ShardBoard.open(conn, prefix, board, n, "owner", claimed, end)

                    def push(self, board, k: int) -> None:
                        if not self.idle.is_set():
                            return
                        self.idle.clear()
                        shard = ShardBoard.join(conn, prefix, board.board, board.n, "other")
                        big = probs["other"][1]
                        run = (big, "python", self.code, self.options, shard)
                        t = threading.Thread(target=other.run_shard, args=run, daemon=True)
                        t.start()
                        self.shards.append(t)

                def items(name, which, step=step, big_at=big_at):
                    return _step_items(*probs[name], big_at, loops, step, which)

                mine = [big_at, *[i for i in range(args.subs) if i != big_at][: args.subs // 2 - 1]]
                theirs = [i for i in range(args.subs) if i not in mine]
                got: dict[int, object] = {}

                def judge_theirs(theirs=theirs, idle=idle, got=got):
                    for i, r in zip(
                        theirs, other.judge_many(items("other", theirs), mode="first_failure"), strict=True
                    ):
                        got[i] = r
                    idle.set()

                t0 = time.perf_counter()
                side = threading.Thread(target=judge_theirs)
                side.start()
                with owner.queued(len(mine)) as queued:
                    pairs = items("owner", mine)
                    pool = [
                        threading.Thread(
                            target=lambda i=i, p=p, got=got, spread=Spread if across else None: (
                                got.__setitem__(
                                    i,
                                    owner.judge(
                                        p[0],
                                        p[1],
                                        mode="first_failure",
                                        queued=queued,
                                        spread=spread and spread(),
                                    ),
                                )
                            )
                        )
                        for i, p in zip(mine, pairs, strict=True)
                    ]
                    for t in pool:
                        t.start()
                    for t in pool:
                        t.join()
                side.join()
                if step:
                    times[across].append(time.perf_counter() - t0)
                for t in shards:
                    t.join()
                results[across] = [judged(got[i]) for i in range(args.subs)]
            differ += results[True] != results[False]
    finally:
        owner.close()
        other.close()
        for key in conn.scan_iter(f"{prefix}:*"):
            conn.delete(key)
    return times, differ


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="6 steps, a big submission of 32 tests")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--subs", type=int, default=8)
    ap.add_argument("--small-tests", type=int, default=4)
    ap.add_argument("--big-tests", type=int, default=64)
    ap.add_argument("--test-ms", type=float, default=40.0)
    ap.add_argument("--slots", type=int, default=2)
    ap.add_argument("--seed", type=int, default=40)
    ap.add_argument("--workers", type=int, choices=(1, 2), default=1, help="2: fan-out across two workers")
    ap.add_argument("--redis", default="redis://127.0.0.1:6379/0", help="the Redis of --workers 2")
    args = ap.parse_args()
    if args.quick:
        args.steps, args.big_tests = 6, 32
    if os.geteuid() != 0:
        print("fanout_bench: needs root (the judge's sandbox)", file=sys.stderr)
        return 2
    loops = loops_for(args.test_ms)
    rng = random.Random(args.seed)
    if args.workers == 2:
        with tempfile.TemporaryDirectory(prefix="fanout-bench-") as tmp:
            times, differ = two_workers(args, loops, rng, tmp)
        _table(args, times, differ, "fan-out across workers bench", f"2 workers of {args.slots} slot(s)")
        return 1 if differ else 0
    with tempfile.TemporaryDirectory(prefix="fanout-bench-") as tmp:
        engines = {
            fanout: Engine(Settings(state_dir=Path(tmp) / str(fanout), slots=args.slots, fanout=fanout))
            for fanout in (True, False)
        }
        try:
            problems = {}
            for fanout, engine in engines.items():
                engine.warm_up()
                problems[fanout] = (
                    problem(engine, "small", args.small_tests),
                    problem(engine, "big", args.big_tests),
                )
            times: dict[bool, list[float]] = {True: [], False: []}
            differ = 0
            for step in range(args.steps + 1):  # step 0 warms both (compile, caches): not counted
                big_at = rng.randrange(args.subs)
                results = {}
                for fanout in (True, False) if step % 2 else (False, True):
                    small, big = problems[fanout]
                    items = _step_items(small, big, big_at, loops, step, range(args.subs))
                    t0 = time.perf_counter()
                    results[fanout] = engines[fanout].judge_many(items, mode="first_failure")
                    if step:
                        times[fanout].append(time.perf_counter() - t0)
                ours, theirs = ([judged(r) for r in results[f]] for f in (True, False))
                differ += ours != theirs
                if any(r.outcome != "correct" for r in results[True]):
                    print(f"step {step}: not every sample was judged correct", file=sys.stderr)
        finally:
            for engine in engines.values():
                engine.close()
    _table(args, times, differ, "fan-out bench", f"{args.slots} slots")
    mean = statistics.fmean
    print(f"mean step: {mean(times[False]):.2f} s without, {mean(times[True]):.2f} s with")
    return 1 if differ else 0


def _step_items(small, big, big_at: int, loops: int, step: int, which) -> list:
    """A step's (problem, submission) pairs for submissions `which`: the one at `big_at` on the big
    problem, the others on the small one, each program tagged by step and index (no cache hit)."""
    return [
        (
            big if i == big_at else small,
            Submission(
                id=f"s{i}",
                problem_id="big" if i == big_at else "small",
                language="python",
                code=PROGRAM.format(loops=loops, tag=f"{step}-{i}"),
            ),
        )
        for i in which
    ]


def _table(args, times: dict, differ: int, title: str, slots: str) -> None:
    """The step's p50 and p99 wall time without and with fan-out, side by side, and the check."""
    load = os.getloadavg()
    print(
        f"{title}: {args.steps} steps of {args.subs} submissions ({args.subs - 1} x {args.small_tests} "
        f"tests, 1 x {args.big_tests}), ~{args.test_ms:.0f} ms CPU a test, {slots}; load average "
        f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    )
    print(f"{'step wall time':<16}{'without':>10}{'with':>10}{'without/with':>14}")
    for name, q in (("p50", 0.5), ("p99", 0.99)):
        off, on = percentile(times[False], q), percentile(times[True], q)
        print(f"{name:<16}{off:>9.2f}s{on:>9.2f}s{off / on:>13.2f}x")
    print(f"results identical with and without: {args.steps + 1 - differ} of {args.steps + 1} steps")


if __name__ == "__main__":
    sys.exit(main())
