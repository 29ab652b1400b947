"""Request deadlines and cancellation (docs/spec.md 6.7, issue 23): a real Redis, a real judge API and a
real one-slot worker, driven the way verl's SandboxFusion reward drives /run_code (reproduced with
httpx: verl itself needs torch and Ray; its rule is `requests.post(timeout=compile_timeout +
run_timeout + API_TIMEOUT)`, retrying only a 504). Each test is one rule, named after it; what is
asserted is counted (results, /metrics counters), never a measured speed."""

from __future__ import annotations

import os
import threading
import time

import httpx
import pytest

from services.judge.core.engine import Stopped
from services.judge.queue import deadlines, runs
from services.settings import Settings
from tests.support.problems import make_problem, sub
from tests.support.redis import MAIN_REDIS
from tests.support.stack import eventually, judge_stack, metric

SPIN = "while True:\n    pass\n"
ECHO = "print(input())\n"
MARGIN_S = 2.0
SLACK_S = 4.0  # the SandboxFusion client's own margin, as FRONTIER_SANDBOXFUSION_CLIENT_SLACK_S


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    """One API and one worker with one slot: a run that holds the slot holds everything behind it."""
    with judge_stack(
        tmp_path_factory,
        "deadlines",
        deadline_margin_s=MARGIN_S,
        sandboxfusion_client_slack_s=SLACK_S,
        deadline_start_rule="limits",
    ) as s:
        yield s


@pytest.fixture(scope="module")
def http(stack):
    with httpx.Client(base_url=stack.url, timeout=120) as client:
        yield client


def side_judge(stack, folder: str, name: str, **settings):
    """A second judge on the main one's Redis (its own prefix and queue), this file's margin and
    slack, one worker of one slot, with `settings` beside them."""
    side = judge_stack(
        stack.tmp / folder,
        redis_url=stack.env["FRONTIER_REDIS_URL"],
        judge_queue=f"deadlines-{name}-{os.getpid()}",
        redis_prefix=f"dl{name}{os.getpid()}",
        deadline_margin_s=MARGIN_S,
        sandboxfusion_client_slack_s=SLACK_S,
        **settings,
    )
    return side


@pytest.fixture(scope="module")
def http_off(stack):
    """A second judge on the same Redis (its own prefix and queue) with the start rule off
    (FRONTIER_DEADLINE_START_RULE=off), carry to the retry off (FRONTIER_DEADLINE_CARRY_S=0) and
    FRONTIER_JUDGE_WAIT_S=5: where work its deadline cannot wait for is started anyway, and stopped
    while it runs (a /run_code run included: with carry on it would run on to its limits)."""
    off = side_judge(stack, "rule-off", "off", deadline_start_rule="off", deadline_carry_s=0, judge_wait_s=5)
    try:
        with httpx.Client(base_url=off.url, timeout=120) as client:
            yield client
    finally:
        off.close()


def hold_slot(stack, seconds: int) -> threading.Thread:
    """Keep the one slot busy: a Judge0 submission without a deadline (not waited on: it is kept by
    no caller, so neither a deadline nor the start rule touches it) that spins for up to `seconds` of
    CPU (Judge0's most: 15 s), once a worker has taken it."""
    body = {
        "source_code": SPIN,
        "language_id": 71,
        "cpu_time_limit": min(seconds, 15),
        "wall_time_limit": min(seconds + 2, 20),
    }
    with httpx.Client(base_url=stack.url, timeout=30) as c:
        r = c.post("/judge0/submissions", json=body)
        assert r.status_code == 201, r.text
        token = r.json()["token"]

        def running() -> bool:
            return c.get(f"/judge0/submissions/{token}").json()["status"]["id"] >= 2

        eventually(running, 60)

    def wait_done():
        with httpx.Client(base_url=stack.url, timeout=30) as c:
            eventually(lambda: c.get(f"/judge0/submissions/{token}").json()["status"]["id"] > 2, 120)

    t = threading.Thread(target=wait_done, daemon=True)
    t.start()
    return t


def assert_refused_by_the_start_rule(http: httpx.Client, r: httpx.Response) -> None:
    """A Judge0 submission accepted (201), then answered status 13 naming the start rule."""
    assert r.status_code == 201, r.text
    token = r.json()["token"]
    done = eventually(
        lambda: (b := http.get(f"/judge0/submissions/{token}").json())["status"]["id"] > 2 and b
    )
    assert done["status"]["id"] == 13 and "start rule" in (done["message"] or ""), done


def verl_call(url: str, code: str, stdin: str, compile_timeout: float, run_timeout: float) -> list:
    """verl's call_sandbox_api, reproduced: timeout compile + run + API_TIMEOUT (here SLACK_S), up to
    3 attempts, retrying a 504 only (after 1 s, then 2 s). Returns each attempt's status code, or
    'timeout' for a read timeout (which verl does not retry: the test case scores as an API error)."""
    attempts = []
    for attempt in range(3):
        try:
            r = httpx.post(
                url + "/run_code",
                json={
                    "compile_timeout": compile_timeout,
                    "run_timeout": run_timeout,
                    "code": code,
                    "stdin": stdin,
                    "language": "python",
                    "files": {},
                    "fetch_files": [],
                },
                timeout=compile_timeout + run_timeout + SLACK_S,
            )
        except httpx.TimeoutException:
            attempts.append("timeout")
            break
        attempts.append(r.status_code)
        if r.status_code != 504:
            break
        time.sleep(attempt + 1)
    return attempts


# -- the pure rules ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "headers, expected",
    [
        ({}, None),
        ({"x-deadline": "1000.5"}, 1000.5),
        ({"x-timeout-ms": "2500"}, 102.5),
        ({"x-deadline": "101", "x-timeout-ms": "5000"}, 101.0),  # the earlier counts
        ({"x-deadline": "200", "x-timeout-ms": "500"}, 100.5),
    ],
)
def test_a_deadline_comes_from_the_headers_the_earlier_of_two(headers, expected):
    assert deadlines.parse_headers(headers, now_s=100.0) == expected


@pytest.mark.parametrize(
    "headers",
    [{"x-deadline": "soon"}, {"x-timeout-ms": "-5"}, {"x-timeout-ms": "nan"}, {"x-deadline": "1e12"}],
)
def test_a_malformed_deadline_header_is_refused(headers):
    with pytest.raises(deadlines.BadDeadline):
        deadlines.parse_headers(headers, now_s=100.0)


