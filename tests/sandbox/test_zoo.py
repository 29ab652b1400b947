"""The whole solution zoo judged by the real engine: every recorded expectation must hold.

This is the judge's regression test on real programs: naive solutions must time out (or run out
of memory) only on the large tests, subtly wrong ones must get WA, crashing ones RE, and every
reference and C++ solution must be accepted.
"""

from __future__ import annotations

from services.judge.core.zoo import judge_zoo
from tests.support import BUNDLED
from tests.support.problems import assert_cpu_tle, busy_neighbours, is_idle_stop


def test_every_zoo_variant_gets_its_recorded_outcome(engine):
    rows = judge_zoo(engine, BUNDLED, progress=False)
    assert len(rows) >= 3 * 40  # 40 problems, naive + wrong + crash (+ C++ where it makes sense) each
    mismatches = [
        f"{r.variant.problem_id}/{r.variant.file}: got {r.result.status} {r.result.outcome} "
        f"{r.first_verdict} (first failing test {r.result.first_failure}), expected "
        f"{r.variant.expected_outcome} {r.variant.expected_first_verdict}; {r.result.message or ''}"
        for r in rows
        if not r.as_expected
    ]
    assert not mismatches, "\n".join(mismatches)
    outcomes = {r.result.outcome for r in rows}
    assert outcomes >= {"correct", "optimization_failure", "correctness_failure"}
    assert {r.first_verdict for r in rows} >= {None, "TLE", "WA", "RE", "MLE"}


def test_the_zoo_beside_busy_neighbours_gets_the_outcomes_it_gets_idle(engine):
    """Two busy loops per core, each in a session of its own (docs/spec.md 4.1): every variant still
    gets its recorded outcome, none is starved, and every TLE has its limit of CPU time but a stall's
    (an interactive program that waits for ever: idle at its wall limit, and its message says so)."""
    with busy_neighbours(per_cpu=2):
        rows = judge_zoo(engine, BUNDLED, progress=False)
    moved = [
        f"{r.variant.problem_id}/{r.variant.file}: {r.result.status} {r.result.outcome} {r.first_verdict}; "
        f"{r.result.message or ''}"
        for r in rows
        if not r.as_expected
    ]
    assert not moved, "\n".join(moved)
    for r in rows:
        for t in r.result.tests:
            if t.verdict == "TLE" and not is_idle_stop(t):
                assert_cpu_tle(t, r.time_limit_ms)
