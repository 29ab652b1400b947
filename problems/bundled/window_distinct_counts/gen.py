"""Tests for window_distinct_counts: edge cases (k = n, k = 1, all equal), then random conveyors; the
largest have n ~ 10^5 and k ~ n/2, where building a set per window is quadratic."""


def _case(values, k):
    return f"{len(values)} {k}\n" + " ".join(map(str, values)) + "\n"


def _random(rng, n, k, kinds, bound=10**9):
    pool = rng.sample(range(bound + 1), kinds)
    return _case([rng.choice(pool) for _ in range(n)], k)


def generate(rng):
    tests = [
        ("01_one_item", _case([7], 1)),
        ("02_whole_belt", _case([1, 2, 1, 3], 4)),
        ("03_example", _case([4, 4, 2, 9, 2, 2, 4], 3)),
        ("04_window_of_one", _case([5, 5, 6, 5], 1)),
        ("05_all_same", _case([3] * 8, 3)),
    ]
    for i, (n, k, kinds) in enumerate([(20, 5, 4), (25, 25, 10), (30, 2, 30)]):
        tests.append((f"10_small_{i}", _random(rng, n, k, kinds, 100)))
    for i, (n, k, kinds) in enumerate([(50, 20, 20), (60, 30, 60), (40, 7, 3)]):
        tests.append((f"20_medium_{i}", _random(rng, n, k, kinds, 10**6)))
    for i, (n, k, kinds) in enumerate([(500, 250, 300), (600, 600, 50), (450, 10, 450)]):
        tests.append((f"30_large_{i}", _random(rng, n, k, kinds, 10**6)))
    for i, (n, k, kinds) in enumerate([(8000, 4000, 3000), (7000, 40, 20)]):
        tests.append((f"40_larger_{i}", _random(rng, n, k, kinds)))
    tests.append(("50_huge_half", _random(rng, 100000, 50000, 30000, 10**6)))
    tests.append(("51_huge_few_kinds", _random(rng, 120000, 60000, 50, 10**6)))
    tests.append(("52_huge_short_window", _random(rng, 80000, 100, 80000)))
    return tests
