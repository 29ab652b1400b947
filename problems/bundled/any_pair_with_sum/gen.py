"""Tests for any_pair_with_sum: edge cases (one token, a value that would pair with itself, no pair),
then random pockets; the large ones often have no pair or only one near the end, so checking every
pair is quadratic."""


def _case(s, values):
    return f"{len(values)} {s}\n" + " ".join(map(str, values)) + "\n"


def _no_pair(rng, n, bound):
    # every value even and an odd target: no pair can work
    return _case(2 * rng.randint(-bound, bound) + 1, [2 * rng.randint(-bound, bound) for _ in range(n)])


def _late_pair(rng, n, bound):
    values = [2 * rng.randint(-bound, bound) for _ in range(n)]
    target = 2 * rng.randint(-bound, bound) + 1
    # one odd token near the end makes exactly one pair possible with some even token
    j = rng.randrange(n - max(1, n // 50), n)
    i = rng.randrange(0, n)
    while i == j:
        i = rng.randrange(0, n)
    values[j] = target - values[i]
    return _case(target, values)


def _random(rng, n, bound):
    values = [rng.randint(-bound, bound) for _ in range(n)]
    i, j = rng.sample(range(n), 2)
    return _case(values[i] + values[j], values)


def generate(rng):
    tests = [
        ("01_one_token", _case(8, [4])),
        ("02_example_none", _case(10, [5, 1, 2])),
        ("03_self_pair", _case(6, [3, 1, 5])),
        ("04_example", _case(10, [4, 7, 6, 3, 5])),
        ("05_twin", _case(-4, [-2, 9, -2])),
    ]
    for i, n in enumerate([10, 15, 20]):
        tests.append((f"10_small_{i}", [_random, _no_pair, _late_pair][i](rng, n, 1000)))
    for i, n in enumerate([100, 120, 150]):
        tests.append((f"20_medium_{i}", [_random, _no_pair, _late_pair][i](rng, n, 10**8)))
    for i, n in enumerate([1000, 1200, 1500]):
        tests.append((f"30_large_{i}", [_random, _no_pair, _late_pair][i](rng, n, 10**8)))
    for i, n in enumerate([10000, 12000]):
        tests.append((f"40_larger_{i}", [_no_pair, _late_pair][i](rng, n, 10**8)))
    tests.append(("50_huge_none", _no_pair(rng, 60000, 10**8)))
    tests.append(("51_huge_late", _late_pair(rng, 60000, 10**8)))
    tests.append(("52_huge_random", _random(rng, 50000, 10**9)))
    return tests
