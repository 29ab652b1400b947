"""Tests for longest_rising_subsequence: edge cases (one session, all equal, strictly falling), then
random heights, nearly sorted heights (long answers) and heights with many repeats. The largest have
n ~ 7*10^4, where the quadratic dynamic programme is too slow."""


def _case(values):
    return f"{len(values)}\n" + " ".join(map(str, values)) + "\n"


def _random(rng, n, bound):
    return _case([rng.randint(-bound, bound) for _ in range(n)])


def _nearly_sorted(rng, n, noise):
    return _case([i * 3 + rng.randint(-noise, noise) for i in range(n)])


def generate(rng):
    tests = [
        ("01_one", _case([5])),
        ("02_all_equal", _case([2, 2, 2])),
        ("03_falling", _case([9, 7, 4, 1])),
        ("04_example", _case([3, 1, 4, 1, 5, 9, 2])),
        ("05_plateaus", _case([1, 1, 2, 2, 3, 3, 0])),
    ]
    for i, (n, bound) in enumerate([(10, 5), (15, 100), (20, 3)]):
        tests.append((f"10_small_{i}", _random(rng, n, bound)))
    for i, (n, bound) in enumerate([(100, 10**6), (150, 20)]):
        tests.append((f"20_medium_{i}", _random(rng, n, bound)))
    tests.append(("21_medium_sorted", _nearly_sorted(rng, 120, 4)))
    for i, (n, bound) in enumerate([(1000, 10**9), (1500, 100)]):
        tests.append((f"30_large_{i}", _random(rng, n, bound)))
    tests.append(("31_large_sorted", _nearly_sorted(rng, 1500, 5)))
    for i, (n, bound) in enumerate([(8000, 10**9), (12000, 1000)]):
        tests.append((f"40_larger_{i}", _random(rng, n, bound)))
    tests.append(("41_larger_sorted", _nearly_sorted(rng, 10000, 50)))
    tests.append(("50_huge_random", _random(rng, 70000, 10**9)))
    tests.append(("51_huge_sorted", _nearly_sorted(rng, 80000, 100)))
    tests.append(("52_huge_repeats", _random(rng, 100000, 500)))
    return tests
