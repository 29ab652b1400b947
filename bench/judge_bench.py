"""Judge engine benchmark: this engine against a naive `subprocess.run([python3, file])` judge.

Same workloads, same run, both with 2 parallel slots. The naive judge runs each test as
`subprocess.run([python, file], input=..., timeout=...)`, with `python` the interpreter's own path
(`python3` as found on PATH is also measured on the tiny workload: on machines where that is a
version-manager shim it costs far more per start). Both sides stop a program at the same point,
time_limit_ms * (1 + borderline band), so TLE costs the same on each side:
  tiny    a trivial Python program, 2,000 tests (20 submissions x 100 tests, full mode)
  mixed   the solution zoo of the bundled problems (real solutions, inputs up to ~1 MB), first-failure
  stable  a program using about half its time limit, judged 200 times with both slots busy
Prints tests/second for each side and the ratio, and the per-test overhead of a trivial test.

    python bench/judge_bench.py [--tiny-tests 2000] [--zoo-problems N] [--stability 200] [--engine-only]

`--engine-only` skips the naive judge and prints the engine's figures alone: for comparing two
versions of the engine, run alternately in one session (the naive side does not change).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tqdm import tqdm

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from services.judge import checkers  # noqa: E402
from services.judge.engine import Engine  # noqa: E402
from services.judge.functional import wrap  # noqa: E402
from services.judge.models import Submission  # noqa: E402
from services.judge.verdicts import Verdict  # noqa: E402
from services.problems.spec import FloatChecker, ProblemSpec, ProgramChecker, TokensChecker  # noqa: E402
from services.problems.store import Problem, build_problem  # noqa: E402
from services.settings import Settings  # noqa: E402

SLOTS = 2
TRIVIAL = "print(int(input()) + 1)\n"


class NaiveJudge:
    """What people write first: one fresh interpreter (or binary) per test via subprocess.run."""

    def __init__(self, engine: Engine, workdir: Path, python: str = sys.executable):
        self.store = engine.store
        self.workdir = workdir
        self.python = python
        self.kill_factor = 1 + engine.settings.borderline_band
        self._n = 0

    def _file(self, text: str, suffix: str) -> Path:
        self._n += 1
        path = self.workdir / f"prog{self._n}{suffix}"
        path.write_text(text)
        return path

    def prepare(self, problem: Problem, sub: Submission) -> list[str] | None:
        if sub.language == "cpp":
            src = self._file(sub.code, ".cpp")
            exe = src.with_suffix("")
            r = subprocess.run(["g++", "-O2", "-std=c++17", "-o", str(exe), str(src)], capture_output=True)
            return [str(exe)] if r.returncode == 0 else None
        code = wrap(sub.code, problem.spec.function) if problem.spec.function else sub.code
        return [self.python, str(self._file(code, ".py"))]

    def judge(self, problem: Problem, sub: Submission, mode: str = "first_failure") -> int:
        """Returns the number of tests run."""
        argv = self.prepare(problem, sub)
        if argv is None:
            return 1
        checker_argv = None
        if isinstance(problem.spec.checker, ProgramChecker):
            checker_argv = [self.python, str(self._file(problem.checker_source, ".py"))]
        ran = 0
        for test in problem.tests:
            ran += 1
            inp = self.store.get(test.input_sha256)
            try:
                r = subprocess.run(
                    argv,
                    input=inp,
                    capture_output=True,
                    timeout=problem.spec.time_limit_ms * self.kill_factor / 1000,
                )
                ok = r.returncode == 0 and self._check(problem, test, r.stdout, checker_argv)
            except subprocess.TimeoutExpired:
                ok = False
            if not ok and mode == "first_failure":
                break
        return ran

    def _check(self, problem, test, out: bytes, checker_argv) -> bool:
        exp = self.store.get(test.output_sha256)
        c = problem.spec.checker
        if checker_argv:
            actual = self._file("", ".out")
            actual.write_bytes(out)
            r = subprocess.run(
                [
                    *checker_argv,
                    str(self.store.path(test.input_sha256)),
                    str(self.store.path(test.output_sha256)),
                    str(actual),
                ],
                capture_output=True,
            )
            return r.returncode == 0
        if problem.spec.function:
            return checkers.json_value(exp, out)
        if isinstance(c, FloatChecker):
            return checkers.float_tokens(exp, out, c.abs_tol, c.rel_tol)
        if isinstance(c, TokensChecker):
            return checkers.tokens(exp, out)
        return checkers.exact(exp, out)


def ran_tests(result) -> int:
    return sum(1 for t in result.tests if t.verdict != Verdict.SKIPPED) or 1


def side_by_side(name: str, ours_s: float, ours_tests: int, base_s: float, base_tests: int) -> dict:
    ours, base = ours_tests / ours_s, base_tests / base_s
    print(
        f"{name:>13}: engine {ours:8.1f} tests/s ({ours_tests} tests in {ours_s:.2f} s) | "
        f"naive {base:8.1f} tests/s ({base_tests} tests in {base_s:.2f} s) | ratio {ours / base:5.1f}x"
    )
    return {"workload": name, "engine_tps": ours, "naive_tps": base, "ratio": ours / base}


def engine_alone(name: str, ours_s: float, ours_tests: int, cpu_total_ms: float) -> dict:
    print(
        f"{name:>13}: engine {ours_tests / ours_s:8.1f} tests/s ({ours_tests} tests in {ours_s:.2f} s), "
        f"CPU {cpu_total_ms / ours_tests:.2f} ms/test"
    )
    return {"workload": name, "engine_tps": ours_tests / ours_s}


def bench_tiny(engine: Engine, naive: NaiveJudge | None, n_tests: int, label: str = "tiny") -> dict:
    per_sub = 100
    tests = [(f"t{i:04d}", f"{i}\n".encode(), f"{i + 1}\n".encode()) for i in range(per_sub)]
    problem = build_problem(
        ProblemSpec(id="tiny", time_limit_ms=1000, memory_limit_mb=64), tests, engine.store
    )
    subs = [
        Submission(id=f"s{i}", problem_id="tiny", code=TRIVIAL + f"# {i}\n")
        for i in range(n_tests // per_sub)
    ]
    t0, cpu0 = time.perf_counter(), sum(cpu_ms(engine))
    results = engine.judge_many([(problem, s) for s in subs], mode="full")
    ours_s, ours_cpu = time.perf_counter() - t0, sum(cpu_ms(engine)) - cpu0
    assert all(r.outcome == "correct" for r in results), [r for r in results if r.outcome != "correct"][:1]
    ours_tests = sum(ran_tests(r) for r in results)
    if naive is None:
        return engine_alone(label, ours_s, ours_tests, ours_cpu)
    t0 = time.perf_counter()
    with ThreadPoolExecutor(SLOTS) as pool:
        base_tests = sum(
            tqdm(
                pool.map(lambda s: naive.judge(problem, s, "full"), subs),
                total=len(subs),
                desc="naive tiny",
                leave=False,
            )
        )
    base_s = time.perf_counter() - t0
    return side_by_side(label, ours_s, ours_tests, base_s, base_tests)


def cpu_ms(engine: Engine) -> tuple[float, float, float]:
    """CPU time so far of this process, of the slots' keepers, and of the runs the keepers reaped."""
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