def test_the_sandboxfusion_rule_is_compile_plus_run_plus_the_clients_slack():
    assert deadlines.sandboxfusion_deadline(50.0, 10, 10, 10) == 80.0


def test_the_start_rule_costs_a_unit_by_its_limits_not_by_the_hosts_speed():
    settings = Settings(borderline_band=0.1, timeout_margin_ms=500, compile_time_limit_ms=20000)
    # 4 tests at a 2 s limit: each one's busy cost is 2 x 1.1 + 0.5 s
    assert deadlines.limits_cost_s(settings, 4, 2000, None) == pytest.approx(4 * 2.7)
    assert deadlines.limits_cost_s(settings, 4, 2000, 20000) == pytest.approx(20 + 4 * 2.7)
    assert deadlines.compiled("cpp") and not deadlines.compiled("python")


@pytest.mark.parametrize(
    "rule, answer_by, cost, refused",
    [
        ("limits", 110.0, 9.9, False),  # fits
        ("limits", 110.0, 10.1, True),  # its limits could not finish by its answer: not started
        ("limits", None, 1e9, False),  # no deadline: nothing to miss
        ("off", 110.0, 1e9, False),
    ],
)
def test_the_start_rule_refuses_only_what_its_deadline_would_stop(rule, answer_by, cost, refused):
    settings = Settings(deadline_start_rule=rule)
    assert deadlines.no_time(settings, answer_by, cost, now_s=100.0) is refused


# -- the estimate (FRONTIER_DEADLINE_START_RULE=estimate): measured costs injected, never measured here ---
def test_an_estimate_is_a_quantile_of_measured_costs_capped_by_the_limits():
    est = deadlines.CostEstimates(window=8, keys=4)
    assert est.expected("k", 30.0, 4, 0.75) is None  # nothing measured: the caller takes its limits
    for cost in (0.1, 0.2, 0.3):
        est.record("k", cost)
    assert est.expected("k", 30.0, 4, 0.75) is None  # 3 of the 4 it needs
    est.record("k", 9.0)
    assert est.expected("k", 30.0, 4, 0.75) == 0.3  # the 3rd of 4 sorted costs
    assert est.expected("k", 30.0, 4, 1.0) == 9.0
    assert est.expected("k", 5.0, 4, 1.0) == 5.0  # never above its limits
    assert est.expected("k", 30.0, 1, 0.0) == 0.1


def test_an_estimate_keeps_bounded_memory():
    est = deadlines.CostEstimates(window=8, keys=4)
    for i in range(100):
        est.record("k", 50.0 if i < 92 else 0.5)  # only the last 8 are kept
    assert est.expected("k", 60.0, 1, 1.0) == 0.5
    for i in range(10):
        est.record(("other", i), 1.0)
    assert len(est) == 4  # the least recently used keys were dropped
    assert est.expected("k", 60.0, 1, 1.0) is None and est.expected(("other", 9), 60.0, 1, 1.0) == 1.0


def _rule(rule: str) -> Settings:
    return Settings(deadline_start_rule=rule)


def test_the_estimate_is_the_programs_own_cost_then_its_kinds_then_its_limits():
    est = deadlines.CostEstimates()
    cost = lambda program=None: deadlines.start_cost(_rule("estimate"), "kind", 31.0, program, est)[0]  # noqa: E731
    assert cost("p1") == 31.0  # nothing measured: its limits
    for _ in range(deadlines.KIND_MIN_SAMPLES):
        est.record("kind", 0.13)
    assert cost("p1") == 0.13  # its kind's quantile
    est.record("p1", 2.4)  # this very program ran (its first test) to its busy cost
    assert cost("p1") == 2.4 and cost("p2") == 0.13
    # `limits`, and `off` (which never refuses), cost work by its limits alone
    assert deadlines.start_cost(_rule("limits"), "kind", 31.0, "p1", est) == (31.0, "limits")


def test_the_estimate_says_which_tier_decided_its_cost():
    """frontier_judge_start_cost_source_total's label: the program's own cost, its kind's quantile, or
    its limits (docs/spec.md 6.7)."""
    est = deadlines.CostEstimates()
    settings = _rule("estimate")
    assert deadlines.start_cost(settings, "kind", 31.0, "p1", est) == (31.0, "limits")
    for _ in range(deadlines.KIND_MIN_SAMPLES):
        est.record("kind", 0.13)
    assert deadlines.start_cost(settings, "kind", 31.0, "p1", est) == (0.13, "kind")
    assert deadlines.start_cost(settings, "kind", 31.0, None, est) == (0.13, "kind")
    est.record("p1", 40.0)  # measured above its limits: still the program's own, capped
    assert deadlines.start_cost(settings, "kind", 31.0, "p1", est) == (31.0, "program")
    assert deadlines.start_cost(_rule("limits"), "kind", 31.0, "p1", est) == (31.0, "limits")
    # another run of an unmeasured program is held on this worker: its limits, not its kind's quantile
    assert deadlines.start_cost(settings, "kind", 31.0, "p2", est, running=True) == (31.0, "running")
    assert deadlines.start_cost(settings, "kind", 31.0, "p1", est, running=True) == (31.0, "program")


def test_a_program_is_held_while_a_run_of_it_is_in_flight_and_released_after():
    est = deadlines.CostEstimates()
    assert est.begin("p") is False  # the first run of it here
    assert est.begin("p") is True  # a second one, taken while the first is held
    est.end("p")
    assert est.begin("p") is True
    est.end("p")
    est.end("p")
    assert est.begin("p") is False and est.begin("q") is False
    est.end("p")
    est.end("q")
    assert not est._running  # nothing left behind once every run ended


@pytest.mark.parametrize(
    "measured, program, answer_by, refused",
    [
        ([], None, 110.0, True),  # before any measurement: its limits (31 s) cannot finish by 110
        ([], None, 131.5, False),  # ... and can by 131.5
        ([0.13] * 4, None, 100.5, False),  # its kind costs 0.13 s: it can finish by 100.5
        ([0.13] * 4, None, 100.1, True),  # ... but not by 100.1
        ([0.13] * 4, 2.4, 101.0, True),  # this program cost 2.4 s on its last test: not by 101
        ([0.13] * 4, 2.4, 103.0, False),
        ([40.0] * 4, None, 110.0, True),  # measured above its limits: its limits are the cap
    ],
)
def test_the_estimate_rule_refuses_only_what_its_measured_cost_could_not_finish(
    measured, program, answer_by, refused
):
    est = deadlines.CostEstimates()
    for cost in measured:
        est.record("kind", cost)
    if program is not None:
        est.record("p", program)
    settings = _rule("estimate")
    expected = deadlines.start_cost(settings, "kind", 31.0, "p", est)[0]
    assert deadlines.no_time(settings, answer_by, expected, now_s=100.0) is refused


