"""Tests for frequency_sort: edge cases (empty log, one book, ties), then random logs with many
repeats; the largest have n = 10^5, where counting each number by a scan of the log is quadratic."""


def _case(values):
    return f"{len(values)}\n" + " ".join(map(str, values)) + "\n"


def _random(rng, n, distinct, bound=10**9):
    pool = [rng.randint(-bound, bound) for _ in range(distinct)]
    weights = [rng.random() ** 2 for _ in pool]
    return _case(rng.choices(pool, weights=weights, k=n))


def generate(rng):
    tests = [
        ("01_empty", _case([])),
        ("02_single", _case([42])),
        ("03_example", _case([5, 3, 5, -1, 3, 8, 5])),
        ("04_all_tied", _case([9, -2, 4, 7, 0])),
        ("05_two_groups", _case([3, 1, 3, 1, 2, 2, 5])),
    ]
    for i, (n, distinct, bound) in enumerate([(20, 6, 50), (40, 10, 10**9), (60, 60, 100)]):
        tests.append((f"10_small_{i}", _random(rng, n, distinct, bound)))
    for i, (n, distinct) in enumerate([(200, 30), (300, 300), (250, 5)]):
        tests.append((f"20_medium_{i}", _random(rng, n, distinct, 10**6)))
    for i, (n, distinct) in enumerate([(1500, 200), (2000, 2000), (1800, 20)]):
        tests.append((f"30_large_{i}", _random(rng, n, distinct)))
    for i, (n, distinct) in enumerate([(15000, 3000), (14000, 50)]):
        tests.append((f"40_larger_{i}", _random(rng, n, distinct)))
    tests.append(("50_huge_many", _random(rng, 100000, 20000, 10**6)))
    tests.append(("51_huge_few", _random(rng, 80000, 100, 10**9)))
    return tests
