"""Shared fixtures: a real engine (real sandbox slots, real cgroups) over a temporary state dir."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from services.judge.core.engine import Engine
from services.judge.core.models import Submission
from services.problems.spec import ProblemSpec
from services.problems.store import Problem, TestStore, build_problem
from services.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
BUNDLED = ROOT / "problems" / "bundled"


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


def make_problem(
    store: TestStore, tests: list[tuple[str, str | bytes, str | bytes]], pid: str = "p", **spec
) -> Problem:
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


def sub(code: str, language: str = "python", sid: str = "s", problem_id: str = "p") -> Submission:
    return Submission(id=sid, problem_id=problem_id, language=language, code=code)


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


def pytest_report_header(config):
    return f"judge runs as uid {os.geteuid()}"


CLAIM_KEY = "codefrontier:test-claim"


def claim_redis_db(dbs, host: str = "127.0.0.1", port: int = 6379):
    """Yield the URL of an empty database of the machine's Redis among `dbs`, claimed for as long as
    the generator is open (its claim key stays, so no concurrent test session takes it too), then
    flush it. Fails the test when every database is taken."""
    import redis

    for db in dbs:
        conn = redis.Redis(host, port, db=db)
        if conn.set(CLAIM_KEY, os.getpid(), nx=True, ex=3600) and conn.dbsize() == 1:
            yield f"redis://{host}:{port}/{db}"
            conn.flushdb()
            return
        if conn.get(CLAIM_KEY) == str(os.getpid()).encode():
            conn.delete(CLAIM_KEY)
    pytest.fail(f"no free Redis database among {list(dbs)} on {host}:{port}")


def stack_env(redis_url: str, tmp: Path, tag: str, **extra: str) -> dict[str, str]:
    """FRONTIER_* settings for a LocalStack of a test module's own: its Redis database, state dir, free
    ports for all three services (and the URLs that point the services at each other), and queue
    names and key prefix that carry `tag`, so that stacks of different modules never share work."""
    from services.stack import SERVICES, free_port

    ports = {name: free_port() for name in SERVICES}
    tag = f"{tag}{os.getpid()}"
    return {
        "FRONTIER_REDIS_URL": redis_url,
        "FRONTIER_STATE_DIR": str(tmp / "state"),
        "FRONTIER_REDIS_PREFIX": tag,
        "FRONTIER_JUDGE_QUEUE": f"judge-{tag}",
        "FRONTIER_EVAL_QUEUE": f"eval-{tag}",
        "FRONTIER_MERGER_QUEUE": f"merge-{tag}",
        **{f"FRONTIER_{n.upper()}_PORT": str(p) for n, p in ports.items()},
        **{f"FRONTIER_{n.upper()}_URL": f"http://127.0.0.1:{p}" for n, p in ports.items()},
        **extra,
    }
