"""Judge engine benchmark: this engine against a naive judge, an in-process harness and two real
peers (DMOJ's judge-server, an nsjail-per-test harness), same run.

The judges, 2 workers each, on the same workloads, measured in alternation (ours, naive,
in-process, DMOJ, nsjail, again) so that load from elsewhere on the machine hits all of them
(bench/baselines.py describes the first two baselines, bench/peers.py the peers; a peer that cannot
be installed or run here is named in one line, with why, and left out):
  tiny     20 submissions x 200 tests of a trivial A+B program (4,000 tests), full mode
  real     the reference solutions of 15 bundled problems on all their tests (inputs up to ~1 MB):
           real, correct programs, full mode
  real-cpp the C++ reference solutions (zoo/ref.cpp) of 10 such problems, compiled in every round
           (each round's source differs by a comment, so no judge reuses an earlier build); the
           in-process harness cannot run C++. As written (they include the standard headers they use,
           one by one), and as `real-cpp-stdc`: the same programs in contest style, their includes
           replaced by `#include <bits/stdc++.h>`. Ours is also measured with its precompiled
           bits/stdc++.h off ("no pch"; runners.py), which is built before the rounds, once
Every peer's verdicts are compared with ours test by test; the bench says where they differ.
  per test a 200-test trivial submission on one slot: wall and CPU per test, next to the fork floor
           (fork + exit + wait of a warm interpreter like the keeper) measured in the same run
  stable   a program using about half its time limit, judged 200 times with both slots busy
Our engine runs each test in a process of its own (isolation "test", the default), and is also
measured with each submission's tests forked from one sandboxed snapshot of it (isolation
"submission", docs/spec.md 4.8) and with its per-submission zygote switched off (`Engine.zygotes = False`: every test forks
from the keeper and reads its request afresh), the way it judged before.

    python bench/judge_bench.py [--tiny-subs 20] [--tiny-tests 200] [--real 15] [--real-cpp 10] [--repeats 2]
                                [--stability 200] [--peers dmoj,nsjail] [--per-test-only] [--quick]
                                [--cpp-style both|written|contest]
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

from tqdm import tqdm

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from baselines import (  # noqa: E402
    TINY,
    InProcessJudge,
    Task,
    contest_style,
    cpp_problem_dirs,
    dir_task,
    fork_floor,
    load_now,
    naive_many,
    real_problem_dirs,
    tiny_tests,
)
from peers import DmojPeer, NsjailPeer, dmoj_unavailable, nsjail_binary, nsjail_unavailable  # noqa: E402

from services.judge.core.engine import Engine  # noqa: E402
from services.judge.core.models import Submission  # noqa: E402
from services.judge.core.verdicts import Verdict  # noqa: E402
from services.problems.spec import ProblemSpec  # noqa: E402
from services.problems.store import build_problem, load_problem_dir  # noqa: E402
from services.settings import Settings  # noqa: E402

SLOTS = 2
TRIVIAL = "print(int(input()) + 1)\n"


def cpu_ms(engine: Engine) -> tuple[float, float, float]:
    """CPU time so far of this process, of the slots' keepers, and of what the keepers reaped (the
    runs, and the per-submission zygotes with theirs)."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    keepers = runs = 0.0
    tick_ms = 1000 / os.sysconf("SC_CLK_TCK")
    for slot in engine._all:  # unshare(1) is the slot's process; the keeper is its child
        task = f"/proc/{slot.proc.pid}/task/{slot.proc.pid}/children"
        for pid in open(task).read().split():
            fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
            keepers += (int(fields[11]) + int(fields[12])) * tick_ms
            runs += (int(fields[13]) + int(fields[14])) * tick_ms
    return (me.ru_utime + me.ru_stime) * 1000, keepers, runs


