"""Tests for count_smaller_right: edge cases (empty queue, one child, equal heights), then random
queues, sorted and reversed ones, and many repeats; the largest have n ~ 6*10^4, where comparing
every pair is quadratic."""

import json


def _case(heights):
    return json.dumps(heights, separators=(",", ":")) + "\n"


def _random(rng, n, bound):
    return _case([rng.randint(-bound, bound) for _ in range(n)])


def generate(rng):
    tests = [
        ("01_empty", _case([])),
        ("02_one", _case([7])),
        ("03_equal", _case([4, 4, 4])),
        ("04_example", _case([5, 2, 6, 2, 1])),
        ("05_falling", _case([3, 2, 1, 0, -1])),
    ]
    for i, (n, bound) in enumerate([(10, 5), (15, 100), (20, 2)]):
        tests.append((f"10_small_{i}", _random(rng, n, bound)))
    for i, (n, bound) in enumerate([(100, 10**6), (150, 10)]):
        tests.append((f"20_medium_{i}", _random(rng, n, bound)))
    tests.append(("21_medium_rising", _case(list(range(-60, 60)))))
    for i, (n, bound) in enumerate([(800, 10**9), (1500, 50)]):
        tests.append((f"30_large_{i}", _random(rng, n, bound)))
    tests.append(("31_large_falling", _case(list(range(1200, 0, -1)))))
    for i, (n, bound) in enumerate([(8000, 10**9), (12000, 100)]):
        tests.append((f"40_larger_{i}", _random(rng, n, bound)))
    tests.append(("50_huge_random", _random(rng, 60000, 10**9)))
    tests.append(("51_huge_repeats", _random(rng, 100000, 1000)))
    tests.append(("52_huge_falling", _case([10**6 - 7 * i for i in range(100000)])))
    return tests