def bench_overhead(engine: Engine, n: int = 300) -> float:
    problem = build_problem(
        ProblemSpec(id="one", time_limit_ms=1000, memory_limit_mb=64), [("a", b"1\n", b"2\n")], engine.store
    )
    walls = []
    before = cpu_ms(engine)
    for i in range(n):
        t0 = time.perf_counter()
        engine.judge(problem, Submission(id=str(i), problem_id="one", code=TRIVIAL))
        walls.append((time.perf_counter() - t0) * 1000)
    judge, keeper, run = ((b - a) / n for a, b in zip(before, cpu_ms(engine), strict=True))
    med = statistics.median(walls)
    print(
        f"overhead: a trivial one-test Python submission takes {med:.2f} ms median end to end "
        f"(p90 {statistics.quantiles(walls, n=10)[-1]:.2f} ms) on one slot; CPU {judge + keeper + run:.2f} ms "
        f"(judge process {judge:.2f}, keeper {keeper:.2f}, the run {run:.2f}): the figure to compare on a busy machine"
    )
    return med


def bench_mixed(engine: Engine, naive: NaiveJudge | None, limit: int | None) -> dict | None:
    from services.judge.zoo import load_zoo_workload

    root = ROOT / "problems" / "bundled"
    try:
        items = load_zoo_workload(engine, root)
    except Exception as err:  # noqa: BLE001 - the bundled problems may not be built
        print(f"mixed: skipped ({err}); run `make problems` first")
        return None
    if limit:
        keep = sorted({p.id for p, _ in items})[:limit]
        items = [(p, v) for p, v in items if p.id in keep]
    subs = [
        (p, Submission(id=f"{v.problem_id}/{v.file}", problem_id=p.id, language=v.language, code=v.code))
        for p, v in items
    ]
    t0, cpu0 = time.perf_counter(), sum(cpu_ms(engine))
    results = []
    for i in tqdm(range(0, len(subs), 8), desc="engine mixed", leave=False):
        results += engine.judge_many(subs[i : i + 8])
    ours_s, ours_cpu = time.perf_counter() - t0, sum(cpu_ms(engine)) - cpu0
    ours_tests = sum(ran_tests(r) for r in results)
    if naive is None:
        print(f"mixed: {len(subs)} zoo variants on {len({p.id for p, _ in subs})} problems")
        return engine_alone("mixed", ours_s, ours_tests, ours_cpu)
    t0 = time.perf_counter()
    with ThreadPoolExecutor(SLOTS) as pool:
        base_tests = sum(
            tqdm(
                pool.map(lambda ps: naive.judge(*ps), subs), total=len(subs), desc="naive mixed", leave=False
            )
        )
    base_s = time.perf_counter() - t0
    print(f"mixed: {len(subs)} zoo variants on {len({p.id for p, _ in subs})} problems")
    return side_by_side("mixed", ours_s, ours_tests, base_s, base_tests)


