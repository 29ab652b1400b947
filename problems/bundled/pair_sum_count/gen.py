"""Tests for pair_sum_count: edge cases (empty, one crate, a target that is twice a repeated weight),
then random weights; the large tests have n up to 6*10^4, where checking every pair is too slow."""

import json


def _case(nums, target):
    return json.dumps(nums, separators=(",", ":")) + "\n" + str(target) + "\n"


def _random(rng, n, bound):
    nums = [rng.randint(-bound, bound) for _ in range(n)]
    # a target that is the sum of two existing weights, so the count is usually not zero
    if n >= 2:
        i, j = rng.sample(range(n), 2)
        target = nums[i] + nums[j]
    else:
        target = rng.randint(-bound, bound)
    return _case(nums, target)


def generate(rng):
    tests = [
        ("01_empty", _case([], 0)),
        ("02_one_crate", _case([4], 8)),
        ("03_example", _case([1, 5, 3, 3, 7], 8)),
        ("04_same_weights", _case([2, 2, 2], 4)),
        ("05_negative", _case([-3, 3, 0, 0, -1, 1, 2], 0)),
        ("06_extremes", _case([10**9, 10**9, -(10**9)], 2 * 10**9)),
    ]
    for i, (n, bound) in enumerate([(30, 10), (60, 1000), (100, 50)]):
        tests.append((f"10_small_{i}", _random(rng, n, bound)))
    for i, (n, bound) in enumerate([(800, 100), (1500, 10**6), (1200, 10**9)]):
        tests.append((f"20_medium_{i}", _random(rng, n, bound)))
    for i, (n, bound) in enumerate([(10000, 1000), (12000, 10**6), (8000, 10**9)]):
        tests.append((f"30_large_{i}", _random(rng, n, bound)))
    tests.append(("40_huge_dense", _random(rng, 60000, 5000)))
    tests.append(("41_huge_sparse", _random(rng, 50000, 10**9)))
    tests.append(("42_huge_all_equal", _case([7] * 60000, 14)))
    return tests