class Workload:
    """One workload for all the judges: engine items and baseline tasks of the same programs."""

    def __init__(self, name: str, items: list, tasks: list[Task]):
        self.name, self.items, self.tasks = name, items, tasks
        self.n_tests = sum(len(t.tests) for t in tasks)
        self.rates: dict[str, list[float]] = {}
        # tests a baseline failed: its time limits are wall-clock ones, which a loaded machine hits
        self.failed: dict[str, int] = {}
        self.ours: list[list[str]] = []  # our verdicts (isolation test), task by task, in test order
        # peer: (round, task, test, ours, theirs, the peer's times) where its verdict differs from ours
        self.differ: dict[str, list[tuple[int, int, int, str, str, str]]] = {}

    def add(self, judge: str, tests: int, seconds: float) -> None:
        self.rates.setdefault(judge, []).append(tests / seconds)

    def rate(self, judge: str) -> float:
        return statistics.median(self.rates[judge])

    def round_items(self, r: str) -> list:
        """The items of round `r`: C++ sources get the round in a comment, so each round compiles."""
        return [
            (p, s.model_copy(update={"code": f"{s.code}\n// round {r}\n"})) if s.language == "cpp" else (p, s)
            for p, s in self.items
        ]

    def round_tasks(self, r: int) -> list[Task]:
        return [
            dataclasses.replace(t, code=f"{t.code}\n// round {r}\n") if t.language == "cpp" else t
            for t in self.tasks
        ]

    def compare(self, judge: str, verdicts: list[list[str]], r: int, times: list | None = None) -> None:
        """Record where `judge`'s verdicts in round `r` differ from ours, test by test (with the
        peer's CPU and wall seconds for the test, where it reports them)."""
        diffs = self.differ.setdefault(judge, [])
        for i, (ours, theirs) in enumerate(zip(self.ours, verdicts, strict=True)):
            if len(theirs) != len(ours):
                diffs.append((r, i, -1, f"{len(ours)} tests", f"{len(theirs)} tests", ""))
                continue
            for j, (a, b) in enumerate(zip(ours, theirs, strict=True)):
                if a != b:
                    t = times[i][j] if times and j < len(times[i]) else None
                    diffs.append((r, i, j, a, b, f" ({t[0]:.2f} s CPU, {t[1]:.2f} s wall)" if t else ""))


def tiny_workload(engine: Engine, subs: int, per_sub: int, kill: float) -> Workload:
    tests = tiny_tests(per_sub)
    problem = build_problem(
        ProblemSpec(id="tiny", time_limit_ms=1000, memory_limit_mb=64), tests, engine.store
    )
    codes = [TINY.format(tag=f"s{i}") for i in range(subs)]
    items = [(problem, Submission(id=f"s{i}", problem_id="tiny", code=c)) for i, c in enumerate(codes)]
    plain = [(i, o) for _, i, o in tests]
    tasks = [
        Task(code=c, tests=plain, checker={"type": "exact"}, time_limit_s=kill, limit_s=1.0, memory_mb=64)
        for c in codes
    ]
    return Workload("tiny", items, tasks)


def real_workload(engine: Engine, count: int, kill: float) -> Workload:
    dirs = real_problem_dirs(count)
    if not dirs:
        raise SystemExit("no bundled problem has built tests: run `make problems` first")
    items = []
    for d in dirs:
        problem = load_problem_dir(d, engine.store)
        items.append((problem, Submission(id=d.name, problem_id=problem.id, code=(d / "ref.py").read_text())))
    return Workload("real", items, [dir_task(d, kill) for d in dirs])


def cpp_workload(engine: Engine, count: int, kill: float, contest: bool = False) -> Workload:
    """The C++ reference solutions as written, or (`contest`) in contest style (bits/stdc++.h)."""
    style = contest_style if contest else str
    dirs = cpp_problem_dirs(count)
    items = []
    for d in dirs:
        problem = load_problem_dir(d, engine.store)
        code = style((d / "zoo" / "ref.cpp").read_text())
        items.append((problem, Submission(id=d.name, problem_id=problem.id, language="cpp", code=code)))
    tasks = [dataclasses.replace(t, code=style(t.code)) for t in (dir_task(d, kill, "cpp") for d in dirs)]
    return Workload("real-cpp-stdc" if contest else "real-cpp", items, tasks)


def warm_pch(engine: Engine) -> None:
    """Build the precompiled bits/stdc++.h of the default flag set before any round (a worker builds
    it once, on the second compile that names it), and say what the build cost."""
    code = contest_style((cpp_problem_dirs(1)[0] / "zoo" / "ref.cpp").read_text())
    t0 = time.perf_counter()
    for i in range(2):
        assert engine.compile("cpp", f"{code}\n// warm {i}\n") is None
    built = list((engine.state_dir / "bin").glob("pch-*"))
    print(
        f"precompiled bits/stdc++.h: {'built' if built else 'NOT built'} before the rounds, "
        f"{time.perf_counter() - t0:.1f} s with its two warm-up compiles (once per worker and flag set)"
    )


