"""The two baselines this judge is measured against, the workloads, and the fork floor (bench/*_bench.py;
the real peers, DMOJ and nsjail, are bench/peers.py's).

- naive: what people write first, one fresh interpreter per test (`subprocess.run([python, file],
  input=..., timeout=...)`), 2 threads; a C++ submission is compiled once (our judge's flags) and
  its binary run the same way.
- in-process: a LiveCodeBench-style harness, no isolation at all: each submission is compiled once
  in a worker process and every test `exec`s it there with sys.stdin/sys.stdout swapped for
  in-memory files and an interval timer as the time limit; 2 worker processes.
- fork floor: what a fork of a warm interpreter and a wait cost, the least a fork-per-test judge can
  spend: a `python -I -S` with the keeper's preloaded modules (frozen out of the collector, like the
  keeper) forks a child that exits at once, and waits for it.

Both baselines stop a program at the same point as the judge (time_limit_ms x (1 + borderline band))
and check answers with the judge's own checkers, so only the way programs are run differs.
"""

from __future__ import annotations

import io
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from services.judge.core import checkers  # noqa: E402
from services.judge.core.functional import wrap  # noqa: E402
from services.judge.core.sandbox.keeper import PRELOAD  # noqa: E402
from services.problems.discovery import BUNDLED_DIR, problem_dirs, read_spec  # noqa: E402

WORKERS = 2
TINY = "a, b = map(int, input().split())\nprint(a + b)  # {tag}\n"


@dataclass
class Task:
    """One submission and its tests, as plain data (it crosses into worker processes)."""

    code: str
    tests: list[tuple[bytes, bytes]]  # (input, expected output)
    checker: dict  # problem.json's checker: exact, tokens, float
    time_limit_s: float  # the point where the program is stopped
    function: str | None = None
    language: str = "python"  # or "cpp" (the naive judge compiles it once; the in-process one cannot run it)
    limit_s: float = 1.0  # the problem's time limit (the peers of bench/peers.py take it, not the stop point)
    memory_mb: int = 256

    @property
    def program(self) -> str:
        return wrap(self.code, self.function) if self.function else self.code


def check(task: Task, expected: bytes, out: bytes) -> bool:
    c = task.checker
    if task.function:
        return checkers.json_value(expected, out)
    if c["type"] == "float":
        return checkers.float_tokens(expected, out, c.get("abs_tol", 1e-6), c.get("rel_tol", 1e-6))
    if c["type"] == "tokens":
        return checkers.tokens(expected, out)
    return checkers.exact(expected, out)


# -- workloads ------------------------------------------------------------------------------------
def tiny_tests(n: int) -> list[tuple[str, bytes, bytes]]:
    return [(f"t{i:04d}", f"{i} {i * 7}\n".encode(), f"{i * 8}\n".encode()) for i in range(n)]


def real_problem_dirs(count: int = 15) -> list[Path]:
    """The first `count` bundled problems judged on stdin/stdout with a built-in checker (no checker
    program, no function signature): their reference solutions are correct real programs."""
    dirs = []
    for d in problem_dirs(BUNDLED_DIR):
        if not (d / "ref.py").is_file() or not list(d.glob("tests/*.in")):
            continue
        spec = read_spec(d)
        if spec.checker.type == "program" or spec.function:
            continue
        dirs.append(d)
        if len(dirs) == count:
            break
    return dirs


def dir_task(d: Path, kill_factor: float, language: str = "python") -> Task:
    """Problem dir `d`'s reference solution on all its tests: ref.py, or zoo/ref.cpp for "cpp"."""
    spec = read_spec(d)
    tests = [(p.read_bytes(), p.with_suffix(".out").read_bytes()) for p in sorted(d.glob("tests/*.in"))]
    return Task(
        code=(d / ("zoo/ref.cpp" if language == "cpp" else "ref.py")).read_text(),
        tests=tests,
        checker=spec.checker.model_dump(),
        time_limit_s=spec.time_limit_ms * kill_factor / 1000,
        language=language,
        limit_s=spec.time_limit_ms / 1000,
        memory_mb=spec.memory_limit_mb,
    )


def contest_style(code: str) -> str:
    """A C++ source with its #include lines replaced by the one most contest programs use,
    `#include <bits/stdc++.h>` (every standard header): the same program, compiled as such."""
    lines = [line for line in code.splitlines() if not line.lstrip().startswith("#include")]
    return "\n".join(["#include <bits/stdc++.h>", *lines]) + "\n"


