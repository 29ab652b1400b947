"""Tests for best_average_window: edge cases (k = 1, k = n, all descents), then random routes; the
largest have n ~ 1.5*10^5 and k ~ n/2, where re-summing every stretch is quadratic."""


def _case(values, k):
    return f"{len(values)} {k}\n" + " ".join(map(str, values)) + "\n"


def _random(rng, n, k, lo=-(10**4), hi=10**4):
    return _case([rng.randint(lo, hi) for _ in range(n)], k)


def generate(rng):
    tests = [
        ("01_single", _case([-5], 1)),
        ("02_whole_route", _case([3, -1, 4, 1, -5], 5)),
        ("03_example", _case([1, -4, 6, 2, -1, 5], 3)),
        ("04_all_descents", _case([-7, -3, -9, -2, -8], 2)),
        ("05_thirds", _case([1, 0, 0, 1, 1, 0, 1], 3)),
    ]
    for i, (n, k) in enumerate([(15, 1), (20, 7), (25, 25)]):
        tests.append((f"10_small_{i}", _random(rng, n, k)))
    tests.append(("11_small_negative", _random(rng, 30, 4, -(10**4), -1)))
    for i, (n, k) in enumerate([(150, 40), (200, 100), (180, 1)]):
        tests.append((f"20_medium_{i}", _random(rng, n, k)))
    for i, (n, k) in enumerate([(1500, 700), (2000, 1000), (1800, 1800)]):
        tests.append((f"30_large_{i}", _random(rng, n, k)))
    for i, (n, k) in enumerate([(15000, 7500), (14000, 30)]):
        tests.append((f"40_larger_{i}", _random(rng, n, k)))
    tests.append(("50_huge_half", _random(rng, 150000, 75000)))
    tests.append(("51_huge_negative", _random(rng, 120000, 40000, -(10**4), 100)))
    tests.append(("52_huge_short", _random(rng, 100000, 10)))
    return tests