def test_a_program_stopped_at_its_deadline_is_costed_at_its_limits_when_sent_again(monkeypatch):
    est = deadlines.CostEstimates()
    monkeypatch.setattr(deadlines, "ESTIMATES", est)
    request = runs.RunRequest(
        language="python",
        code=SPIN + "# stopped\n",
        time_limit_ms=1000,
        wall_limit_ms=3000,
        memory_limit_mb=256,
    )
    kind, program = deadlines.run_keys(request)
    deadlines.record_run(request, 0.4, stopped_at_limits_s=3.0)  # stopped after 0.4 s: cost unknown
    assert est.expected(program, 3.0, 1, 1.0) == 3.0
    assert est.expected(kind, 3.0, 1, 1.0) == 0.4  # its kind keeps the lower bound it measured
    deadlines.record_run(request.model_copy(update={"code": ECHO}), 0.05)
    assert est.expected(deadlines.run_keys(request.model_copy(update={"code": ECHO}))[1], 3.0, 1, 1.0) == 0.05


def test_a_run_is_measured_as_its_kind_and_as_its_program():
    request = runs.RunRequest(
        language="python", code=ECHO + "# keys\n", time_limit_ms=1000, wall_limit_ms=3000, memory_limit_mb=256
    )
    kind, program = deadlines.run_keys(request)
    other = request.model_copy(update={"code": ECHO + "# other\n"})
    assert deadlines.run_keys(other)[0] == kind and deadlines.run_keys(other)[1] != program
    assert deadlines.run_keys(request.model_copy(update={"time_limit_ms": 2000}))[0] != kind


def test_a_run_waiting_for_memory_stops_waiting_once_its_deadline_passed(tmp_path):
    """execute._admit watches the run's Stopper: a cancelled run leaves the wait at once (None) instead
    of holding its worker loop for FRONTIER_ADMIT_WAIT_S and then answering 503."""
    import redis

    settings = Settings(state_dir=tmp_path, admit_memory_mb=64, admit_wait_s=60)
    request = runs.RunRequest(
        language="python", code=ECHO, time_limit_ms=1000, wall_limit_ms=1000, memory_limit_mb=256
    )
    stopper = deadlines.Stopper(redis.Redis(*MAIN_REDIS), "dl-admit", "r1", time.time() - 1, False)
    from services.judge.worker import runs as execute

    assert execute._admit(settings, "r1", request, stopper) is None
    assert stopper.reason == "deadline"
    with pytest.raises(execute.NoRoom):  # without a stop it still waits its time, then refuses
        execute._admit(Settings(state_dir=tmp_path, admit_memory_mb=64, admit_wait_s=0), "r2", request)


# -- the engine's stop --------------------------------------------------------------------------------
def _stop_after(seconds: float) -> threading.Event:
    event = threading.Event()
    threading.Timer(seconds, event.set).start()
    return event


def test_a_stopped_run_is_killed_and_its_slot_serves_the_next(engine):
    limits = {
        "time_limit_ms": 30000,
        "wall_limit_ms": 30000,
        "memory_limit_mb": 256,
        "output_limit_bytes": 1 << 16,
    }
    with pytest.raises(Stopped):
        engine.run("python", SPIN, stop=_stop_after(0.5), **limits)
    # a bound far above the stop (0.5 s) and far below the program's own limit (30 s)
    run = engine.run("python", ECHO, stdin=b"after\n", **limits)
    assert run.stdout == b"after\n"


def test_a_stopped_submission_stops_between_and_during_its_tests(engine, store):
    problem = make_problem(
        store, [(str(i), "1\n", "1\n") for i in range(4)], pid="dl-stop", time_limit_ms=20000
    )
    t0 = time.monotonic()
    with pytest.raises(Stopped):
        engine.judge(problem, sub(SPIN, problem_id="dl-stop"), "full", stop=_stop_after(0.5))
    assert time.monotonic() - t0 < 15  # four tests of 20 s each would take 80 s
    ok = engine.judge(problem, sub(ECHO, problem_id="dl-stop"), "full")
    assert ok.rewards["R_inf"] == 1


def test_an_already_stopped_unit_never_takes_a_slot(engine, store):
    problem = make_problem(store, [("1", "1\n", "1\n")], pid="dl-never")
    stop = threading.Event()
    stop.set()
    with pytest.raises(Stopped, match="before it started"):
        engine.judge(problem, sub(ECHO, problem_id="dl-never"), stop=stop)


# -- end to end -------------------------------------------------------------------------------------
def test_a_malformed_deadline_header_is_a_422(http):
    r = http.post("/run_code", json={"code": ECHO, "stdin": "x"}, headers={"X-Timeout-Ms": "soon"})
    assert r.status_code == 422 and "X-Timeout-Ms" in r.json()["detail"]


def test_a_deadline_already_too_close_is_a_504_and_nothing_runs(http):
    before = metric(http, "frontier_judge_compat_runs_total", api="sandboxfusion")
    r = http.post("/run_code", json={"code": ECHO, "stdin": "x"}, headers={"X-Timeout-Ms": "500"})
    assert r.status_code == 504 and r.json()["status"] == "SandboxError"
    assert metric(http, "frontier_judge_compat_runs_total", api="sandboxfusion") == before
    assert metric(http, "frontier_judge_deadline_events_total", endpoint="/run_code", event="too_late") >= 1


