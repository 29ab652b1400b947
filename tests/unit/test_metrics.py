"""The evaluator's metrics against their formulas and against brute-force enumeration."""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import combinations, product

import pytest

from services.evaluator.metrics import (
    compare_ensemble,
    ensemble_pass_at_budget,
    extrapolation_only_solves,
    is_extrapolated,
    is_interpolated,
    jaccard,
    jaccard_matrix,
    matched_budgets,
    outcome_fractions,
    outcome_fractions_by_difficulty,
    solve_counts,
    solved_sets,
    unique_solves,
)
from services.evaluator.records import SampleRecord
from services.passk import mean_pass_at_k, pass_at_k, report_ks


def _enumerated_pass(draws: list[tuple[int, int, int]]) -> Fraction:
    """Exact chance that at least one correct sample is drawn when, for each (n, c, k), k of n samples
    (the first c correct) are drawn without replacement: every combination of draws, counted."""
    hits = total = 0
    for picks in product(*(combinations(range(n), k) for n, _, k in draws)):
        total += 1
        hits += any(i < c for (_, c, _), pick in zip(draws, picks, strict=True) for i in pick)
    return Fraction(hits, total)


# --- pass@k ------------------------------------------------------------------------------------------

SMALL_CASES = [(n, c, k) for n in range(1, 13) for c in range(n + 1) for k in range(1, n + 1)]


def test_pass_at_k_is_one_minus_ratio_of_binomials():
    for n, c, k in SMALL_CASES:
        expected = 1 - math.comb(n - c, k) / math.comb(n, k)
        assert pass_at_k(n, c, k) == pytest.approx(expected, abs=1e-12), (n, c, k)


def test_pass_at_k_is_the_chance_a_random_k_subset_holds_a_correct_sample():
    for n, c, k in SMALL_CASES:
        if n <= 8:
            expected = float(_enumerated_pass([(n, c, k)]))
            assert pass_at_k(n, c, k) == pytest.approx(expected, abs=1e-12), (n, c, k)


@pytest.mark.parametrize(("n", "c", "k"), [(2000, 5, 1000), (2000, 1, 1999), (500, 3, 250), (5000, 2, 10)])
def test_pass_at_k_stays_accurate_where_binomials_overflow_a_float(n, c, k):
    exact = 1 - Fraction(math.comb(n - c, k), math.comb(n, k))
    assert pass_at_k(n, c, k) == pytest.approx(float(exact), rel=1e-12)


@pytest.mark.parametrize(("n", "k"), [(1, 1), (10, 1), (10, 5), (10, 10), (250, 250)])
def test_pass_at_k_with_no_correct_sample_is_zero(n, k):
    assert pass_at_k(n, 0, k) == 0.0


@pytest.mark.parametrize(("n", "k"), [(1, 1), (10, 1), (10, 5), (10, 10), (250, 250)])
def test_pass_at_k_with_every_sample_correct_is_one(n, k):
    assert pass_at_k(n, n, k) == 1.0


@pytest.mark.parametrize(("n", "c"), [(1, 0), (10, 3), (10, 10), (250, 17)])
def test_pass_at_1_is_the_fraction_correct(n, c):
    assert pass_at_k(n, c, 1) == pytest.approx(c / n, abs=1e-15)


@pytest.mark.parametrize(
    ("n", "c", "k", "message"),
    [
        (4, 1, 5, "k=5 of n=4"),  # k > n: no unbiased estimate
        (0, 0, 1, "k=1 of n=0"),
        (4, 1, 0, "1 <= k <= n"),
        (4, 5, 1, "0 <= c <= n"),
        (4, -1, 1, "0 <= c <= n"),
    ],
)
def test_pass_at_k_refuses_impossible_draws(n, c, k, message):
    with pytest.raises(ValueError, match=message):
        pass_at_k(n, c, k)


def test_mean_pass_at_k_averages_over_problems():
    counts = [(4, 0), (4, 1), (4, 4)]
    expected = (0 + (1 - math.comb(3, 2) / math.comb(4, 2)) + 1) / 3
    assert mean_pass_at_k(counts, 2) == pytest.approx(expected)


def test_mean_pass_at_k_refuses_no_problems_and_short_problems():
    with pytest.raises(ValueError, match="no problems"):
        mean_pass_at_k([], 1)
    with pytest.raises(ValueError, match="k=3 of n=2"):
        mean_pass_at_k([(4, 1), (2, 1)], 3)


@pytest.mark.parametrize(
    ("n_samples", "ks"),
    [
        (1, [1]),
        (2, [1, 2]),
        (8, [1, 2, 4, 8]),
        (10, [1, 2, 4, 8, 10]),
        (250, [1, 2, 4, 8, 16, 32, 64, 128, 250]),
    ],
)
def test_report_ks_are_powers_of_two_up_to_n_samples_and_n_samples(n_samples, ks):
    assert report_ks(n_samples) == ks