def run_engine(engine: Engine, w: Workload, isolation: str = "test", r: int = 0) -> tuple[int, float]:
    # each variant of each round has sources of its own: none reuses another's C++ build
    pch = "pch" if engine.settings.precompiled_headers else "no pch"
    items = w.round_items(f"{r} {isolation} {'zygote' if engine.zygotes else 'no zygote'} {pch}")
    t0 = time.perf_counter()
    results = engine.judge_many(items, mode="full", isolation=isolation)
    elapsed = time.perf_counter() - t0
    bad = [r for r in results if r.outcome != "correct"]
    assert not bad, f"{len(bad)} not correct, e.g. {bad[0].model_dump_json()[:600]}"
    if isolation == "test" and not w.ours:
        w.ours = [[t.verdict.value for t in sorted(res.tests, key=lambda t: t.name)] for res in results]
    return sum(len(r.tests) for r in results), elapsed


def compare(
    engine: Engine, inproc: InProcessJudge, peers: dict, w: Workload, repeats: int, workdir: Path
) -> None:
    python_only = all(t.language == "python" for t in w.tasks)
    for peer in peers.values():
        if hasattr(peer, "prepare"):
            peer.prepare(w.tasks)
    for r in tqdm(range(repeats), desc=w.name, leave=False):
        engine.zygotes = True
        w.add("ours", *run_engine(engine, w, r=r))
        w.add("ours, shared", *run_engine(engine, w, "submission", r=r))
        t0 = time.perf_counter()
        ran, passed = naive_many(w.round_tasks(r), workdir)
        w.add("naive", ran, time.perf_counter() - t0)
        w.failed["naive"] = w.failed.get("naive", 0) + ran - passed
        if python_only:
            t0 = time.perf_counter()
            ran, passed = inproc.run(w.tasks)
            w.add("in-process", ran, time.perf_counter() - t0)
            w.failed["in-process"] = w.failed.get("in-process", 0) + ran - passed
        for name, peer in peers.items():
            tasks = w.round_tasks(r)
            t0 = time.perf_counter()
            verdicts = peer.run(tasks)
            w.add(name, sum(len(v) for v in verdicts), time.perf_counter() - t0)
            w.compare(name, verdicts, r, getattr(peer, "times", None))
        engine.zygotes = False
        w.add("ours, no zygote", *run_engine(engine, w, r=r))
        engine.zygotes = True
        if not python_only:
            engine.settings.precompiled_headers = False
            try:
                w.add("ours, no pch", *run_engine(engine, w, r=r))
            finally:
                engine.settings.precompiled_headers = True


VARIANTS = {  # per-test variants: (Engine.zygotes, isolation)
    "zygote": (True, "test"),
    "shared": (True, "submission"),
    "no zygote": (False, "test"),
}


def per_test(engine: Engine, n_tests: int, rounds: int) -> dict:
    """A trivial submission of `n_tests` tests on one slot: wall and CPU per test, every variant."""
    tests = [(f"t{i}", f"{i}\n".encode(), f"{i + 1}\n".encode()) for i in range(n_tests)]
    problem = build_problem(
        ProblemSpec(id="one", time_limit_ms=1000, memory_limit_mb=64), tests, engine.store
    )
    out: dict[str, dict[str, list[float]]] = {v: {"wall": [], "cpu": []} for v in VARIANTS}
    floors = [fork_floor()]
    for i in range(rounds):
        for variant, (zygotes, isolation) in VARIANTS.items():
            engine.zygotes = zygotes
            c0, t0 = sum(cpu_ms(engine)), time.perf_counter()
            sub = Submission(id=f"p{i}", problem_id="one", code=TRIVIAL)
            r = engine.judge(problem, sub, mode="full", isolation=isolation)
            out[variant]["wall"].append((time.perf_counter() - t0) * 1000 / n_tests)
            out[variant]["cpu"].append((sum(cpu_ms(engine)) - c0) / n_tests)
            assert r.outcome == "correct", r
    engine.zygotes = True
    floors.append(fork_floor())
    floor_wall = statistics.median(f["wall_ms"] for f in floors)
    floor_cpu = statistics.median(f["cpu_ms"] for f in floors)
    print(
        f"fork floor: fork + exit + wait of a warm interpreter {floor_wall:.2f} ms wall, {floor_cpu:.2f} ms CPU "
        f"(median of {len(floors)} runs of 300)"
    )
    figures = {"floor_wall_ms": floor_wall, "floor_cpu_ms": floor_cpu}
    for variant, label in (
        ("zygote", "isolation test"),
        ("shared", "isolation submission"),
        ("no zygote", "isolation test, no zygote"),
    ):
        wall, cpu = statistics.median(out[variant]["wall"]), statistics.median(out[variant]["cpu"])
        print(
            f"per trivial test, {label} ({n_tests}-test submission, one slot, median of {rounds}): "
            f"{wall:.2f} ms wall, {cpu:.2f} ms CPU = {wall / floor_wall:.2f}x the floor's wall, "
            f"{cpu / floor_cpu:.2f}x its CPU (target, isolation test: <= 2x)"
        )
        figures[variant] = {"wall_ms": wall, "cpu_ms": cpu}
    test, shared = figures["zygote"], figures["shared"]
    print(
        f"per trivial test, isolation submission against isolation test: "
        f"{shared['wall_ms'] / test['wall_ms']:.2f}x the wall, {shared['cpu_ms'] / test['cpu_ms']:.2f}x the CPU"
    )
    return figures