def test_verl_gets_a_504_before_its_own_timeout_and_the_queued_run_never_starts(stack, http):
    """The issue's failure: a correct sample queued behind slow ones. verl's own timeout would have
    fired (a read timeout, scored as an API error, not retried); the judge answers 504 first, so verl
    retries, and the abandoned request is never run."""

    def abandoned(*how: str) -> float:
        return sum(metric(http, "frontier_judge_abandoned_total", abandoned=a) for a in how)

    def never_started() -> float:
        # taken by the worker past its deadline (before_start), dropped from its queue before any
        # worker took it (dropped), or refused by the start rule (no_time): either way never run
        return abandoned("before_start", "no_time", "dropped")

    never, dropped = never_started(), abandoned("dropped")
    running = metric(http, "frontier_judge_abandoned_total", abandoned="while_running")
    holder = hold_slot(stack, 20)
    attempts = verl_call(stack.url, ECHO, "hello\n", compile_timeout=1, run_timeout=1)
    # every attempt was answered (no read timeout) and each one was a 504: the slot was busy throughout
    assert attempts == [504, 504, 504]
    holder.join(60)
    # once the slot is free, the abandoned runs are answered without running: the first, in the
    # workers' one-job lookahead, by the worker; the second (cancelled while the holder still had
    # seconds to spin) dropped from its queue; the third dropped too, or refused by the start rule
    # when the slot freed just before its answer was due
    eventually(lambda: never_started() >= never + 3)
    assert never_started() == never + 3
    assert abandoned("dropped") >= dropped + 1
    assert metric(http, "frontier_judge_abandoned_total", abandoned="while_running") == running
    ok = verl_call(stack.url, ECHO, "hello\n", compile_timeout=1, run_timeout=1)
    assert ok == [200]


def test_the_start_rule_refuses_at_arrival_a_run_its_deadline_could_not_wait_for(http):
    """30 s of run_timeout cannot finish within a 10 s deadline: a 504 at once, nothing queued."""
    before = metric(http, "frontier_judge_compat_runs_total", api="sandboxfusion")
    too_late = metric(http, "frontier_judge_deadline_events_total", endpoint="/run_code", event="too_late")
    r = http.post(
        "/run_code",
        json={"code": SPIN, "run_timeout": 30, "compile_timeout": 1},
        headers={"X-Timeout-Ms": "10000"},
    )
    assert r.status_code == 504 and "its limits could not finish" in r.json()["message"], r.text
    assert metric(http, "frontier_judge_compat_runs_total", api="sandboxfusion") == before
    assert (
        metric(http, "frontier_judge_deadline_events_total", endpoint="/run_code", event="too_late")
        == too_late + 1
    )


def test_the_start_rule_never_starts_a_run_its_deadline_would_stop(http):
    """Judge0 without `wait` is not checked at arrival: its worker applies the rule. 20 s of wall limit
    cannot finish by an answer due in 18 s (20 s less the 2 s margin), so the run is never started and
    reads as status 13 with the reason; without the rule it would spin until stopped at 18 s."""
    never = metric(http, "frontier_judge_abandoned_total", abandoned="no_time")
    why = metric(http, "frontier_judge_abandoned_why_total", abandoned_why="no_time")
    running = metric(http, "frontier_judge_abandoned_total", abandoned="while_running")
    body = {"source_code": SPIN, "language_id": 71, "cpu_time_limit": 15, "wall_time_limit": 20}
    r = http.post("/judge0/submissions", json=body, headers={"X-Timeout-Ms": "20000"})
    assert_refused_by_the_start_rule(http, r)
    assert metric(http, "frontier_judge_abandoned_total", abandoned="no_time") == never + 1
    assert metric(http, "frontier_judge_abandoned_why_total", abandoned_why="no_time") == why + 1
    assert metric(http, "frontier_judge_abandoned_total", abandoned="while_running") == running


def _slow_problem(http) -> None:
    body = {
        "time_limit_ms": 10000,
        "memory_limit_mb": 256,
        "tests": [{"name": str(i), "input": "1\n", "output": "1\n"} for i in range(4)],
    }
    assert http.put("/problems/dl-rule", json=body).status_code in (200, 201)


def test_the_start_rule_refuses_a_judge_batch_at_arrival_its_limits_could_not_finish(http):
    """4 tests at a 10 s limit (46 s at their caps) within a 40 s deadline, FRONTIER_DEADLINE_START_RULE
    =limits: POST /judge answers 504 `no_time` at arrival, nothing queued (the worker would not start
    the unit, and the batch would be answered 504 anyway). Without the check it would be queued and
    answered 504 once the worker refused it."""
    _slow_problem(http)
    batches = metric(http, "frontier_judge_batches_total", endpoint="judge")
    too_late = metric(http, "frontier_judge_deadline_events_total", endpoint="/judge", event="too_late")
    subs = [
        {"id": "ok", "problem_id": "dl-echo", "code": ECHO + "# arrival\n"},
        {"id": "spin", "problem_id": "dl-rule", "code": SPIN + "# rule\n"},
    ]
    put_problem(http, "dl-echo", 20000)
    r = http.post("/judge", json={"submissions": subs, "timeout_ms": 40000})
    assert r.status_code == 504, r.text
    body = r.json()
    assert body["deadline"] == "no_time" and body["batch_id"] is None, body
    assert "'spin'" in body["detail"] and "limits could not finish" in body["detail"], body
    assert metric(http, "frontier_judge_batches_total", endpoint="judge") == batches
    assert (
        metric(http, "frontier_judge_deadline_events_total", endpoint="/judge", event="too_late")
        == too_late + 1
    )
    # the echo alone fits (one test at a 20 s limit, 22.5 s at its cap, in 38 s): judged as usual
    r = http.post("/judge", json={"submissions": subs[:1], "timeout_ms": 60000})
    assert r.status_code == 200 and r.json()["results"][0]["outcome"] == "correct", r.text


def test_the_start_rule_leaves_a_unit_its_limits_could_not_finish_unstarted(http):
    """POST /submissions is not checked at arrival: its worker applies the rule. The unit is never
    started and reads as not judged, counted by the tier that decided (its limits)."""
    _slow_problem(http)
    never = metric(http, "frontier_judge_abandoned_total", abandoned="no_time")
    by_limits = metric(http, "frontier_judge_start_cost_source_total", source="limits", ended="no_time")
    subs = [{"id": "spin", "problem_id": "dl-rule", "code": SPIN + "# rule async\n"}]
    r = http.post("/submissions", json={"submissions": subs, "timeout_ms": 40000})
    assert r.status_code == 202, r.text
    batch = r.json()["batch_id"]
    done = eventually(lambda: (b := http.get(f"/submissions/{batch}").json())["status"] == "done" and b)
    result = done["results"][0]
    assert result["status"] == "judge_error" and "start rule" in result["message"], result
    assert metric(http, "frontier_judge_abandoned_total", abandoned="no_time") == never + 1
    assert (
        metric(http, "frontier_judge_start_cost_source_total", source="limits", ended="no_time")
        == by_limits + 1
    )