# --- the matched-budget ensemble ---------------------------------------------------------------------

ENSEMBLE_CASES = [
    ([(3, 1), (4, 0), (2, 1)], 3),
    ([(3, 1), (4, 0), (2, 1)], 6),
    ([(4, 0), (4, 0)], 4),
    ([(4, 4), (4, 0)], 2),
    ([(5, 2), (3, 1)], 6),
    ([(6, 1)], 3),
    ([(2, 1), (2, 0), (3, 1), (2, 0)], 8),
]


@pytest.mark.parametrize(("counts", "budget"), ENSEMBLE_CASES)
def test_ensemble_pass_is_one_minus_product_of_binomial_ratios(counts, budget):
    per = budget // len(counts)
    expected = 1 - math.prod(math.comb(n - c, per) / math.comb(n, per) for n, c in counts)
    assert ensemble_pass_at_budget(counts, budget) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(("counts", "budget"), ENSEMBLE_CASES)
def test_ensemble_pass_is_the_chance_some_draw_of_b_over_m_from_each_holds_a_correct_sample(counts, budget):
    per = budget // len(counts)
    exact = _enumerated_pass([(n, c, per) for n, c in counts])
    assert ensemble_pass_at_budget(counts, budget) == pytest.approx(float(exact), abs=1e-12)


def test_ensemble_of_one_checkpoint_is_its_pass_at_k():
    assert ensemble_pass_at_budget([(10, 3)], 4) == pytest.approx(pass_at_k(10, 3, 4))


@pytest.mark.parametrize(
    ("counts", "budget", "message"),
    [
        ([(4, 1), (4, 1), (4, 1)], 4, "B=4 must be a positive multiple of the M=3"),
        ([(4, 1), (4, 1)], 0, "positive multiple"),
        ([(4, 1), (2, 1)], 6, "B/M=3 from a checkpoint with n=2"),
        ([], 2, "at least one checkpoint"),
    ],
)
def test_ensemble_refuses_budgets_it_cannot_split(counts, budget, message):
    with pytest.raises(ValueError, match=message):
        ensemble_pass_at_budget(counts, budget)


@pytest.mark.parametrize(
    ("n_samples", "m", "budgets"),
    [(10, 5, [5, 10]), (8, 2, [2, 4, 6, 8]), (4, 5, []), (8, 1, list(range(1, 9)))],
)
def test_matched_budgets_are_multiples_of_m_up_to_n_samples(n_samples, m, budgets):
    assert matched_budgets(n_samples, m) == budgets


def test_complementary_checkpoints_beat_the_best_single_at_a_matched_budget():
    counts = {"low": {"p1": (2, 2), "p2": (2, 0)}, "high": {"p1": (2, 0), "p2": (2, 2)}}
    cmp = compare_ensemble(counts, 2)
    assert cmp.ensemble == 1.0  # one sample from each solves both problems
    assert cmp.singles == {"low": 0.5, "high": 0.5}
    assert (cmp.best_checkpoint, cmp.best_single) == ("low", 0.5)  # a tie goes to the first
    assert cmp.gain == 0.5
    assert (cmp.budget, cmp.per_checkpoint, cmp.problems) == (2, 1, 2)


def test_compare_ensemble_averages_per_problem_values_and_picks_the_best_mean():
    counts = {
        "a": {"p1": (4, 1), "p2": (4, 0), "p3": (4, 3)},
        "b": {"p1": (4, 2), "p2": (4, 1), "p3": (4, 0)},
    }
    cmp = compare_ensemble(counts, 4)
    problems = ["p1", "p2", "p3"]
    ensemble = sum(ensemble_pass_at_budget([counts["a"][p], counts["b"][p]], 4) for p in problems) / 3
    singles = {ck: sum(pass_at_k(*counts[ck][p], 4) for p in problems) / 3 for ck in counts}
    assert cmp.ensemble == pytest.approx(ensemble)
    assert cmp.singles == pytest.approx(singles)
    assert cmp.best_checkpoint == max(singles, key=singles.get)


def test_compare_ensemble_refuses_checkpoints_over_different_problems():
    with pytest.raises(ValueError, match="same problems"):
        compare_ensemble({"a": {"p1": (2, 1)}, "b": {"p2": (2, 1)}}, 2)


# --- outcome fractions -------------------------------------------------------------------------------


def _sample(
    outcome: str | None, problem: str = "p1", index: int = 0, difficulty: str | None = None, checkpoint="c"
):
    if outcome is None:
        return SampleRecord(
            checkpoint=checkpoint,
            problem_id=problem,
            sample_index=index,
            difficulty=difficulty,
            status="judge_error",
        )
    return SampleRecord(
        checkpoint=checkpoint, problem_id=problem, sample_index=index, difficulty=difficulty, outcome=outcome
    )


