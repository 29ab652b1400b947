"""pass@k, the unbiased estimator (Chen et al. 2021), as pure functions: what the evaluator's reports
and `frontier judge BENCHMARK COMPLETIONS.jsonl` (services/judge/judge_set.py) both compute. Nothing
here imports anything of the project.

Per-problem sample counts are `(n, c)`: n samples the judge classified (judge errors excluded), c of
them correct.
"""

from __future__ import annotations

import math
from collections.abc import Iterable


def all_miss(n: int, c: int, k: int) -> float:
    """C(n-c, k) / C(n, k): the chance that k of n samples drawn without replacement miss all c correct
    ones, as the product prod_{i=n-c+1}^{n} (1 - k/i), which stays accurate where the binomials overflow
    a float (Chen et al. 2021)."""
    if not 0 <= c <= n:
        raise ValueError(f"need 0 <= c <= n, got n={n}, c={c}")
    if not 1 <= k <= n:
        raise ValueError(f"pass@k needs 1 <= k <= n: cannot draw k={k} of n={n} samples")
    if n - c < k:
        return 0.0
    return math.prod(1.0 - k / i for i in range(n - c + 1, n + 1))


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k of one problem from n samples with c correct: 1 - C(n-c, k) / C(n, k)."""
    return 1.0 - all_miss(n, c, k)


def mean_pass_at_k(counts: Iterable[tuple[int, int]], k: int) -> float:
    """pass@k averaged over problems, given each problem's (n, c)."""
    values = [pass_at_k(n, c, k) for n, c in counts]
    if not values:
        raise ValueError("pass@k over no problems")
    return sum(values) / len(values)


def report_ks(n_samples: int) -> list[int]:
    """k = 1, 2, 4, ... up to n_samples, and n_samples itself."""
    ks = [2**i for i in range(n_samples.bit_length()) if 2**i <= n_samples]
    return ks if ks[-1] == n_samples else [*ks, n_samples]