def test_a_run_code_answered_504_after_the_judge_wait_is_stopped(http_off):
    """POST /run_code past FRONTIER_JUDGE_WAIT_S (5 s here) answers 504 and cancels its run: the
    worker stops it for its caller gone, long before its own deadline (30 + 1 + 4 s) would."""
    gone = metric(http_off, "frontier_judge_abandoned_why_total", abandoned_why="caller_gone")
    r = http_off.post("/run_code", json={"code": SPIN + "# wait\n", "run_timeout": 30, "compile_timeout": 1})
    assert r.status_code == 504 and "FRONTIER_JUDGE_WAIT_S" in r.json()["message"], r.text
    eventually(
        lambda: (
            metric(http_off, "frontier_judge_abandoned_why_total", abandoned_why="caller_gone") >= gone + 1
        )
    )
    assert metric(http_off, "frontier_judge_deadline_events_total", endpoint="/run_code", event="wait") >= 1
    assert http_off.post("/run_code", json={"code": ECHO, "stdin": "x\n"}).json()["status"] == "Success"


def test_a_running_program_is_stopped_at_its_deadline_and_answered_504(http_off):
    """With FRONTIER_DEADLINE_CARRY_S=0 (http_off) a /run_code run is stopped at its deadline, as
    before carry to the retry: nothing is carried, and its slot is free at once."""
    http = http_off
    stopped = metric(http, "frontier_judge_abandoned_total", abandoned="while_running")
    t0 = time.monotonic()
    r = http.post(
        "/run_code",
        json={"code": SPIN, "run_timeout": 30, "compile_timeout": 1},
        headers={"X-Timeout-Ms": "4000"},
    )
    assert r.status_code == 504 and r.json()["status"] == "SandboxError"
    assert "deadline" in r.json()["message"] and "stopped" in r.json()["message"], r.text
    eventually(
        lambda: metric(http, "frontier_judge_abandoned_total", abandoned="while_running") >= stopped + 1
    )
    # the slot is free again long before the program's own 30 s limit: a bound, not a speed claim
    assert http.post("/run_code", json={"code": ECHO, "stdin": "x\n"}).json()["status"] == "Success"
    assert time.monotonic() - t0 < 25
    assert metric(http, "frontier_judge_carried_total") == 0


def test_a_caller_that_goes_away_leaves_nothing_running(stack, http):
    """(Carry to the retry is on here, FRONTIER_DEADLINE_CARRY_S at its default: a caller gone before
    its answer is due still has its run stopped, and nothing is carried.)"""
    stopped = metric(http, "frontier_judge_abandoned_total", abandoned="while_running")
    carried = metric(http, "frontier_judge_carried_total")
    gone = metric(http, "frontier_judge_deadline_events_total", endpoint="/run_code", event="caller_gone")
    t0 = time.monotonic()
    with pytest.raises(httpx.ReadTimeout):
        httpx.post(stack.url + "/run_code", json={"code": SPIN, "run_timeout": 30}, timeout=2)
    eventually(
        lambda: (
            metric(http, "frontier_judge_deadline_events_total", endpoint="/run_code", event="caller_gone")
            >= gone + 1
        )
    )
    eventually(
        lambda: metric(http, "frontier_judge_abandoned_total", abandoned="while_running") >= stopped + 1
    )
    assert http.post("/run_code", json={"code": ECHO, "stdin": "x\n"}).json()["status"] == "Success"
    assert time.monotonic() - t0 < 25
    assert metric(http, "frontier_judge_carried_total") == carried


def put_problem(http: httpx.Client, pid: str, time_limit_ms: int) -> str:
    body = {
        "time_limit_ms": time_limit_ms,
        "memory_limit_mb": 256,
        "tests": [{"name": "1", "input": "1\n", "output": "1\n"}],
    }
    assert http.put(f"/problems/{pid}", json=body).status_code in (200, 201)
    return pid


@pytest.fixture(scope="module")
def spin_problem(http):
    return put_problem(http, "dl-echo", 20000)


def test_judge_with_a_deadline_answers_504_and_the_rest_is_not_judged(http_off):
    """(The start rule off: with it, neither unit would start, the previous test's case.)"""
    http, spin_problem = http_off, put_problem(http_off, "dl-echo", 20000)
    subs = [
        {"id": "spin", "problem_id": spin_problem, "code": SPIN},
        {"id": "ok", "problem_id": spin_problem, "code": ECHO},
    ]
    r = http.post("/judge", json={"submissions": subs, "timeout_ms": 4000})
    assert r.status_code == 504, r.text
    batch_id = r.json()["batch_id"]
    done = eventually(lambda: (b := http.get(f"/submissions/{batch_id}").json())["status"] == "done" and b)
    for result in done["results"]:
        # nothing past the deadline is a verdict: no TLE for the stopped one, no AC for the other
        assert result["status"] == "judge_error" and result["message"].startswith("not judged"), result
        assert result["rewards"] is None or result["rewards"] == {}


def test_judge_within_its_deadline_is_answered_as_usual(http, spin_problem):
    subs = [{"id": "ok", "problem_id": spin_problem, "code": ECHO}]
    r = http.post("/judge", json={"submissions": subs}, headers={"X-Timeout-Ms": "60000"})
    assert r.status_code == 200, r.text
    assert r.json()["results"][0]["rewards"]["R_inf"] == 1


def test_abandoned_slot_time_is_counted_apart_from_slot_time(http):
    total = metric(http, "frontier_judge_slot_seconds_total")
    abandoned = metric(http, "frontier_judge_abandoned_slot_seconds_total")
    after_stop = metric(http, "frontier_judge_after_stop_slot_seconds_total")
    assert total > 0 and 0 < abandoned <= total
    # the part after the stop is the sandbox's reaction, a small part of what the stopped work used
    assert 0 <= after_stop < abandoned


def test_judge0_wait_with_a_deadline_answers_504_and_stops_the_run(http_off):
    http = http_off
    stopped = metric(http, "frontier_judge_abandoned_total", abandoned="while_running")
    body = {"source_code": SPIN, "language_id": 71, "cpu_time_limit": 15, "wall_time_limit": 20}
    r = http.post("/judge0/submissions", params={"wait": "true"}, json=body, headers={"X-Timeout-Ms": "4000"})
    assert r.status_code == 504 and "deadline" in r.json()["detail"], r.text
    eventually(
        lambda: metric(http, "frontier_judge_abandoned_total", abandoned="while_running") >= stopped + 1
    )


