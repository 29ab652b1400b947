"""The evaluator's numbers as pure functions (pass@k itself is services/passk.py): outcome fractions, the matched-budget ensemble,
and per-problem churn between checkpoints.

Per-problem sample counts are `(n, c)`: n samples the judge classified (judge errors excluded), c of
them correct. `Counts` maps checkpoint -> problem_id -> (n, c).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

from services.evaluator.records import SampleRecord
from services.judge.core.verdicts import Outcome
from services.passk import all_miss, mean_pass_at_k

Counts = Mapping[str, Mapping[str, tuple[int, int]]]
OUTCOMES: tuple[str, ...] = tuple(o.value for o in Outcome)
UNKNOWN_DIFFICULTY = "unknown"
DIFFICULTY_ORDER = ("easy", "medium", "hard")


# --- the matched-budget ensemble ---------------------------------------------------------------------


def ensemble_pass_at_budget(counts: Sequence[tuple[int, int]], budget: int) -> float:
    """pass@B of one problem for a pool drawing B/M samples from each of M checkpoints, given each
    checkpoint's (n_m, c_m): 1 - prod_m C(n_m - c_m, B/M) / C(n_m, B/M)."""
    m = len(counts)
    if m == 0:
        raise ValueError("an ensemble needs at least one checkpoint")
    if budget < 1 or budget % m:
        raise ValueError(f"budget B={budget} must be a positive multiple of the M={m} checkpoints")
    per_checkpoint = budget // m
    for n, _ in counts:
        if per_checkpoint > n:
            raise ValueError(f"budget B={budget} draws B/M={per_checkpoint} from a checkpoint with n={n}")
    return 1.0 - math.prod(all_miss(n, c, per_checkpoint) for n, c in counts)


def matched_budgets(n_samples: int, n_checkpoints: int) -> list[int]:
    """Budgets B at which the M-checkpoint pool and a single checkpoint can both be estimated without
    bias from n_samples each: multiples of M up to n_samples."""
    return list(range(n_checkpoints, n_samples + 1, n_checkpoints)) if n_checkpoints else []


@dataclass(frozen=True)
class EnsembleComparison:
    budget: int
    per_checkpoint: int  # B/M samples drawn from each checkpoint
    problems: int
    ensemble: float
    best_checkpoint: str
    best_single: float
    singles: dict[str, float]

    @property
    def gain(self) -> float:
        return self.ensemble - self.best_single


def compare_ensemble(counts: Counts, budget: int) -> EnsembleComparison:
    """The pool of every checkpoint in `counts` at budget B against the checkpoint whose own pass@B,
    averaged over problems, is highest. Every checkpoint must hold the same problems."""
    checkpoints = list(counts)
    if not checkpoints:
        raise ValueError("an ensemble needs at least one checkpoint")
    problems = sorted(counts[checkpoints[0]])
    for ck in checkpoints:
        if sorted(counts[ck]) != problems:
            raise ValueError(f"checkpoint {ck!r} does not hold the same problems as {checkpoints[0]!r}")
    if not problems:
        raise ValueError("an ensemble over no problems")
    ensemble = sum(ensemble_pass_at_budget([counts[ck][p] for ck in checkpoints], budget) for p in problems)
    singles = {ck: mean_pass_at_k((counts[ck][p] for p in problems), budget) for ck in checkpoints}
    best = max(checkpoints, key=lambda ck: singles[ck])
    return EnsembleComparison(
        budget=budget,
        per_checkpoint=budget // len(checkpoints),
        problems=len(problems),
        ensemble=ensemble / len(problems),
        best_checkpoint=best,
        best_single=singles[best],
        singles=singles,
    )


# --- outcome fractions -------------------------------------------------------------------------------


@dataclass(frozen=True)
class OutcomeFractions:
    judged: int  # samples with status ok: the denominator
    judge_errors: int  # samples the judge failed on, outside the denominator
    fractions: dict[str, float]  # every outcome class; all 0.0 when nothing was judged