def test_outcome_fractions_leave_judge_errors_out_of_the_denominator():
    records = [
        _sample("correct", index=0),
        _sample("correct", index=1),
        _sample("optimization_failure", index=2),
        _sample("correctness_failure", index=3),
        _sample(None, index=4),
    ]
    fr = outcome_fractions(records)
    assert (fr.judged, fr.judge_errors) == (4, 1)
    assert fr.fractions == {
        "correct": 0.5,
        "optimization_failure": 0.25,
        "correctness_failure": 0.25,
        "format_error": 0.0,
    }


def test_outcome_fractions_of_nothing_judged_are_zero_with_a_zero_denominator():
    fr = outcome_fractions([_sample(None)])
    assert (fr.judged, fr.judge_errors) == (0, 1)
    assert set(fr.fractions.values()) == {0.0}


def test_outcome_fractions_by_difficulty_group_samples_and_name_the_missing_difficulty():
    records = [
        _sample("correct", "h", 0, "hard"),
        _sample("format_error", "h", 1, "hard"),
        _sample("correct", "e", 0, "easy"),
        _sample("correctness_failure", "x", 0, None),
        _sample("optimization_failure", "m", 0, "medium"),
    ]
    by = outcome_fractions_by_difficulty(records)
    assert list(by) == ["easy", "medium", "hard", "unknown"]
    assert by["hard"].fractions["correct"] == 0.5
    assert by["hard"].fractions["format_error"] == 0.5
    assert by["unknown"].fractions["correctness_failure"] == 1.0
    assert by["medium"].judged == 1


def test_solve_counts_count_judged_and_correct_samples_per_checkpoint_and_problem():
    records = [
        _sample("correct", "p1", 0, checkpoint="a"),
        _sample("correctness_failure", "p1", 1, checkpoint="a"),
        _sample(None, "p1", 2, checkpoint="a"),
        _sample(None, "p2", 0, checkpoint="a"),
        _sample("correct", "p1", 0, checkpoint="b"),
    ]
    assert solve_counts(records) == {"a": {"p1": (2, 1), "p2": (0, 0)}, "b": {"p1": (1, 1)}}


# --- per-problem churn -------------------------------------------------------------------------------


SOLVED = {
    "m0.5": frozenset({"e1", "h1"}),
    "0": frozenset({"e1", "e2", "m1"}),
    "1": frozenset({"e1", "e2"}),
    "1.5": frozenset({"e1", "h2", "m1"}),
    "base": frozenset({"h3"}),
}
ALPHAS = {"m0.5": -0.5, "0": 0.0, "1": 1.0, "1.5": 1.5, "base": None}


def test_solved_sets_hold_problems_with_at_least_one_correct_sample():
    counts = {"a": {"p1": (4, 0), "p2": (4, 1), "p3": (0, 0)}, "b": {"p1": (4, 4)}}
    assert solved_sets(counts) == {"a": frozenset({"p2"}), "b": frozenset({"p1"})}


def test_unique_solves_are_problems_no_other_checkpoint_solves():
    assert unique_solves(SOLVED) == {
        "m0.5": frozenset({"h1"}),
        "0": frozenset(),
        "1": frozenset(),
        "1.5": frozenset({"h2"}),
        "base": frozenset({"h3"}),
    }


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ({"p1", "p2"}, {"p2", "p3"}, 1 / 3),
        ({"p1"}, {"p1"}, 1.0),
        ({"p1"}, {"p2"}, 0.0),
        (set(), {"p2"}, 0.0),
        (set(), set(), 1.0),  # nothing solved by either: identical sets
    ],
)
def test_jaccard_is_intersection_over_union(a, b, expected):
    assert jaccard(frozenset(a), frozenset(b)) == pytest.approx(expected)


def test_jaccard_matrix_is_symmetric_with_a_unit_diagonal():
    matrix = jaccard_matrix(SOLVED)
    assert list(matrix) == list(SOLVED)
    for a in SOLVED:
        assert matrix[a][a] == 1.0
        for b in SOLVED:
            assert matrix[a][b] == matrix[b][a] == jaccard(SOLVED[a], SOLVED[b])
    assert matrix["0"]["1"] == pytest.approx(2 / 3)
    assert matrix["m0.5"]["base"] == 0.0


def test_extrapolation_only_solves_ignore_checkpoints_without_an_alpha():
    # m1 is solved by alpha 0 (interpolated), so alpha 1.5 keeps only h2; base's h3 does not count
    assert extrapolation_only_solves(SOLVED, ALPHAS) == {"m0.5": frozenset({"h1"}), "1.5": frozenset({"h2"})}


@pytest.mark.parametrize(
    ("alpha", "extrapolated", "interpolated"),
    [(-0.5, True, False), (0.0, False, True), (0.5, False, True), (1.0, False, True), (1.01, True, False)],
)
def test_alpha_regions(alpha, extrapolated, interpolated):
    assert is_extrapolated(alpha) is extrapolated
    assert is_interpolated(alpha) is interpolated


def test_no_alpha_is_neither_region():
    assert not is_extrapolated(None)
    assert not is_interpolated(None)
