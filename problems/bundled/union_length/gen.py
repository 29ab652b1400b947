"""Tests for union_length: edge cases (nobody painted, touching and nested stretches), then random
stretches; the largest have 4*10^4 short stretches spread far apart, so merging each new stretch
into a list of parts by a linear scan is quadratic."""


def _case(stretches):
    return f"{len(stretches)}\n" + "".join(f"{lo} {r}\n" for lo, r in stretches)


def _random(rng, n, span, longest):
    out = []
    for _ in range(n):
        lo = rng.randint(0, span - 1)
        out.append((lo, min(span, lo + rng.randint(1, longest))))
    return _case(out)


def _touching(rng, n, step):
    # a chain of stretches that only touch, shuffled
    cuts = sorted(rng.sample(range(1, step * n), n - 1))
    bounds = [0, *cuts, step * n]
    out = [(bounds[i], bounds[i + 1]) for i in range(n)]
    rng.shuffle(out)
    return _case(out)


def generate(rng):
    tests = [
        ("01_nobody", _case([])),
        ("02_one", _case([(0, 10**9)])),
        ("03_touching", _case([(5, 9), (2, 5)])),
        ("04_example", _case([(2, 5), (5, 9), (1, 3), (12, 14)])),
        ("05_nested", _case([(1, 100), (10, 20), (30, 40)])),
        ("06_gap_of_one", _case([(0, 3), (4, 6), (3, 4)])),
    ]
    for i, (n, span, longest) in enumerate([(5, 50, 10), (7, 100, 5), (8, 30, 20)]):
        tests.append((f"10_small_{i}", _random(rng, n, span, longest)))
    for i, (n, span, longest) in enumerate([(40, 10**6, 10**4), (50, 1000, 30), (45, 10**9, 10**8)]):
        tests.append((f"20_medium_{i}", _random(rng, n, span, longest)))
    tests.append(("21_medium_touching", _touching(rng, 40, 20)))
    for i, (n, span, longest) in enumerate([(400, 10**8, 10**5), (500, 10**6, 1000)]):
        tests.append((f"30_large_{i}", _random(rng, n, span, longest)))
    tests.append(("31_large_touching", _touching(rng, 500, 1000)))
    for i, (n, span, longest) in enumerate([(4000, 10**9, 10**5), (5000, 10**7, 1000)]):
        tests.append((f"40_larger_{i}", _random(rng, n, span, longest)))
    tests.append(("50_huge_sparse", _random(rng, 40000, 10**9, 1000)))
    tests.append(("51_huge_mixed", _random(rng, 40000, 10**9, 10**5)))
    tests.append(("52_huge_touching", _touching(rng, 40000, 10000)))
    return tests
