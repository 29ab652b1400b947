"""The engine fixtures of the tiers that run programs (tests/sandbox, tests/stack, tests/e2e: each
tier's conftest.py imports them): a real engine (real sandbox slots, real cgroups) over a temporary
state dir, and the suite-wide TLE rule every engine of the test process is held to."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.problems import is_idle_stop


@pytest.fixture(autouse=True, scope="session")
def _every_tle_is_cpu_time():
    """Suite-wide (docs/spec.md 4.1): every TLE an engine of this process reports has at least its
    limit of CPU time, or is a program idle at its wall limit that says so; a load that starves a run
    never becomes a TLE."""
    from services.judge.core.engine import Engine

    report = Engine._report

    def checked(self, slot, problem, *args, **kwargs):
        out = report(self, slot, problem, *args, **kwargs)
        t = out[0]
        if t.verdict == "TLE" and t.cpu_ms < problem.spec.time_limit_ms:
            assert is_idle_stop(t), t
        return out

    Engine._report = checked
    yield
    Engine._report = report


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