def outcome_fractions(records: Iterable[SampleRecord]) -> OutcomeFractions:
    """Share of each outcome class among the judged samples; judge errors are counted apart."""
    counts: Counter[str] = Counter()
    judge_errors = 0
    for r in records:
        if r.status == "judge_error":
            judge_errors += 1
        else:
            counts[Outcome(r.outcome).value] += 1
    judged = sum(counts.values())
    fractions = {o: (counts[o] / judged if judged else 0.0) for o in OUTCOMES}
    return OutcomeFractions(judged=judged, judge_errors=judge_errors, fractions=fractions)


def outcome_fractions_by_difficulty(records: Iterable[SampleRecord]) -> dict[str, OutcomeFractions]:
    """outcome_fractions per difficulty (easy, medium, hard, then others by name); a missing
    difficulty is 'unknown'."""
    groups: dict[str, list[SampleRecord]] = defaultdict(list)
    for r in records:
        groups[r.difficulty or UNKNOWN_DIFFICULTY].append(r)
    return {d: outcome_fractions(groups[d]) for d in sort_difficulties(groups)}


def sort_difficulties(names: Iterable[str]) -> list[str]:
    known = {d: i for i, d in enumerate(DIFFICULTY_ORDER)}
    return sorted(set(names), key=lambda d: (known.get(d, len(known)), d))


def solve_counts(records: Iterable[SampleRecord]) -> dict[str, dict[str, tuple[int, int]]]:
    """checkpoint -> problem_id -> (n, c) over judged samples. A problem whose every sample was a judge
    error shows as (0, 0)."""
    out: dict[str, dict[str, tuple[int, int]]] = defaultdict(dict)
    for r in records:
        n, c = out[r.checkpoint].get(r.problem_id, (0, 0))
        if r.status == "ok":
            n, c = n + 1, c + (r.outcome == Outcome.CORRECT)
        out[r.checkpoint][r.problem_id] = (n, c)
    return dict(out)


# --- per-problem churn -------------------------------------------------------------------------------


def is_extrapolated(alpha: float | None) -> bool:
    return alpha is not None and not 0.0 <= alpha <= 1.0


def is_interpolated(alpha: float | None) -> bool:
    return alpha is not None and 0.0 <= alpha <= 1.0


def solved_sets(counts: Counts) -> dict[str, frozenset[str]]:
    """The problems each checkpoint solved with at least one of its samples."""
    return {
        ck: frozenset(p for p, (_, c) in per_problem.items() if c > 0) for ck, per_problem in counts.items()
    }


def unique_solves(solved: Mapping[str, frozenset[str]]) -> dict[str, frozenset[str]]:
    """Problems each checkpoint solves that no other checkpoint does."""
    return {
        ck: problems.difference(*(other for name, other in solved.items() if name != ck))
        for ck, problems in solved.items()
    }


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """|a & b| / |a | b|; two empty sets are identical (1.0)."""
    union = a | b
    return len(a & b) / len(union) if union else 1.0


def jaccard_matrix(solved: Mapping[str, frozenset[str]]) -> dict[str, dict[str, float]]:
    matrix = {a: {a: 1.0} for a in solved}
    for a, b in combinations(solved, 2):
        matrix[a][b] = matrix[b][a] = jaccard(solved[a], solved[b])
    return {a: {b: matrix[a][b] for b in solved} for a in solved}


def extrapolation_only_solves(
    solved: Mapping[str, frozenset[str]], alphas: Mapping[str, float | None]
) -> dict[str, frozenset[str]]:
    """For each extrapolated checkpoint (alpha < 0 or > 1): the problems it solves that no
    interpolated checkpoint (alpha in [0, 1]) solves. Checkpoints without an alpha take no part."""
    interpolated = frozenset().union(*(s for ck, s in solved.items() if is_interpolated(alphas.get(ck))))
    return {ck: s - interpolated for ck, s in solved.items() if is_extrapolated(alphas.get(ck))}


# --- pools at any budget and intervals over problems -------------------------------------------------


