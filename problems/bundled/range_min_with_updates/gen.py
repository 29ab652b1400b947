"""Tests for range_min_with_updates: edge cases (one night, reversed ends, an update that raises the
minimum), then random archives; the largest have 4-5*10^4 nights and requests over wide ranges, where
scanning each range is quadratic."""


def _case(values, requests):
    head = f"{len(values)} {len(requests)}\n" + " ".join(map(str, values)) + "\n"
    return head + "".join(f"{a} {b} {c}\n" for a, b, c in requests)


def _random(rng, n, q, bound, update_share=0.4, wide=False):
    values = [rng.randint(-bound, bound) for _ in range(n)]
    reqs = []
    for _ in range(q):
        if rng.random() < update_share:
            reqs.append((1, rng.randint(1, n), rng.randint(-bound, bound)))
        else:
            if wide:
                lo, r = rng.randint(1, max(1, n // 10)), rng.randint(n - n // 10, n)
            else:
                lo, r = rng.randint(1, n), rng.randint(1, n)
            if rng.random() < 0.5:
                lo, r = r, lo
            reqs.append((2, lo, r))
    return _case(values, reqs)


def generate(rng):
    tests = [
        ("01_one_night", _case([5], [(2, 1, 1), (1, 1, -3), (2, 1, 1)])),
        ("02_reversed", _case([3, 1, 2], [(2, 3, 2)])),
        ("03_example", _case([4, -1, 7, 3, 9], [(2, 1, 5), (1, 2, 8), (2, 1, 5), (2, 5, 3), (1, 4, 10)])),
        ("04_raise", _case([2, 6, 4], [(1, 1, 9), (2, 1, 3), (1, 3, 10), (2, 3, 1)])),
    ]
    for i, (n, q) in enumerate([(5, 6), (8, 8), (6, 10)]):
        tests.append((f"10_small_{i}", _random(rng, n, q, 20)))
    for i, (n, q) in enumerate([(30, 30), (40, 25), (25, 40)]):
        tests.append((f"20_medium_{i}", _random(rng, n, q, 10**9 if i == 0 else 1000)))
    for i, (n, q) in enumerate([(300, 300), (400, 250), (250, 400)]):
        tests.append((f"30_large_{i}", _random(rng, n, q, 10**9, wide=i == 0)))
    for i, (n, q) in enumerate([(3000, 3000), (4000, 2500)]):
        tests.append((f"40_larger_{i}", _random(rng, n, q, 10**9, wide=i == 1)))
    tests.append(("50_huge_wide", _random(rng, 50000, 40000, 10**5, update_share=0.2, wide=True)))
    tests.append(("51_huge_random", _random(rng, 40000, 30000, 10**9)))
    tests.append(("52_huge_query_heavy", _random(rng, 50000, 45000, 10**4, update_share=0.05, wide=True)))
    return tests