def test_submissions_with_a_deadline_leave_what_was_not_started_unjudged(stack, http):
    quick = put_problem(http, "dl-quick", 1000)  # 1.6 s at its cap: the start rule would let it start
    never = metric(http, "frontier_judge_abandoned_total", abandoned="before_start")
    holder = hold_slot(stack, 8)
    subs = [{"id": "late", "problem_id": quick, "code": ECHO + "# late\n"}]
    r = http.post("/submissions", json={"submissions": subs}, headers={"X-Timeout-Ms": "3000"})
    assert r.status_code == 202
    batch = r.json()["batch_id"]
    holder.join(60)
    done = eventually(lambda: (b := http.get(f"/submissions/{batch}").json())["status"] == "done" and b)
    assert done["results"][0]["message"].startswith("not judged"), done
    assert metric(http, "frontier_judge_abandoned_total", abandoned="before_start") >= never + 1


def test_a_judge_caller_that_goes_away_leaves_nothing_running(stack, http, spin_problem):
    stopped = metric(http, "frontier_judge_abandoned_total", abandoned="while_running")
    subs = [{"id": "spin", "problem_id": spin_problem, "code": SPIN + "# gone\n"}]
    with pytest.raises(httpx.ReadTimeout):
        httpx.post(stack.url + "/judge", json={"submissions": subs}, timeout=2)
    eventually(
        lambda: (
            metric(http, "frontier_judge_deadline_events_total", endpoint="/judge", event="caller_gone") >= 1
        )
    )
    eventually(
        lambda: metric(http, "frontier_judge_abandoned_total", abandoned="while_running") >= stopped + 1
    )


def test_the_compiled_languages_the_api_knows_are_the_runners_that_compile():
    """deadlines.compiled reads a pure table (the API process loads no runner); it must say what the
    runners do, or the start rule would cost a compile wrongly."""
    from services.judge.core.runners import RUNNERS, CompiledRunner

    assert {lang for lang in RUNNERS if deadlines.compiled(lang)} == {
        lang for lang, r in RUNNERS.items() if isinstance(r, CompiledRunner)
    }


# -- the estimate rule end to end ---------------------------------------------------------------------
@pytest.fixture(scope="module")
def http_estimate(stack):
    """A judge on the same Redis with FRONTIER_DEADLINE_START_RULE=estimate (the default) and two slots
    (runs taken one after the other use one; two at once use both)."""
    est = judge_stack(
        stack.tmp / "rule-estimate",
        redis_url=stack.env["FRONTIER_REDIS_URL"],
        slots=2,
        judge_queue=f"deadlines-est-{os.getpid()}",
        redis_prefix=f"dlest{os.getpid()}",
        deadline_margin_s=MARGIN_S,
        sandboxfusion_client_slack_s=SLACK_S,
    )
    try:
        with httpx.Client(base_url=est.url, timeout=120) as client:
            yield client
    finally:
        est.close()


def _run_code(http, code: str, run_timeout: float, timeout_ms: int | None = None) -> httpx.Response:
    headers = {} if timeout_ms is None else {"X-Timeout-Ms": str(timeout_ms)}
    # compile_timeout 10: verl's rule (compile + run + SLACK_S) leaves a free slot 9.5 s over a run's limits
    body = {"code": code, "stdin": "x\n", "run_timeout": run_timeout, "compile_timeout": 10}
    return http.post("/run_code", json=body, headers=headers)


def test_the_estimate_starts_a_run_its_limits_could_not_finish_once_its_kind_measured_fast(http_estimate):
    """The limits rule refuses 20 s of run_timeout (22.5 s at its cap) within a 10 s deadline at arrival
    (as above); with the estimate, once four runs of that kind were measured (each far below 8 s: an
    echo), it runs."""
    for i in range(deadlines.KIND_MIN_SAMPLES):
        r = _run_code(http_estimate, ECHO + f"# kind {i}\n", 20)
        assert r.status_code == 200 and r.json()["run_result"]["stdout"] == "x\n", r.text
    r = _run_code(http_estimate, ECHO + "# fresh\n", 20, timeout_ms=10000)
    assert r.status_code == 200 and r.json()["run_result"]["stdout"] == "x\n", r.text


def test_the_estimate_refuses_the_next_test_of_a_program_that_ran_to_its_limit(http_estimate):
    """A program's own measured cost comes before its kind's: four echoes make the kind (run_timeout 2)
    fast, a spin runs to its 2 s CPU limit (so it cost at least 2 s, however fast the host), and the
    same spin sent again with 2 s left before its answer is due (4 s less the 2 s margin) is refused at
    once (no_time) where its kind alone would have started it; a fresh echo of that kind still runs."""
    for i in range(deadlines.KIND_MIN_SAMPLES):
        assert _run_code(http_estimate, ECHO + f"# short {i}\n", 2).status_code == 200
    spin = SPIN + "# measured\n"
    # its own deadline far off: this run only measures the program's cost, however long a loaded host
    # keeps it queued (fresh-ci --loaded=4 once answered it without a run_result)
    first = _run_code(http_estimate, spin, 2, timeout_ms=120_000)
    assert first.status_code == 200, first.text
    assert (first.json().get("run_result") or {}).get("status") == "TimeLimitExceeded", first.text
    never = metric(http_estimate, "frontier_judge_abandoned_total", abandoned="no_time")
    by = lambda source, ended: metric(  # noqa: E731
        http_estimate, "frontier_judge_start_cost_source_total", source=source, ended=ended
    )
    by_program, by_kind = by("program", "no_time"), by("kind", "ran")
    again = _run_code(http_estimate, spin, 2, timeout_ms=4000)
    assert again.status_code == 504, again.text
    assert metric(http_estimate, "frontier_judge_abandoned_total", abandoned="no_time") == never + 1
    assert by("program", "no_time") == by_program + 1  # its own cost refused it
    fresh = _run_code(http_estimate, ECHO + "# short fresh\n", 2, timeout_ms=4000)
    assert fresh.status_code == 200 and fresh.json()["run_result"]["stdout"] == "x\n", fresh.text
    assert by("kind", "ran") == by_kind + 1  # its kind's quantile let it start