def pool_pass_at_budget(counts: Sequence[tuple[int, int]], budget: int) -> float:
    """pass@B of one problem for a pool spreading B samples as evenly as it can over its M checkpoints
    (B // M each, one more for B % M of them), averaged over which checkpoints get the extra sample.
    Where M divides B this is `ensemble_pass_at_budget`; a pool of one is pass@B."""
    m = len(counts)
    if m == 0:
        raise ValueError("a pool needs at least one checkpoint")
    if budget < 1:
        raise ValueError(f"budget B={budget} must be positive")
    base, extra = divmod(budget, m)
    if any(base + (1 if extra else 0) > n for n, _ in counts) and extra:
        raise ValueError(f"budget B={budget} draws up to {base + 1} from a checkpoint with fewer samples")
    if any(base > n for n, _ in counts):
        raise ValueError(f"budget B={budget} draws {base} from a checkpoint with fewer samples")
    choices = list(combinations(range(m), extra))
    total = 0.0
    for chosen in choices:
        miss = 1.0
        for i, (n, c) in enumerate(counts):
            draw = base + (1 if i in chosen else 0)
            miss *= all_miss(n, c, draw) if draw else 1.0
        total += 1.0 - miss
    return total / len(choices)


def bootstrap_interval(
    per_problem: Sequence[float], *, resamples: int = 1000, level: float = 0.95, seed: int = 0
) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean over problems (problems resampled with replacement)."""
    import random

    values = list(per_problem)
    if not values:
        raise ValueError("an interval over no problems")
    rng = random.Random(seed)
    means = sorted(sum(rng.choices(values, k=len(values))) / len(values) for _ in range(resamples))
    lo = means[int((1 - level) / 2 * (resamples - 1))]
    hi = means[int((1 + level) / 2 * (resamples - 1) + 0.5)]
    return lo, hi


# -- repair: failed first attempts fixed within T turns ----------------------------------------------
@dataclass(frozen=True)
class RepairChain:
    """One sample's attempts: the outcome of each, in turn order (the chain stops at the first correct
    attempt, or after the last turn)."""

    problem_id: str
    sample_index: int
    outcomes: tuple[str, ...]


def _fixed_within(chain: RepairChain, turns: int) -> bool:
    return chain.outcomes[0] != Outcome.CORRECT and Outcome.CORRECT in chain.outcomes[:turns]


def repair_summary(
    chains: Sequence[RepairChain], turns: int, *, resamples: int = 1000, seed: int = 0
) -> dict:
    """First-attempt pass@1, the repair rate (failed first attempts fixed within `turns` attempts, over
    all failed first attempts), the same within each turn count, pass@1 after repair, and 95%
    bootstrap intervals over problems (the repair rate's over problems with a failed first attempt).
    The repair rate is None where no first attempt failed."""
    by_problem: dict[str, list[RepairChain]] = defaultdict(list)
    for c in chains:
        by_problem[c.problem_id].append(c)
    first = {p: sum(c.outcomes[0] == Outcome.CORRECT for c in cs) / len(cs) for p, cs in by_problem.items()}
    final = {
        p: sum(Outcome.CORRECT in c.outcomes[:turns] for c in cs) / len(cs) for p, cs in by_problem.items()
    }
    failed = [c for c in chains if c.outcomes[0] != Outcome.CORRECT]
    rate_by_problem = {
        p: sum(_fixed_within(c, turns) for c in fs) / len(fs)
        for p, cs in by_problem.items()
        if (fs := [c for c in cs if c.outcomes[0] != Outcome.CORRECT])
    }
    repaired = sum(_fixed_within(c, turns) for c in failed)

    def mean(values: Mapping[str, float]) -> float | None:
        return sum(values.values()) / len(values) if values else None

    def interval(values: Mapping[str, float]) -> list[float] | None:
        if not values:
            return None
        return list(bootstrap_interval(list(values.values()), resamples=resamples, seed=seed))

    return {
        "turns": turns,
        "samples": len(chains),
        "problems": len(by_problem),
        "first_attempt_pass@1": mean(first),
        "final_pass@1": mean(final),
        "failed_first": len(failed),
        "repaired": repaired,
        "repair_rate": repaired / len(failed) if failed else None,
        "repair_rate_by_turn": {
            str(t): sum(_fixed_within(c, t) for c in failed) / len(failed) for t in range(2, turns + 1)
        }
        if failed
        else {},
        "repair_rate_by_problem_mean": mean(rate_by_problem),
        "interval95": {
            "first_attempt_pass@1": interval(first),
            "final_pass@1": interval(final),
            "repair_rate": interval(rate_by_problem),
        },
    }
