"""Verdicts that do not move with the host's load (docs/spec.md 4.1): TLE is CPU time over the limit;
the wall limit stops a program idle there (TLE, and says so) or one the host kept waiting for a CPU
(starved: run again, then STARVED and a judge error, never TLE). The neighbours' busy loops run in
sessions of their own, as other containers' work does."""

from __future__ import annotations

import httpx
import pytest

from services.judge.core.sandbox.cgroups import detect
from services.judge.core.sandbox.slot import HostStarved
from services.judge.core.verdicts import Verdict
from tests.support.problems import assert_cpu_tle, busy_neighbours, make_problem, sub, throttled_engine

SPIN = "while True:\n    pass\n"


def needs_cpu_ms(ms: int) -> str:
    """A correct echo that first burns `ms` of its own CPU time (process_time: the same whatever the
    host's load lets it have per second)."""
    return f"import time\nwhile time.process_time() < {ms / 1000}:\n    pass\nprint(input())\n"


@pytest.fixture
def neighbours():
    with busy_neighbours(per_cpu=2) as loops:
        yield loops


def test_a_correct_program_needing_60_percent_of_its_limit_is_correct_beside_busy_neighbours(
    engine, store, neighbours
):
    p = make_problem(
        store, [(f"{i:02d}", f"{i}\n", f"{i}\n") for i in range(3)], pid="t60", time_limit_ms=1000
    )
    for attempt in range(3):
        r = engine.judge(p, sub(needs_cpu_ms(600), problem_id="t60", sid=f"s{attempt}"), mode="full")
        assert r.status == "ok" and r.outcome == "correct", r
        assert all(t.verdict == Verdict.AC and t.cpu_ms >= 600 for t in r.tests), r.tests


def test_an_endless_loop_beside_busy_neighbours_is_tle_with_its_limit_of_cpu(engine, store, neighbours):
    p = make_problem(store, [("01", "1\n", "1\n")], pid="tspin", time_limit_ms=500)
    r = engine.judge(p, sub(SPIN, problem_id="tspin"))
    assert_cpu_tle(r.tests[0], 500)
    assert r.outcome == "correctness_failure"  # its only test: nothing smaller passed


def test_an_idle_program_runs_on_to_the_wall_limit(engine, store):
    # sleeping uses no CPU: a second past its 1 s limit of CPU time is no time-out
    code = "import time\ntime.sleep(2.0)\nprint(input())\n"
    p = make_problem(store, [("01", "7\n", "7\n")], pid="tsleep", time_limit_ms=1000)
    r = engine.judge(p, sub(code, problem_id="tsleep"))
    assert r.tests[0].verdict == Verdict.AC, r.tests
    assert r.tests[0].wall_ms >= 2000


def test_an_idle_program_at_its_wall_limit_is_tle_and_says_so(engine, store, neighbours):
    p = make_problem(store, [("01", "7\n", "7\n")], pid="tidle", time_limit_ms=200)
    r = engine.judge(p, sub("import time\ntime.sleep(60)\n", problem_id="tidle"))
    (t,) = r.tests
    assert r.status == "ok" and t.verdict == Verdict.TLE, r
    assert t.cpu_ms < 200 and t.wall_ms >= 200 * 3 + 1000  # the wall limit: 3x plus 1 s
    assert "idle at its wall limit" in t.message and t.starved_runs == 0


def test_sleeping_then_spinning_is_tle_by_cpu(engine, store):
    code = "import time\ntime.sleep(1.0)\nwhile True:\n    pass\n"
    p = make_problem(store, [("01", "7\n", "7\n")], pid="tmixed", time_limit_ms=1000)
    r = engine.judge(p, sub(code, problem_id="tmixed"))
    assert_cpu_tle(r.tests[0], 1000)


@pytest.fixture
def throttled(tmp_path):
    """An engine of one slot whose cgroup gets a tenth of a CPU (cpu.max / cfs_quota): what a host
    that gives the judge almost nothing looks like to a run."""
    with throttled_engine(tmp_path, 0.1) as eng:
        yield eng


def test_a_run_the_host_starves_is_run_again_then_a_judge_error_never_tle(throttled):
    p = make_problem(throttled.store, [("01", "1\n", "1\n")], pid="tthr", time_limit_ms=300)
    for code in (SPIN, needs_cpu_ms(200)):  # an endless loop and a correct program alike
        r = throttled.judge(p, sub(code, problem_id="tthr"))
        assert r.status == "judge_error" and r.rewards is None and r.outcome is None, r
        (t,) = r.tests
        assert t.verdict == Verdict.STARVED and t.starved_runs == 2, t
        assert "starved" in r.message and "oversubscribed" in r.message
        assert t.cpu_share is not None and t.cpu_share < 0.5


