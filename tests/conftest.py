"""Shared fixtures: a real engine (real sandbox slots, real cgroups) over a temporary state dir.
Helpers the tests import live in tests/support/."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from services.judge.core.engine import Engine
from services.problems.store import TestStore
from services.settings import Settings
from tests.support.problems import is_idle_stop


@pytest.fixture(autouse=True, scope="session")
def _every_tle_is_cpu_time():
    """Suite-wide (docs/spec.md 4.1): every TLE an engine of this process reports has at least its
    limit of CPU time, or is a program idle at its wall limit that says so; a load that starves a run
    never becomes a TLE."""
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
def settings(state_dir) -> Settings:
    return Settings(state_dir=state_dir, slots=2)


@pytest.fixture(scope="session")
def engine(settings):
    eng = Engine(settings)
    yield eng
    eng.close()


@pytest.fixture(scope="session")
def store(engine) -> TestStore:
    return engine.store


def pytest_report_header(config):
    return f"judge runs as uid {os.geteuid()}"
