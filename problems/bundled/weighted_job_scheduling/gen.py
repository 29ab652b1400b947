"""Tests for weighted_job_scheduling: edge cases (one booking, back-to-back slots, one long slot that
beats many short ones), then random bookings; the largest have 3-4*10^4 requests, where the
quadratic dynamic programme is too slow."""


def _case(jobs):
    return f"{len(jobs)}\n" + "".join(f"{s} {e} {p}\n" for s, e, p in jobs)


def _random(rng, n, span, longest, pmax=10**4):
    jobs = []
    for _ in range(n):
        s = rng.randint(0, span - 1)
        jobs.append((s, min(span, s + rng.randint(1, longest)), rng.randint(1, pmax)))
    return _case(jobs)


def _back_to_back(rng, n, step):
    cuts = sorted(rng.sample(range(1, step * n), n - 1))
    bounds = [0, *cuts, step * n]
    jobs = [(bounds[i], bounds[i + 1], rng.randint(1, 100)) for i in range(n)]
    jobs += [(bounds[i], bounds[i + 2], rng.randint(50, 250)) for i in range(0, n - 1, 3)]
    rng.shuffle(jobs)
    return _case(jobs)


def generate(rng):
    tests = [
        ("01_one", _case([(0, 10, 7)])),
        ("02_back_to_back", _case([(3, 5, 4), (1, 3, 6)])),
        ("03_example", _case([(1, 3, 50), (3, 5, 20), (2, 100, 100), (6, 19, 30)])),
        ("04_long_wins", _case([(0, 10, 100), (0, 2, 10), (2, 4, 10), (4, 6, 10), (6, 8, 10)])),
        ("05_overlap", _case([(0, 5, 3), (4, 9, 4), (8, 12, 3)])),
    ]
    for i, (n, span, longest) in enumerate([(6, 30, 10), (8, 20, 4), (7, 100, 50)]):
        tests.append((f"10_small_{i}", _random(rng, n, span, longest, 50)))
    for i, (n, span, longest) in enumerate([(40, 1000, 100), (50, 10**6, 10**5)]):
        tests.append((f"20_medium_{i}", _random(rng, n, span, longest)))
    tests.append(("21_medium_back_to_back", _back_to_back(rng, 30, 10)))
    for i, (n, span, longest) in enumerate([(400, 10**5, 2000), (500, 10**9, 10**7)]):
        tests.append((f"30_large_{i}", _random(rng, n, span, longest)))
    tests.append(("31_large_back_to_back", _back_to_back(rng, 300, 1000)))
    for i, (n, span, longest) in enumerate([(4000, 10**6, 5000), (5000, 10**9, 10**6)]):
        tests.append((f"40_larger_{i}", _random(rng, n, span, longest)))
    tests.append(("50_huge_random", _random(rng, 35000, 10**9, 10**5)))
    tests.append(("51_huge_back_to_back", _back_to_back(rng, 30000, 10**4)))
    tests.append(("52_huge_long", _random(rng, 35000, 10**8, 10**7)))
    return tests
