"""Tests for closest_pair: edge cases (two beacons, beacons on one spot, all on a line), then random
fields, clusters and grids; the largest have 4*10^4 beacons, where comparing every pair is quadratic."""


def _case(points):
    return f"{len(points)}\n" + "".join(f"{x} {y}\n" for x, y in points)


def _random(rng, n, bound):
    return _case([(rng.randint(-bound, bound), rng.randint(-bound, bound)) for _ in range(n)])


def _clusters(rng, n, bound, clusters, spread):
    centres = [(rng.randint(-bound, bound), rng.randint(-bound, bound)) for _ in range(clusters)]
    pts = []
    for _ in range(n):
        cx, cy = rng.choice(centres)
        x = max(-bound, min(bound, cx + rng.randint(-spread, spread)))
        y = max(-bound, min(bound, cy + rng.randint(-spread, spread)))
        pts.append((x, y))
    return _case(pts)


def _vertical(rng, n, bound):
    # every beacon on one vertical line: a sweep by x alone degenerates
    x = rng.randint(-bound, bound)
    ys = rng.sample(range(-bound, bound), n)
    return _case([(x, y) for y in ys])


def generate(rng):
    tests = [
        ("01_two", _case([(0, 0), (3, 4)])),
        ("02_same_spot", _case([(7, -2), (7, -2)])),
        ("03_example", _case([(0, 0), (5, 5), (1, 3), (6, 3)])),
        ("04_line", _case([(0, 0), (0, 10), (0, 4), (0, 7)])),
        ("05_far", _case([(-(10**7), -(10**7)), (10**7, 10**7), (10**7, -(10**7))])),
    ]
    for i, (n, bound) in enumerate([(6, 20), (8, 1000), (5, 10**7)]):
        tests.append((f"10_small_{i}", _random(rng, n, bound)))
    for i, (n, bound) in enumerate([(40, 10**4), (50, 100)]):
        tests.append((f"20_medium_{i}", _random(rng, n, bound)))
    tests.append(("21_medium_duplicates", _random(rng, 40, 4)))
    for i, (n, bound) in enumerate([(400, 10**7), (500, 10**5)]):
        tests.append((f"30_large_{i}", _random(rng, n, bound)))
    tests.append(("31_large_clusters", _clusters(rng, 450, 10**6, 5, 1000)))
    for i, (n, bound) in enumerate([(4000, 10**7), (5000, 10**6)]):
        tests.append((f"40_larger_{i}", _random(rng, n, bound)))
    tests.append(("41_larger_vertical", _vertical(rng, 4000, 10**7)))
    tests.append(("50_huge_random", _random(rng, 40000, 10**7)))
    tests.append(("51_huge_clusters", _clusters(rng, 40000, 10**7, 20, 10**5)))
    tests.append(("52_huge_vertical", _vertical(rng, 40000, 10**7)))
    return tests