def overhead(engine: Engine, n: int = 100) -> None:
    problem = build_problem(
        ProblemSpec(id="single", time_limit_ms=1000, memory_limit_mb=64),
        [("a", b"1\n", b"2\n")],
        engine.store,
    )
    walls = []
    for i in range(n):
        t0 = time.perf_counter()
        engine.judge(problem, Submission(id=str(i), problem_id="single", code=TRIVIAL))
        walls.append((time.perf_counter() - t0) * 1000)
    print(
        f"a trivial one-test submission, end to end on one slot: {statistics.median(walls):.2f} ms median "
        f"(p90 {statistics.quantiles(walls, n=10)[-1]:.2f} ms)"
    )


def stability(engine: Engine, n: int, isolation: str = "test", per_sub: int = 1) -> int:
    """`n` runs of a program using half its time limit, `per_sub` tests to a submission: TLE count."""
    limit_ms = 400
    problem = build_problem(
        ProblemSpec(id=f"half{per_sub}", time_limit_ms=limit_ms, memory_limit_mb=64),
        [(f"t{i}", b"1\n", b"1\n") for i in range(per_sub)],
        engine.store,
    )
    code = "import time\nt=time.process_time()\nwhile time.process_time()-t<%f: pass\nprint(1)\n" % (
        limit_ms / 2000
    )
    subs = [(problem, Submission(id=str(i), problem_id=problem.id, code=code)) for i in range(n // per_sub)]
    results = engine.judge_many(subs, mode="full", isolation=isolation)
    tests = [t for r in results for t in r.tests]
    tle = sum(1 for t in tests if t.verdict == Verdict.TLE)
    cpu = [t.cpu_ms for t in tests]
    print(
        f"stable, isolation {isolation}: a program using half its {limit_ms} ms limit, {len(tests)} runs "
        f"({per_sub} to a submission) on {SLOTS} busy slots: {tle} TLE, cpu_ms min {min(cpu)} median "
        f"{statistics.median(cpu)} max {max(cpu)}"
    )
    return tle


def report(w: Workload, peers: dict) -> None:
    n = len(w.rates["ours"])
    baselines = [b for b in ("naive", "in-process") if b in w.rates]
    for judge, label in (
        ("ours", "isolation test"),
        ("ours, shared", "isolation submission"),
        ("ours, no zygote", "isolation test, no zygote"),
    ):
        ours = w.rate(judge)
        rates = " | ".join(f"{b} {w.rate(b):7.1f}" for b in baselines)
        ratios = " | ".join(f"ours/{b} {ours / w.rate(b):5.2f}x" for b in baselines)
        print(
            f"{w.name:>5} ({w.n_tests} tests, median of {n}): ours, {label} {ours:7.1f} tests/s | {rates} | {ratios}",
            flush=True,
        )
    if "in-process" not in w.rates:
        print(f"{w.name:>5}: in-process n/a (it runs Python only)")
    if "ours, no pch" in w.rates:
        ours, off = w.rate("ours"), w.rate("ours, no pch")
        print(
            f"{w.name:>5} ({w.n_tests} tests, median of {n}): ours, isolation test {ours:7.1f} tests/s | ours "
            f"without the precompiled bits/stdc++.h {off:7.1f} tests/s | with/without {ours / off:5.2f}x"
        )
    for name in peers:
        ours, theirs = w.rate("ours"), w.rate(name)
        print(
            f"{w.name:>5} ({w.n_tests} tests, median of {n}): ours, isolation test {ours:7.1f} tests/s | {name} "
            f"{theirs:7.1f} tests/s | ours/{name} {ours / theirs:5.2f}x",
            flush=True,
        )
        diffs = w.differ.get(name, [])
        if not diffs:
            print(f"{w.name:>5}: {name}'s verdicts equal ours on every test of every round")
        else:
            shown = "; ".join(
                f"round {r + 1}, {w.items[i][1].id}{f' test {j + 1}' if j >= 0 else ''}: ours {a}, {name} {b}{t}"
                for r, i, j, a, b, t in diffs[:5]
            )
            print(
                f"{w.name:>5}: {name}'s verdicts differ from ours on {len(diffs)} tests (all rounds), e.g. {shown}"
            )
    if any(w.failed.values()):
        print(f"       tests the baselines failed (wall-clock limits on a loaded machine): {w.failed}")


def start_peers(names: list[str], workdir: Path) -> dict:
    """The peers asked for that can run here; one line for each that cannot, with why."""
    peers: dict = {}
    if "dmoj" in names:
        why = dmoj_unavailable()
        if why is None:
            try:
                (workdir / "dmoj").mkdir()
                peers["DMOJ"] = DmojPeer(workdir / "dmoj")
            except (OSError, RuntimeError, ValueError) as ex:
                why = f"its judges did not start: {ex}"
        if why:
            print(f"peer DMOJ left out: {why}")
    if "nsjail" in names:
        binary = nsjail_binary()
        why = nsjail_unavailable(binary)
        if why is None:
            (workdir / "nsjail").mkdir()
            peers["nsjail"] = NsjailPeer(binary, workdir / "nsjail")
        else:
            print(f"peer nsjail left out: {why}")
    for peer in peers.values():
        print(f"peer {peer.label}")
    return peers


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tiny-subs", type=int, default=20)
    ap.add_argument("--tiny-tests", type=int, default=200, help="tests per tiny submission")
    ap.add_argument("--real", type=int, default=15, help="bundled problems of the real workload")
    ap.add_argument("--repeats", type=int, default=2, help="alternating rounds of the three judges")
    ap.add_argument("--per-test-rounds", type=int, default=5)
    ap.add_argument("--stability", type=int, default=200)
    ap.add_argument("--per-test-only", action="store_true", help="only the per-test figures and the overhead")
    ap.add_argument("--real-cpp", type=int, default=10, help="bundled problems of the C++ workload (0: none)")
    ap.add_argument(
        "--cpp-style",
        choices=("both", "written", "contest"),
        default="both",
        help="the C++ sources as written, in contest style (bits/stdc++.h), or both workloads",
    )
    ap.add_argument(
        "--peers", default="dmoj,nsjail", help="real peers to measure, comma-separated ('' for none)"
    )
    ap.add_argument(
        "--quick",
        action="store_true",
        help="a small end-to-end check: 4 x 25 tiny tests, 3 real problems, 2 C++ ones, one round, no stability",
    )
    args = ap.parse_args()
    if args.quick:
        args.tiny_subs, args.tiny_tests, args.real, args.real_cpp = 4, 25, 3, 2
        args.repeats, args.per_test_rounds, args.stability = 1, 1, 0
    print(f"before: {load_now()}")
    with tempfile.TemporaryDirectory(prefix="judge-bench-") as tmp:
        engine = Engine(Settings(state_dir=Path(tmp) / "state", slots=SLOTS))
        kill = 1 + engine.settings.borderline_band
        engine.warm_up()
        inproc = InProcessJudge()
        work = Path(tmp) / "naive"
        work.mkdir()
        peers = start_peers([p for p in args.peers.split(",") if p], Path(tmp))
        try:
            per_test(engine, 200, args.per_test_rounds)
            overhead(engine)
            if args.per_test_only:
                return
            tiny = tiny_workload(engine, args.tiny_subs, args.tiny_tests, kill)
            real = real_workload(engine, args.real, kill)
            workloads = [tiny, real]
            if args.real_cpp:
                warm_pch(engine)
                if args.cpp_style in ("both", "written"):
                    workloads.append(cpp_workload(engine, args.real_cpp, kill))
                if args.cpp_style in ("both", "contest"):
                    workloads.append(cpp_workload(engine, args.real_cpp, kill, contest=True))
            print(
                f"judges: ours = Engine.judge_many, {SLOTS} slots; naive, in-process and the peers: "
                f"{SLOTS} workers each"
            )
            for w in workloads:
                compare(engine, inproc, peers, w, args.repeats, work)
                report(w, peers)
            for judge, label in (("ours", "isolation test"), ("ours, shared", "isolation submission")):
                print(
                    f"targets, {label}: tiny ours/naive >= 15x ({tiny.rate(judge) / tiny.rate('naive'):.2f}x); "
                    f"real ours/in-process >= 1x ({real.rate(judge) / real.rate('in-process'):.2f}x)"
                )
            if args.stability:
                stability(engine, args.stability)
                stability(engine, args.stability, "submission", per_sub=4)
        finally:
            for peer in peers.values():
                if hasattr(peer, "close"):
                    peer.close()
            inproc.close()
            engine.close()
    print(f"after: {load_now()}")


if __name__ == "__main__":
    main()
