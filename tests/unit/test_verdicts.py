"""SPEC section 3, table-driven: nested rewards R_k, in-scope counts, outcome classes."""

import pytest

from services.judge.core.verdicts import (
    Outcome,
    TestOutcome,
    Verdict,
    in_scope_counts,
    needed_ks,
    outcome,
    rewards,
    run_verdict,
)
from services.problems.spec import run_order

AC, WA, TLE, MLE, RE, CE, SK = (
    Verdict.AC,
    Verdict.WA,
    Verdict.TLE,
    Verdict.MLE,
    Verdict.RE,
    Verdict.CE,
    Verdict.SKIPPED,
)


def T(*pairs):
    """Tests in run order from (input_bytes, verdict) pairs."""
    return [TestOutcome(f"t{i:02d}", n, v) for i, (n, v) in enumerate(pairs)]


@pytest.mark.parametrize(
    "tests, ks, expected",
    [
        # all pass
        (T((5, AC), (50, AC), (500, AC)), [1, 2, 3], {"R_1": 1, "R_2": 1, "R_3": 1, "R_inf": 1}),
        # failure at 500 bytes: scopes < 10 and < 100 pass, < 1000 does not
        (T((5, AC), (50, AC), (500, TLE)), [1, 2, 3], {"R_1": 1, "R_2": 1, "R_3": 0, "R_inf": 0}),
        # TLE on the smallest test: nothing is rewarded
        (T((5, TLE), (50, SK), (500, SK)), [1, 2, 3], {"R_1": 0, "R_2": 0, "R_3": 0, "R_inf": 0}),
        # empty scope for k=1 borrows the next non-empty scope (< 100), which passes
        (T((50, AC), (60, AC), (500, WA)), [1, 2, 3], {"R_1": 1, "R_2": 1, "R_3": 0, "R_inf": 0}),
        # ...and when that borrowed scope fails, R_1 is 0 too: an untested program is never rewarded
        (T((50, AC), (60, WA), (500, SK)), [1, 2, 3], {"R_1": 0, "R_2": 0, "R_3": 0, "R_inf": 0}),
        # ties in input length: a failure at 50 bytes fails every scope containing 50
        (T((50, AC), (50, WA), (5000, SK)), [1, 2, 4], {"R_1": 0, "R_2": 0, "R_4": 0, "R_inf": 0}),
        # a k beyond every test equals R_inf
        (T((5, AC), (50, WA)), [1, 9], {"R_1": 1, "R_9": 0, "R_inf": 0}),
        # compile error: first test CE, the rest skipped
        (T((5, CE), (50, SK)), [1, 2], {"R_1": 0, "R_2": 0, "R_inf": 0}),
        # boundary: an input of exactly 10 bytes is not < 10^1
        (T((9, AC), (10, WA)), [1, 2], {"R_1": 1, "R_2": 0, "R_inf": 0}),
    ],
)
def test_rewards_follow_the_nested_rule(tests, ks, expected):
    got = rewards(tests, ks)
    assert got == expected
    ordered = [got[f"R_{k}"] for k in sorted(ks)] + [got["R_inf"]]
    assert ordered == sorted(ordered, reverse=True), "R_1 >= R_2 >= ... >= R_inf"


def test_no_tests_means_no_reward():
    assert rewards([], [1, 2]) == {"R_1": 0, "R_2": 0, "R_inf": 0}


@pytest.mark.parametrize(
    "sizes, ks",
    [
        ([1, 9], [1]),
        ([10], [1, 2]),
        ([5, 99, 100], [1, 2, 3]),
        ([1_000_000], [1, 2, 3, 4, 5, 6, 7]),
        ([], [1]),
    ],
)
def test_needed_ks_cover_every_test(sizes, ks):
    assert needed_ks(sizes) == ks


def test_in_scope_counts_show_empty_scopes():
    assert in_scope_counts([50, 60, 500], [1, 2, 3]) == {"R_1": 0, "R_2": 2, "R_3": 3, "R_inf": 3}


def test_run_order_is_by_length_then_name():
    assert run_order([("b", 5), ("a", 5), ("c", 1)]) == [("c", 1), ("a", 5), ("b", 5)]


@pytest.mark.parametrize(
    "tests, expected",
    [
        (T((5, AC), (50, AC)), Outcome.CORRECT),
        (T((5, AC), (50, TLE)), Outcome.OPTIMIZATION_FAILURE),
        (T((5, AC), (50, MLE)), Outcome.OPTIMIZATION_FAILURE),
        # TLE/MLE with nothing smaller passed is a correctness failure
        (T((5, TLE), (50, SK)), Outcome.CORRECTNESS_FAILURE),
        (T((5, MLE), (50, SK)), Outcome.CORRECTNESS_FAILURE),
        # a passed test of the *same* size does not make a later TLE a scaling failure
        (T((50, AC), (50, TLE)), Outcome.CORRECTNESS_FAILURE),
        (T((5, AC), (50, WA)), Outcome.CORRECTNESS_FAILURE),
        (T((5, AC), (50, RE)), Outcome.CORRECTNESS_FAILURE),
        (T((5, AC), (50, Verdict.OLE)), Outcome.CORRECTNESS_FAILURE),
        (T((5, CE), (50, SK)), Outcome.CORRECTNESS_FAILURE),
        # decided by the FIRST failure: a WA after a TLE does not matter (full mode)
        (T((5, AC), (50, TLE), (500, WA)), Outcome.OPTIMIZATION_FAILURE),
        (T((5, AC), (50, WA), (500, TLE)), Outcome.CORRECTNESS_FAILURE),
        ([], Outcome.FORMAT_ERROR),
    ],
)
def test_outcome_classes(tests, expected):
    assert outcome(tests) == expected


BASE = dict(
    exit_code=0,
    signal=None,
    cpu_ms=10,
    time_limit_ms=1000,
    oom_killed=False,
    cpu_killed=False,
    wall_killed=False,
    stdout_bytes=10,
    output_limit_bytes=100,
)


@pytest.mark.parametrize(
    "change, expected",
    [
        ({}, None),
        ({"exit_code": 3}, RE),
        ({"exit_code": None, "signal": 11}, RE),
        ({"exit_code": None, "signal": 9, "oom_killed": True}, MLE),
        ({"exit_code": None, "signal": 9, "cpu_killed": True}, TLE),
        ({"cpu_ms": 1001}, TLE),
        ({"wall_killed": True, "exit_code": None, "signal": 9}, TLE),
        ({"stdout_bytes": 100, "exit_code": 1}, Verdict.OLE),
        ({"exit_code": None, "signal": 25}, Verdict.OLE),
        ({"compile_error": True, "exit_code": 1}, CE),
        # an allocation refused at the limit (MemoryError, bad_alloc) is MLE, not RE
        ({"exit_code": 1, "memory_at_limit": True}, MLE),
        ({"exit_code": 0, "memory_at_limit": True}, None),
        # output at the cap is OLE even when its page cache filled the memory limit
        ({"exit_code": None, "signal": 25, "memory_at_limit": True}, Verdict.OLE),
        # MLE wins over a CPU overrun that the OOM kill caused
        ({"oom_killed": True, "cpu_ms": 5000}, MLE),
    ],
)
def test_run_verdict(change, expected):
    assert run_verdict(**{**BASE, **change}) == expected