def test_an_idle_program_in_a_throttled_slot_is_still_tle(throttled):
    # a tenth of a CPU is plenty for a sleeper: it waits for nothing, so it is idle, not starved
    p = make_problem(throttled.store, [("01", "1\n", "1\n")], pid="tths", time_limit_ms=200)
    r = throttled.judge(p, sub("import time\ntime.sleep(60)\n", problem_id="tths"))
    assert r.status == "ok" and r.tests[0].verdict == Verdict.TLE, r
    assert r.tests[0].starved_runs == 0


def test_a_starved_program_run_is_host_starved_not_a_verdict(throttled):
    with pytest.raises(HostStarved, match="starved it 2 time"):
        throttled.run(
            "python",
            SPIN,
            time_limit_ms=300,
            wall_limit_ms=900,
            memory_limit_mb=128,
            output_limit_bytes=1 << 16,
        )


@pytest.fixture(scope="module")
def starving_stack(tmp_path_factory):
    from tests.support.stack import judge_stack

    with judge_stack(tmp_path_factory, "starve", slots=1) as s:
        yield s


def _throttle_worker_slots(pid: int, cpus: float) -> int:
    """Give every slot cgroup of judge worker `pid` a CPU quota of `cpus` (its slots are named after
    it): how many were throttled."""
    host = detect()
    base = host.bases["unified"] if host.version == 2 else host.bases["cpu"]
    n = 0
    for d in base.glob(f"slot-{pid}-*"):
        quota = d / "cpu.max" if host.version == 2 else d / "cpu.cfs_quota_us"
        quota.write_text(
            f"{round(cpus * 100_000)} 100000" if host.version == 2 else str(round(cpus * 100_000))
        )
        n += 1
    return n


def test_a_starved_test_is_a_judge_error_and_healthz_and_metrics_say_the_host_is_oversubscribed(
    starving_stack,
):
    s = starving_stack
    with httpx.Client(base_url=s.url, timeout=120) as http:
        problem = {
            "time_limit_ms": 300,
            "memory_limit_mb": 64,
            "tests": [{"name": "01", "input": "1\n", "output": "1\n"}],
        }
        assert http.put("/problems/starve", json=problem).status_code in (200, 201)
        warm = http.post(
            "/judge", json={"submissions": [{"id": "w", "problem_id": "starve", "code": "print(1)"}]}
        )
        assert warm.json()["results"][0]["outcome"] == "correct"  # its slot now exists
        assert http.get("/healthz").json()["host"] == "ok"
        assert _throttle_worker_slots(s.workers[0].pid, 0.1) == 1
        r = http.post("/judge", json={"submissions": [{"id": "spin", "problem_id": "starve", "code": SPIN}]})
        (result,) = r.json()["results"]
        assert result["status"] == "judge_error" and result["rewards"] is None, result
        assert result["tests"][-1]["verdict"] == "STARVED" and result["tests"][-1]["starved_runs"] == 2
        health = http.get("/healthz").json()
        assert health["host"] == "oversubscribed" and "starved" in health["host_note"], health
        text = http.get("/metrics").text
        assert "frontier_judge_oversubscribed 1.0" in text
        assert "frontier_judge_starved_runs_total 2.0" in text
        assert 'frontier_judge_verdicts_total{verdict="STARVED"} 1.0' in text


@pytest.mark.parametrize(
    "cpu_ms, waited_ms, wall_ms, is_starved",
    [
        (1000, 2000, 3000, True),  # a third of a core beside other work
        (300, 2700, 3000, True),  # a tenth: a throttled slot
        (2950, 30, 3000, False),  # it had the CPU: a wall limit as long as its CPU limit (SandboxFusion's)
        (20, 400, 3000, False),  # mostly asleep: late wake-ups do not make it starved
        (900, 400, 3000, False),  # idle more than half its wall time
        (750, 750, 3000, True),  # half wanted, a quarter waited: the bounds are inclusive
        (2700, 300, 3000, False),  # 90% of a CPU: what other work keeps beside a weighted slot
        (5000, 1000, 3000, True),  # threads add up past the wall time
    ],
)
def test_a_wall_limit_stop_is_starved_when_it_wanted_the_cpu_and_waited(
    cpu_ms, waited_ms, wall_ms, is_starved
):
    from services.judge.core.sandbox.slot import starved

    assert starved(cpu_ms, waited_ms, wall_ms) is is_starved