def cpp_problem_dirs(count: int) -> list[Path]:
    """Bundled problems of `real_problem_dirs`' kind that also carry a C++ reference (zoo/ref.cpp)."""
    return [d for d in real_problem_dirs(10**6) if (d / "zoo" / "ref.cpp").is_file()][:count]


# -- the naive judge ------------------------------------------------------------------------------
def naive_judge(task: Task, workdir: Path, python: str = sys.executable) -> tuple[int, int]:
    """One fresh interpreter per test; returns (tests run, tests passed): every test runs."""
    fd, path = tempfile.mkstemp(suffix=".py", dir=workdir)
    with os.fdopen(fd, "w") as f:
        f.write(task.program)
    argv = [python, path]
    if task.language == "cpp":  # compiled once, with the judge's flags
        binary = path[:-3]
        r = subprocess.run(["/usr/bin/g++", "-O2", "-std=c++17", "-pipe", "-x", "c++", "-o", binary, path])
        argv = [binary]
    passed = 0
    for inp, expected in task.tests:
        try:
            r = subprocess.run(argv, input=inp, capture_output=True, timeout=task.time_limit_s)
            passed += r.returncode == 0 and check(task, expected, r.stdout)
        except subprocess.TimeoutExpired:
            pass
    os.unlink(path)
    if task.language == "cpp" and os.path.exists(argv[0]):
        os.unlink(argv[0])
    return len(task.tests), passed


def naive_many(tasks: list[Task], workdir: Path) -> tuple[int, int]:
    with ThreadPoolExecutor(WORKERS) as pool:
        done = list(pool.map(lambda t: naive_judge(t, workdir), tasks))
    return sum(r for r, _ in done), sum(p for _, p in done)


# -- the in-process harness -----------------------------------------------------------------------
class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout


def inprocess_judge(task: Task) -> tuple[int, int]:
    """Compile once, exec per test in this process; returns (tests run, tests passed)."""
    code = compile(task.program, "solution.py", "exec")
    signal.signal(signal.SIGALRM, _alarm)
    passed = 0
    saved = sys.stdin, sys.stdout
    for inp, expected in task.tests:
        sys.stdin = io.TextIOWrapper(io.BytesIO(inp))
        out = io.BytesIO()
        sys.stdout = writer = io.TextIOWrapper(out, write_through=True)
        ok = True
        signal.setitimer(signal.ITIMER_REAL, task.time_limit_s)
        try:
            exec(code, {"__name__": "__main__"})
        except SystemExit as ex:
            ok = ex.code in (None, 0)
        except BaseException:  # noqa: BLE001 - the program's failure (or its time limit)
            ok = False
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            try:
                writer.flush()
            except ValueError:
                pass
            sys.stdin, sys.stdout = saved
        answer = out.getvalue()
        writer.detach()
        passed += ok and check(task, expected, answer)
    return len(task.tests), passed


class InProcessJudge:
    """Worker processes that run submissions in process (forked once, up front, and reused)."""

    def __init__(self, workers: int = WORKERS):
        import multiprocessing

        self.pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"))
        list(self.pool.map(_noop, range(workers * 4)))  # start every worker before any clock runs

    def run(self, tasks: list[Task]) -> tuple[int, int]:
        done = list(self.pool.map(inprocess_judge, tasks))
        return sum(r for r, _ in done), sum(p for _, p in done)

    def close(self) -> None:
        self.pool.shutdown()


def _noop(_):
    return None


# -- the fork floor -------------------------------------------------------------------------------
_FLOOR = """
import gc, os, sys, time, json
for name in {preload!r}:
    __import__(name)
gc.collect(); gc.freeze()
walls, n = [], {n}
t_cpu = os.times()
for _ in range(n):
    t = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    walls.append(time.perf_counter() - t)
t = os.times()
cpu = (t.user + t.system - t_cpu.user - t_cpu.system) + (t.children_user + t.children_system)
print(json.dumps({{"walls": walls, "cpu_s": cpu}}))
"""


def fork_floor(n: int = 300) -> dict:
    """Median wall time of fork + exit + wait in a warm interpreter like the keeper, and CPU per fork."""
    python = os.path.realpath(sys.executable)
    out = subprocess.run(
        [python, "-I", "-S", "-B", "-c", _FLOOR.format(preload=list(PRELOAD), n=n)],
        capture_output=True,
        check=True,
        text=True,
    ).stdout
    data = json.loads(out)
    return {"wall_ms": statistics.median(data["walls"]) * 1000, "cpu_ms": data["cpu_s"] * 1000 / n}


def load_now() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.1f} (1 min), {five:.1f} (5 min) on {os.cpu_count()} cores"
