"""The cost of a time-out (docs/spec.md 4.1): a busy program past its limit is stopped at its time-out
cap, time_limit_ms * (1 + borderline_band) + FRONTIER_TIMEOUT_MARGIN_MS of wall time, also when the
host is loaded; an idle one (sleeping) runs on to the wall limit, as before."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from services.judge.core.verdicts import Verdict
from tests.conftest import make_problem, sub

SPIN = "while True:\n    pass\n"


@pytest.fixture
def loaded_host():
    """Three spinning processes per CPU beside the judge: a program in a slot gets a fraction of one."""
    procs = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(3 * (os.cpu_count() or 1))
    ]
    try:
        yield
    finally:
        for p in procs:
            p.kill()
        for p in procs:
            p.wait()


def test_a_time_out_on_a_loaded_host_costs_its_cap(engine, store, loaded_host):
    tl = 2000
    p = make_problem(store, [("01", "1\n", "1\n")], pid="tspin", time_limit_ms=tl)
    r = engine.judge(p, sub(SPIN, problem_id="tspin"))
    (t,) = r.tests
    assert t.verdict == Verdict.TLE
    cap = tl * 1.1 + 500  # the defaults: borderline_band 0.1, FRONTIER_TIMEOUT_MARGIN_MS 500
    # the old rule let it run to 3x its limit plus a second (7 s) on such a host; a second of slack
    # is for the watchdog's own scheduling on the loaded host
    assert t.wall_ms <= cap + 1000, t
    if t.cpu_ms < tl:
        assert "wall time" in (t.message or "")


def test_an_idle_program_runs_on_to_the_wall_limit(engine, store):
    # sleeping past the time-out cap (1.6 s) uses no CPU: it is not a time-out
    code = "import time\ntime.sleep(2.0)\nprint(input())\n"
    p = make_problem(store, [("01", "7\n", "7\n")], pid="tsleep", time_limit_ms=1000)
    r = engine.judge(p, sub(code, problem_id="tsleep"))
    assert r.tests[0].verdict == Verdict.AC, r.tests
    assert r.tests[0].wall_ms >= 2000


def test_sleeping_then_spinning_is_stopped_once_busy(engine, store):
    code = "import time\ntime.sleep(1.0)\nwhile True:\n    pass\n"
    p = make_problem(store, [("01", "7\n", "7\n")], pid="tmixed", time_limit_ms=1000)
    r = engine.judge(p, sub(code, problem_id="tmixed"))
    (t,) = r.tests
    assert t.verdict == Verdict.TLE
    # the old wall limit is 4 s; it is stopped once its CPU share reaches BUSY_SHARE past the cap
    assert t.wall_ms < 3500, t