def bench_stability(engine: Engine, n: int) -> int:
    limit_ms = 400
    problem = build_problem(
        ProblemSpec(id="half", time_limit_ms=limit_ms, memory_limit_mb=64),
        [("a", b"1\n", b"1\n")],
        engine.store,
    )
    code = "import time\nt=time.process_time()\nwhile time.process_time()-t<%f: pass\nprint(1)\n" % (
        limit_ms / 2000
    )
    subs = [(problem, Submission(id=str(i), problem_id="half", code=code)) for i in range(n)]
    results = engine.judge_many(subs)
    tle = sum(1 for r in results if r.tests[0].verdict == Verdict.TLE)
    cpu = [r.tests[0].cpu_ms for r in results]
    print(
        f"stable: a program using half its {limit_ms} ms limit, judged {n} times on {SLOTS} busy slots: "
        f"{tle} TLE, cpu_ms min {min(cpu)} median {statistics.median(cpu)} max {max(cpu)}"
    )
    return tle


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tiny-tests", type=int, default=2000)
    ap.add_argument("--zoo-problems", type=int, default=None, help="limit the mixed workload to N problems")
    ap.add_argument("--stability", type=int, default=200)
    ap.add_argument("--engine-only", action="store_true", help="skip the naive judge")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="judge-bench-") as tmp:
        engine = Engine(Settings(state_dir=Path(tmp) / "state", slots=SLOTS))
        engine.warm_up()
        work = Path(tmp) / "naive"
        work.mkdir()
        naive = NaiveJudge(engine, work)
        try:
            bench_overhead(engine)
            if args.engine_only:
                bench_tiny(engine, None, args.tiny_tests)
                bench_mixed(engine, None, args.zoo_problems)
                bench_stability(engine, args.stability)
                return
            bench_tiny(engine, naive, args.tiny_tests)
            on_path = shutil.which("python3")
            if on_path and os.path.realpath(on_path) != os.path.realpath(sys.executable):
                print(f"python3 on PATH is {on_path}")
                bench_tiny(engine, NaiveJudge(engine, work, python=on_path), args.tiny_tests, "tiny (PATH)")
            bench_mixed(engine, naive, args.zoo_problems)
            bench_stability(engine, args.stability)
        finally:
            engine.close()


if __name__ == "__main__":
    main()
