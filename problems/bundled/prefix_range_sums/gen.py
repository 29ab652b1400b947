"""Tests for prefix_range_sums: edge cases, then random ledgers of growing size; the largest ones ask
mostly wide ranges, where summing each range one element at a time is quadratic."""


def _case(n, queries, values):
    lines = [f"{n} {len(queries)}", " ".join(map(str, values))]
    lines += [f"{lo} {r}" for lo, r in queries]
    return "\n".join(lines) + "\n"


def _random(rng, n, q, bound, wide=False):
    values = [rng.randint(-bound, bound) for _ in range(n)]
    queries = []
    for _ in range(q):
        if wide:
            lo = rng.randint(1, max(1, n // 10))
            r = rng.randint(max(lo, n - n // 10), n)
        else:
            lo = rng.randint(1, n)
            r = rng.randint(lo, n)
        queries.append((lo, r))
    return _case(n, queries, values)


def generate(rng):
    big = 10**9
    tests = [
        ("01_one_day", _case(1, [(1, 1)], [-7])),
        ("02_no_questions", _case(3, [], [1, 2, 3])),
        ("03_example", _case(5, [(1, 3), (2, 2), (1, 5)], [4, -2, 7, 0, 3])),
        ("04_huge_values", _case(4, [(1, 4), (1, 3), (3, 3)], [big, big, big, -big])),
    ]
    tests.append(("05_tiny_random", _random(rng, 6, 5, 20)))
    for i, (n, q) in enumerate([(25, 25), (40, 30), (30, 40)]):
        tests.append((f"10_small_{i}", _random(rng, n, q, big)))
    for i, (n, q) in enumerate([(300, 300), (400, 250), (200, 400)]):
        tests.append((f"20_medium_{i}", _random(rng, n, q, big if i != 1 else 1000)))
    for i, (n, q) in enumerate([(3000, 3000), (4000, 2500), (2000, 4000)]):
        tests.append((f"30_large_{i}", _random(rng, n, q, big, wide=i == 0)))
    tests.append(("40_huge_wide", _random(rng, 40000, 40000, big, wide=True)))
    tests.append(("41_huge_random", _random(rng, 30000, 30000, big)))
    tests.append(("42_huge_wide_small_values", _random(rng, 50000, 50000, 1000, wide=True)))
    return tests
