"""The rules of SPEC section 3 as pure functions: verdicts, nested rewards R_k, outcome classes.

Nothing here runs a process; the engine feeds it (input_bytes, verdict) pairs in run order.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum


class Verdict(StrEnum):
    AC = "AC"
    WA = "WA"
    TLE = "TLE"
    MLE = "MLE"
    RE = "RE"
    OLE = "OLE"
    CE = "CE"
    SKIPPED = "SKIPPED"
    CHECKER_ERROR = "CHECKER_ERROR"
    # the host kept the run waiting for a CPU until its wall limit, twice (docs/spec.md 4.1): the
    # judge's failure, never the program's, so its result is a judge error, as CHECKER_ERROR's is
    STARVED = "STARVED"


class Outcome(StrEnum):
    CORRECT = "correct"
    OPTIMIZATION_FAILURE = "optimization_failure"
    CORRECTNESS_FAILURE = "correctness_failure"
    FORMAT_ERROR = "format_error"


EFFICIENCY_VERDICTS = frozenset({Verdict.TLE, Verdict.MLE})


@dataclass(frozen=True)
class TestOutcome:
    __test__ = False  # not a pytest class
    name: str
    input_bytes: int
    verdict: Verdict


def needed_ks(input_sizes: Iterable[int]) -> list[int]:
    """Every k the tests need: 1 .. the smallest k with all inputs shorter than 10^k."""
    largest = max(input_sizes, default=0)
    k = 1
    while 10**k <= largest:
        k += 1
    return list(range(1, k + 1))


def in_scope_counts(input_sizes: Sequence[int], ks: Iterable[int]) -> dict[str, int]:
    """How many tests have input length < 10^k, per k (raw, so an empty scope shows as 0)."""
    counts = {f"R_{k}": sum(1 for n in input_sizes if n < 10**k) for k in ks}
    counts["R_inf"] = len(input_sizes)
    return counts


def rewards(tests: Sequence[TestOutcome], ks: Iterable[int]) -> dict[str, int]:
    """R_k = 1 iff every test with input length < 10^k is AC; R_inf over all tests.

    An empty scope borrows the next non-empty one (the smallest tests that exist), so an untested
    program is never rewarded and R_1 >= R_2 >= ... >= R_inf holds. With no tests at all every
    reward is 0.
    """
    sizes = sorted({t.input_bytes for t in tests})
    # the smallest input length whose test is not AC; None when everything passed
    first_bad = min((t.input_bytes for t in tests if t.verdict != Verdict.AC), default=None)
    out: dict[str, int] = {}
    for k in ks:
        scope_max = _scope_max(sizes, k)
        out[f"R_{k}"] = int(scope_max is not None and (first_bad is None or first_bad > scope_max))
    out["R_inf"] = int(bool(tests) and first_bad is None)
    return out


def _scope_max(sorted_sizes: Sequence[int], k: int) -> int | None:
    """The largest input length in R_k's scope: tests < 10^k, or, where there are none, the tests
    < 10^k' for the next k' whose scope is non-empty."""
    if not sorted_sizes:
        return None
    while 10**k <= sorted_sizes[0]:
        k += 1
    bound = 10**k
    return max(n for n in sorted_sizes if n < bound)


def first_failure(tests: Sequence[TestOutcome]) -> TestOutcome | None:
    """The first non-AC test in run order (SKIPPED tests come only after it)."""
    for t in tests:
        if t.verdict != Verdict.AC:
            return t
    return None


def outcome(tests: Sequence[TestOutcome]) -> Outcome:
    """The paper's four classes, decided by the first failing test in run order.

    `optimization_failure` needs a passed test with a strictly smaller input than the first failure:
    being slow on an input no larger than one already passed is not a scaling failure.
    """
    if not tests:
        return Outcome.FORMAT_ERROR
    fail = first_failure(tests)
    if fail is None:
        return Outcome.CORRECT
    if fail.verdict in EFFICIENCY_VERDICTS and any(
        t.verdict == Verdict.AC and t.input_bytes < fail.input_bytes for t in tests
    ):
        return Outcome.OPTIMIZATION_FAILURE
    return Outcome.CORRECTNESS_FAILURE


def format_error_rewards(ks: Iterable[int]) -> dict[str, int]:
    out = {f"R_{k}": 0 for k in ks}
    out["R_inf"] = 0
    return out


def run_verdict(
    *,
    exit_code: int | None,
    signal: int | None,
    cpu_ms: float,
    time_limit_ms: int,
    oom_killed: bool,
    cpu_killed: bool,
    wall_killed: bool,
    stdout_bytes: int,
    output_limit_bytes: int,
    compile_error: bool = False,
    memory_at_limit: bool = False,
    starved: bool = False,
) -> Verdict | None:
    """The verdict of one finished run, or None when it exited cleanly and its output needs checking.

    Order matters: the cgroup's OOM kill is MLE whatever signal it took; CPU time over the limit is
    TLE even if the program then crashed; a run the host starved at its wall limit is STARVED, no
    verdict of the program; one idle at its wall limit is TLE; output at the cap is OLE (SIGXFSZ or a
    failed write) even though the written output's page cache counts toward the cgroup's memory; a
    failed run whose peak memory reached the limit is MLE (an allocation refused at the limit:
    MemoryError, bad_alloc).
    """
    if compile_error:
        return Verdict.CE
    failed = signal is not None or exit_code != 0
    if oom_killed:
        return Verdict.MLE
    if cpu_killed or cpu_ms > time_limit_ms:
        return Verdict.TLE
    if starved:
        return Verdict.STARVED
    if wall_killed:
        return Verdict.TLE
    if stdout_bytes >= output_limit_bytes or signal == 25:  # SIGXFSZ
        return Verdict.OLE
    if memory_at_limit and failed:
        return Verdict.MLE
    if failed:
        return Verdict.RE
    return None
