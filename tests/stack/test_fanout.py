"""Fan-out through the worker (docs/spec.md 4.10): a batch's big submission spreads its tests over
the worker's idle slot and is answered exactly as a worker without fan-out answers it; concurrent
submissions keep their slots (nothing borrowed from a job in hand); /metrics counts the borrowed
slots and the discarded slot time."""

from __future__ import annotations

import httpx
import pytest

from tests.support.problems import problem_json
from tests.support.stack import judge_stack, metric

TESTS = [(f"t{i:02}", f"{i} {i + 1}\n", f"{2 * i + 1}\n") for i in range(8)]
WA_AT_5 = "a, b = map(int, input().split())\nprint(a + b + (a == 5))\n"
SUM = "a, b = map(int, input().split())\nprint(a + b)\n"


@pytest.fixture(scope="module")
def stacks(tmp_path_factory):
    with (
        judge_stack(tmp_path_factory, "fanon", slots=2) as on,
        judge_stack(tmp_path_factory, "fanoff", slots=2, fanout="false") as off,
    ):
        https = [httpx.Client(base_url=s.url, timeout=120) for s in (on, off)]
        for http in https:
            assert http.put("/problems/fan", json=problem_json(TESTS)).status_code in (200, 201)
            assert http.put("/problems/pair", json=problem_json(TESTS[:2])).status_code in (200, 201)
        yield https
        for http in https:
            http.close()


def judged(result: dict) -> dict:
    """A result without what the runs measure."""
    measured = {"cpu_ms", "wall_ms", "memory_kb", "cpu_share"}
    return {**result, "tests": [{k: v for k, v in t.items() if k not in measured} for t in result["tests"]]}


def judge(http: httpx.Client, subs: list[dict], mode: str) -> list[dict]:
    r = http.post("/judge", json={"submissions": subs, "mode": mode})
    assert r.status_code == 200, r.text
    return r.json()["results"]


@pytest.mark.parametrize("mode", ["full", "first_failure"])
@pytest.mark.parametrize("code", [SUM, WA_AT_5], ids=["ac", "wa_at_5"])
def test_a_big_submission_fans_out_and_is_answered_as_without(stacks, mode, code):
    on, off = stacks
    borrowed = [metric(h, "frontier_judge_fanout_borrowed_total") for h in stacks]
    subs = [{"id": "big", "problem_id": "fan", "code": code}]
    ours, theirs = judge(on, subs, mode), judge(off, subs, mode)
    assert ours[0]["status"] == "ok", ours
    assert [judged(r) for r in ours] == [judged(r) for r in theirs]
    assert [t["name"] for t in ours[0]["tests"]] == [n for n, _, _ in TESTS]
    verdicts = [t["verdict"] for t in ours[0]["tests"]]
    if code == SUM:
        assert verdicts == ["AC"] * 8
    else:
        assert verdicts == ["AC"] * 5 + ["WA"] + (["AC"] * 2 if mode == "full" else ["SKIPPED"] * 2)
    # the worker's idle slot ran some of its tests; the worker without fan-out borrowed none
    assert metric(on, "frontier_judge_fanout_borrowed_total") >= borrowed[0] + 1
    assert metric(off, "frontier_judge_fanout_borrowed_total") == borrowed[1] == 0


def test_two_concurrent_submissions_keep_their_slots(stacks):
    # 2 slots, a batch of 2 submissions of 2 tests each (2 jobs, one per worker loop): each takes a
    # slot, neither borrows the other's (a loop that took a job counts as a unit to come); 5 rounds
    on, _ = stacks
    borrowed = metric(on, "frontier_judge_fanout_borrowed_total")
    for round_ in range(5):
        subs = [{"id": f"s{i}", "problem_id": "pair", "code": SUM + f"# {round_} {i}\n"} for i in range(2)]
        results = judge(on, subs, "full")
        assert [[t["verdict"] for t in r["tests"]] for r in results] == [["AC", "AC"]] * 2
    assert metric(on, "frontier_judge_fanout_borrowed_total") == borrowed


def test_discarded_slot_time_is_a_metric(stacks):
    on, _ = stacks
    # the second test fails, the others sleep: what the borrowed slot started past it is discarded
    code = "import time\na, b = map(int, input().split())\nif a > 1:\n    time.sleep(2)\nprint(a + b + (a == 1))\n"
    borrowed = metric(on, "frontier_judge_fanout_borrowed_total")
    results = judge(on, [{"id": "early", "problem_id": "fan", "code": code}], "first_failure")
    assert [t["verdict"] for t in results[0]["tests"]] == ["AC", "WA"] + ["SKIPPED"] * 6
    # the idle slot was borrowed once the first test passed
    assert metric(on, "frontier_judge_fanout_borrowed_total") == borrowed + 1
    text = on.get("/metrics").text
    assert "frontier_judge_fanout_discarded_slot_seconds_total" in text
    assert metric(on, "frontier_judge_fanout_slot_seconds_total") > 0
