"""Problems and submissions for the tests: built into a test store (the engine's), or as the judge
API's JSON; and the TLE rules (docs/spec.md 4.1) the tests check reports against."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys

import pytest

SUM = "a, b = map(int, input().split())\nprint(a + b)\n"
SLEEPY = "import time\ntime.sleep({s})\na, b = map(int, input().split())\nprint(a + b)  # {tag}\n"

# input lengths 4, 16 and 108 bytes: one test in each of the scopes of R_1, R_2 and R_3
SUM_TESTS = [
    ("01", "1 2\n", "3\n"),
    ("02", "10 20" + " " * 10 + "\n", "30\n"),
    ("03", "100 200" + " " * 100 + "\n", "300\n"),
]


def make_problem(store, tests: list[tuple[str, str | bytes, str | bytes]], pid: str = "p", **spec):
    """A problem of `tests` (name, input, output) built into `store` (a TestStore)."""
    from services.problems.spec import ProblemSpec
    from services.problems.store import build_problem

    checker_source = spec.pop("checker_source", None)
    interactor_source = spec.pop("interactor_source", None)
    fields = {"id": pid, "time_limit_ms": 1000, "memory_limit_mb": 128, **spec}
    enc = [
        (n, i.encode() if isinstance(i, str) else i, o.encode() if isinstance(o, str) else o)
        for n, i, o in tests
    ]
    return build_problem(
        ProblemSpec.model_validate(fields),
        enc,
        store,
        checker_source=checker_source,
        interactor_source=interactor_source,
    )


def sub(code: str, language: str = "python", sid: str = "s", problem_id: str = "p"):
    from services.judge.core.models import Submission

    return Submission(id=sid, problem_id=problem_id, language=language, code=code)


def problem_json(tests, time_limit_ms=1000, memory_limit_mb=64, **extra) -> dict:
    """A problem as the judge API's PUT /problems/{id} takes it."""
    return {
        "title": "t",
        "time_limit_ms": time_limit_ms,
        "memory_limit_mb": memory_limit_mb,
        "tests": [{"name": n, "input": i, "output": o} for n, i, o in tests],
        **extra,
    }


def subs_of(codes: dict[str, str], problem_id: str = "sum", language: str = "python") -> list[dict]:
    return [{"id": i, "problem_id": problem_id, "language": language, "code": c} for i, c in codes.items()]


@contextlib.contextmanager
def busy_neighbours(per_cpu: int = 2):
    """`per_cpu` busy loops a CPU beside the judge, each in a session of its own, as a neighbour's
    containers are: the scheduler groups one session's processes (autogroup), so loops started in the
    test's own session would barely load the host."""
    loops = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True)
        for _ in range(per_cpu * (os.cpu_count() or 1))
    ]
    try:
        yield loops
    finally:
        for p in loops:
            p.kill()
        for p in loops:
            p.wait()


def assert_cpu_tle(report, time_limit_ms: int) -> None:
    """A TLE is CPU time over the limit (docs/spec.md 4.1), whatever the host's load."""
    assert report.verdict == "TLE", report
    assert report.cpu_ms >= time_limit_ms, report


def is_idle_stop(report) -> bool:
    """A TLE of a program idle at its wall limit (sleeping, blocked: on an interactor, say), which says
    so; the only TLE with less CPU time than its limit (docs/spec.md 4.1)."""
    return report.verdict == "TLE" and (report.message or "").startswith("idle at its wall limit")


def token() -> str:
    """A secret planted in a run, for the isolation tests to look for in later runs."""
    import secrets

    return "TKN" + secrets.token_hex(16)


@contextlib.contextmanager
def throttled_engine(state_dir, share: float):
    """An engine of one slot whose cgroup may use `share` of a CPU (cpu.max / cfs_quota): a host that
    starves the judge, as a run sees it; a host whose slots have no cpu controller fails the test."""
    from services.judge.core.engine import Engine
    from services.settings import Settings

    eng = Engine(Settings(state_dir=state_dir, slots=1))
    try:
        eng.warm_up()
        (slot,) = eng._all
        if not slot.cgroup.has_cpu_quota:
            pytest.fail("this host's slots have no cpu controller: the throttled slot cannot be made")
        slot.cgroup.set_cpu_quota(share)
        yield eng
    finally:
        eng.close()