def test_the_estimate_costs_a_program_at_its_limits_while_another_run_of_it_is_unmeasured(http_estimate):
    """verl sends a sample's tests at once, so two slots can take two tests of one program before
    either is measured: on its kind's quantile both would start, and a program slow to its limit
    would hold both slots until stopped. Four echoes make the kind fast; a sleeper (held on one slot
    up to its 20 s wall limit, no deadline) is taken; the same program sent again with 6 s left
    before its answer is due is not started on the other slot (no_time, tier "running"), where its
    kind alone (an echo's cost) would have started it and its deadline stopped it."""
    http = http_estimate
    limits = {"language_id": 71, "cpu_time_limit": 15, "wall_time_limit": 20}
    for i in range(deadlines.KIND_MIN_SAMPLES):
        body = {**limits, "source_code": ECHO + f"# sibling kind {i}\n", "stdin": "x\n"}
        r = http.post("/judge0/submissions", params={"wait": "true"}, json=body)
        assert r.status_code in (200, 201) and r.json()["stdout"] == "x\n", r.text
    sleeper = {**limits, "source_code": "import time\ntime.sleep(30)\n# sibling\n"}
    r = http.post("/judge0/submissions", json=sleeper)
    assert r.status_code == 201, r.text
    held = r.json()["token"]
    eventually(lambda: http.get(f"/judge0/submissions/{held}").json()["status"]["id"] >= 2)
    never = metric(http, "frontier_judge_abandoned_total", abandoned="no_time")
    by_running = metric(http, "frontier_judge_start_cost_source_total", source="running", ended="no_time")
    r = http.post("/judge0/submissions", json=sleeper, headers={"X-Timeout-Ms": "8000"})
    assert_refused_by_the_start_rule(http, r)
    assert metric(http, "frontier_judge_abandoned_total", abandoned="no_time") == never + 1
    assert (
        metric(http, "frontier_judge_start_cost_source_total", source="running", ended="no_time")
        == by_running + 1
    )


# -- carry to the retry (FRONTIER_DEADLINE_CARRY_S) ----------------------------------------------------
def test_the_carry_digest_is_the_request_as_sent_by_its_client_not_its_deadline():
    from services.judge.queue import carry

    base = runs.RunRequest(
        language="python", code=ECHO, stdin="a\n", time_limit_ms=1000, wall_limit_ms=1000, memory_limit_mb=256
    )
    d = carry.digest("/run_code", base)
    # what does not decide the result: its deadline, whether a caller waits, the compat layer's tag
    same = base.model_copy(update={"answer_by_s": 123.0, "cancellable": True, "tag": {"x": 1}, "carry": True})
    assert carry.digest("/run_code", same) == d
    for other in (
        {"stdin": "b\n"},
        {"client": "trainer-b"},
        {"code": ECHO + "#\n"},
        {"files": {"f": "1"}},
        {"time_limit_ms": 2000},
        {"wall_limit_ms": 2000},
        {"memory_limit_mb": 512},
        {"args": ["x"]},
        {"fetch": ["out.txt"]},
        {"compile_time_limit_ms": 5000},
    ):
        assert carry.digest("/run_code", base.model_copy(update=other)) != d, other
    assert carry.digest("/run_jupyter", base) != d


CARRY_A = "carry-a-0123456789abcdef"
CARRY_B = "carry-b-fedcba9876543210"
SLEEP_S = 8  # a carried program sleeps past its answer (due HEADER_MS / 1000 - MARGIN_S = 6 s after arrival)
HEADER_MS = 8000


@pytest.fixture(scope="module")
def carry_stack(stack):
    """A judge on the same Redis with the estimate rule and carry to the retry at its default (120 s),
    two named tokens (two trainers), one slot."""
    s = side_judge(stack, "carry", "carry", api_tokens=f"trainer-a:{CARRY_A},trainer-b:{CARRY_B}")
    try:
        yield s
    finally:
        s.close()


@pytest.fixture(scope="module")
def http_carry(carry_stack):
    with httpx.Client(
        base_url=carry_stack.url, timeout=120, headers={"Authorization": f"Bearer {CARRY_A}"}
    ) as client:
        yield client


def _sleeper(tag: str) -> str:
    return f"import time\ntime.sleep({SLEEP_S})\nprint(input())\n# {tag}\n"


def verl_body(code: str, stdin: str) -> dict:
    """verl's /run_code body (its sandbox_fusion reward), run_timeout 20 s (a sleeper's limits allow
    it to finish)."""
    return {
        "compile_timeout": 10,
        "run_timeout": 20,
        "code": code,
        "stdin": stdin,
        "language": "python",
        "files": {},
        "fetch_files": [],
    }


def verl_retries(url: str, token: str, body: dict, header_ms: int = HEADER_MS) -> list[httpx.Response]:
    """verl's call_sandbox_api's attempts (up to 3, retrying a 504 after 1 s, then 2 s), with its
    deadline in X-Timeout-Ms (shorter than its rule, so that a sleep outlives it), through the token
    in the URL (verl sends no header)."""
    answers = []
    for attempt in range(3):
        r = httpx.post(
            f"{url}/t/{token}/run_code", json=body, headers={"X-Timeout-Ms": str(header_ms)}, timeout=60
        )
        answers.append(r)
        if r.status_code != 504:
            break
        time.sleep(attempt + 1)
    return answers


def _measure_the_kind(url: str, token: str) -> None:
    """Four echoes of the sleepers' kind (python, their limits): the estimate lets a fresh one start."""
    for i in range(deadlines.KIND_MIN_SAMPLES):
        body = verl_body(ECHO + f"# carry kind {i}\n", "x\n")
        r = httpx.post(f"{url}/t/{token}/run_code", json=body, timeout=60)
        assert r.status_code == 200 and r.json()["run_result"]["stdout"] == "x\n", r.text


def _runs(http) -> float:
    return metric(http, "frontier_judge_compat_runs_total", api="sandboxfusion")


