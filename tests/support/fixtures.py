"""The engine fixtures of the tiers that run programs (tests/sandbox, tests/stack, tests/e2e: each
tier's conftest.py imports them): a real engine (real sandbox slots, real cgroups) over a temporary
state dir, and the suite-wide TLE rule every engine of the test process is held to."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.problems import is_idle_stop


def check_tle(report, time_limit_ms: int) -> None:
    """docs/spec.md 4.1 on one test's report: a TLE has at least its limit of CPU time, or is a
    program idle at its wall limit that says so (AssertionError otherwise)."""
    if report.verdict == "TLE" and (report.cpu_ms is None or report.cpu_ms < time_limit_ms):
        assert is_idle_stop(report), report


@pytest.fixture(autouse=True, scope="session")
def _every_tle_is_cpu_time():
    """Suite-wide (docs/spec.md 4.1): every TLE an engine of this process reports has at least its
    limit of CPU time, or is a program idle at its wall limit that says so; a load that starves a run
    never becomes a TLE. Both places a test's report is made are held to it: a run's (Engine._report)
    and a batch run's (Engine._judge_batched, whose reports from the batch driver's records never
    pass through _report; tests/sandbox/test_assert_batch.py proves the check fails on a forged one)."""
    from services.judge.core.engine import Engine

    report, batched = Engine._report, Engine._judge_batched

    def checked(self, slot, problem, *args, **kwargs):
        out = report(self, slot, problem, *args, **kwargs)
        check_tle(out[0], problem.spec.time_limit_ms)
        return out

    def checked_batch(self, slot, task, prepared):
        result = batched(self, slot, task, prepared)
        for t in result.tests:
            check_tle(t, task.problem.spec.time_limit_ms)
        return result

    Engine._report, Engine._judge_batched = checked, checked_batch
    yield
    Engine._report, Engine._judge_batched = report, batched


@pytest.fixture(scope="session")
def state_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("state")


@pytest.fixture(scope="session")
def settings(state_dir):
    from services.settings import Settings

    return Settings(state_dir=state_dir, slots=2)


@pytest.fixture(scope="session")
def engine(settings):
    from services.judge.core.engine import Engine

    eng = Engine(settings)
    yield eng
    eng.close()


@pytest.fixture(scope="session")
def store(engine):
    return engine.store
