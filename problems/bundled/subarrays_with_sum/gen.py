"""Tests for subarrays_with_sum: edge cases (no evenings, k = 0, negatives), then random results with
small magnitudes so many runs hit k; the largest have n ~ 6*10^4, where trying every run is quadratic."""

import json


def _case(nums, k):
    return json.dumps(nums, separators=(",", ":")) + "\n" + str(k) + "\n"


def _random(rng, n, bound, k=None):
    nums = [rng.randint(-bound, bound) for _ in range(n)]
    if k is None:
        i = rng.randrange(n)
        j = rng.randrange(i, min(n, i + 50))
        k = sum(nums[i : j + 1])
    return _case(nums, k)


def generate(rng):
    tests = [
        ("01_no_evenings", _case([], 0)),
        ("02_single_hit", _case([5], 5)),
        ("03_zero_target", _case([0, 0, 0], 0)),
        ("04_example", _case([3, -1, 1, 2, -2], 3)),
        ("05_negatives", _case([-2, 4, -2, -2, 4], 0)),
    ]
    for i, (n, bound) in enumerate([(15, 3), (30, 10), (40, 2)]):
        tests.append((f"10_small_{i}", _random(rng, n, bound)))
    for i, (n, bound) in enumerate([(200, 5), (250, 100), (300, 1)]):
        tests.append((f"20_medium_{i}", _random(rng, n, bound, k=0 if i == 2 else None)))
    for i, (n, bound) in enumerate([(1500, 5), (2000, 1000), (2500, 1)]):
        tests.append((f"30_large_{i}", _random(rng, n, bound)))
    for i, (n, bound) in enumerate([(15000, 10), (20000, 1)]):
        tests.append((f"40_larger_{i}", _random(rng, n, bound)))
    tests.append(("50_huge_small_values", _random(rng, 100000, 2)))
    tests.append(("51_huge_wide_values", _random(rng, 60000, 10**4)))
    tests.append(("52_huge_zeros", _case([0] * 100000, 0)))
    return tests