def test_a_run_past_its_deadline_is_carried_and_the_retry_gets_its_outcome(carry_stack, http_carry):
    """verl's retry of a run that outlived its deadline: the 504 comes at the deadline, the run is not
    stopped, and the retry (the same request) is answered with the run's own stdout, with no second
    run queued."""
    http = http_carry
    _measure_the_kind(carry_stack.url, CARRY_A)
    started, carried = _runs(http), metric(http, "frontier_judge_carried_total")
    stopped = metric(http, "frontier_judge_abandoned_total", abandoned="while_running")
    reused = metric(http, "frontier_judge_carried_ended_total", ended="reused")
    answers = verl_retries(carry_stack.url, CARRY_A, verl_body(_sleeper("retried"), "slept\n"))
    first, last = answers[0], answers[-1]
    assert first.status_code == 504 and "goes on to its own limits" in first.json()["message"], first.text
    assert last.status_code == 200, last.text
    assert last.json()["status"] == "Success" and last.json()["run_result"]["stdout"] == "slept\n", last.text
    assert _runs(http) == started + 1  # every attempt after the first waited on the one run
    assert metric(http, "frontier_judge_carried_total") == carried + 1
    assert metric(http, "frontier_judge_abandoned_total", abandoned="while_running") == stopped
    eventually(lambda: metric(http, "frontier_judge_carried_ended_total", ended="reused") == reused + 1)
    assert metric(http, "frontier_judge_carried_slot_seconds_total", ended="reused") >= SLEEP_S
    # every key the carry wrote expires, within the run's limits cost plus the window
    import redis

    conn = redis.Redis.from_url(carry_stack.env["FRONTIER_REDIS_URL"])
    prefix = carry_stack.env["FRONTIER_REDIS_PREFIX"]
    keys = list(conn.scan_iter(f"{prefix}:carry:*")) + list(conn.scan_iter(f"{prefix}:run:*:carry"))
    assert keys
    for key in keys:
        # its limits cost (its 20 s limit at its busy cost, 22.5 s), the 120 s window, rounding
        assert 0 < conn.ttl(key) <= 22.5 + 120 + 2, key


def test_a_carried_run_is_given_to_the_same_request_of_the_same_client_only(carry_stack, http_carry):
    """While a run is carried: the same program on other stdin, and another trainer's identical
    request, each queue a run of their own (the start rule then refuses them: the program measured
    8 s), never the carried outcome; the carried run, finished and unclaimed, is counted so until the
    retry takes it."""
    http, url = http_carry, carry_stack.url
    _measure_the_kind(url, CARRY_A)
    code = _sleeper("one client")
    unclaimed = metric(http, "frontier_judge_carried_ended_total", ended="unclaimed")
    reused = metric(http, "frontier_judge_carried_ended_total", ended="reused")
    started = _runs(http)
    first = httpx.post(
        f"{url}/t/{CARRY_A}/run_code",
        json=verl_body(code, "mine\n"),
        headers={"X-Timeout-Ms": str(HEADER_MS)},
        timeout=60,
    )
    assert first.status_code == 504 and "goes on" in first.json()["message"], first.text
    for token, stdin in ((CARRY_B, "mine\n"), (CARRY_A, "other\n")):
        r = httpx.post(
            f"{url}/t/{token}/run_code",
            json=verl_body(code, stdin),
            headers={"X-Timeout-Ms": str(HEADER_MS)},
            timeout=60,
        )
        assert r.status_code == 504 and "goes on" not in r.json()["message"], r.text
    assert _runs(http) == started + 3
    eventually(lambda: metric(http, "frontier_judge_carried_ended_total", ended="unclaimed") == unclaimed + 1)
    assert metric(http, "frontier_judge_carried_slot_seconds_total", ended="unclaimed") >= SLEEP_S
    retry = httpx.post(
        f"{url}/t/{CARRY_A}/run_code",
        json=verl_body(code, "mine\n"),
        headers={"X-Timeout-Ms": str(HEADER_MS)},
        timeout=60,
    )
    assert retry.status_code == 200 and retry.json()["run_result"]["stdout"] == "mine\n", retry.text
    assert _runs(http) == started + 3  # answered from the carried run at once
    assert metric(http, "frontier_judge_carried_ended_total", ended="unclaimed") == unclaimed
    assert metric(http, "frontier_judge_carried_ended_total", ended="reused") == reused + 1


def test_the_last_attempt_of_a_request_is_counted_by_its_504s(stack):
    """A request's attempt is 1 + the 504s answered to it (the same digest), and verl's third is its
    last (FRONTIER_SANDBOXFUSION_CLIENT_ATTEMPTS=3); with 0 attempts none is the last."""
    import asyncio

    import redis.asyncio as aioredis

    from services.judge.queue import carry

    settings = Settings(redis_prefix=f"tries{os.getpid()}")
    request = runs.RunRequest(
        language="python", code=ECHO, time_limit_ms=1000, wall_limit_ms=1000, memory_limit_mb=64
    )
    key = carry.carry_key(settings, "/run_code", request)
    other = carry.carry_key(settings, "/run_code", request.model_copy(update={"stdin": "other\n"}))

    async def attempts() -> list[bool]:
        aconn = aioredis.Redis.from_url(stack.env["FRONTIER_REDIS_URL"])
        seen = []
        try:
            for _ in range(3):
                seen.append(await carry.is_last_attempt(aconn, settings, key))
                await carry.answered_504(aconn, settings, key)
            seen.append(await carry.is_last_attempt(aconn, settings, other))
            unknown = settings.model_copy(update={"sandboxfusion_client_attempts": 0})
            seen.append(await carry.is_last_attempt(aconn, unknown, key))
            assert 0 < await aconn.ttl(f"{settings.redis_prefix}:tries:{key.digest}") <= key.ttl_s
        finally:
            await aconn.aclose()
        return seen

    assert asyncio.run(attempts()) == [False, False, True, False, False]


def test_the_last_attempt_is_not_carried_its_run_is_stopped_at_its_deadline(carry_stack, http_carry):
    """A run that outlives all three of verl's attempts: carried past the first two 504s, stopped at
    the third's deadline (no retry would take it), not left to run on to its limits unclaimed."""
    http, url = http_carry, carry_stack.url
    _measure_the_kind(url, CARRY_A)
    stopped = metric(http, "frontier_judge_carried_ended_total", ended="stopped")
    unclaimed = metric(http, "frontier_judge_carried_ended_total", ended="unclaimed")
    # each attempt's answer is due 2 s after it arrives (4 s less the margin): the three attempts,
    # with verl's 1 s and 2 s between them, end about 9 s after the first, well before the sleep
    code = "import time\ntime.sleep(18)\nprint(input())\n# outlives every attempt\n"
    answers = verl_retries(url, CARRY_A, verl_body(code, "late\n"), header_ms=4000)
    assert [r.status_code for r in answers] == [504, 504, 504], [r.text for r in answers]
    assert ["goes on" in r.json()["message"] for r in answers] == [True, True, False], answers[-1].text
    assert "stopped" in answers[-1].json()["message"]
    eventually(lambda: metric(http, "frontier_judge_carried_ended_total", ended="stopped") == stopped + 1)
    assert metric(http, "frontier_judge_carried_ended_total", ended="unclaimed") == unclaimed
