"""Tests for cheapest_routes: edge cases (one town, no roads, free roads, a cheaper detour), then
random connected road networks; the largest have 2*10^4 towns, where picking the next town by
scanning all towns (quadratic Dijkstra) is too slow."""


def _case(n, edges):
    return f"{n} {len(edges)}\n" + "".join(f"{u} {v} {w}\n" for u, v, w in edges)


def _random(rng, n, m, wmax, connected=True):
    edges = []
    if connected:
        order = list(range(2, n + 1))
        rng.shuffle(order)
        seen = [1]
        for v in order:  # a random spanning tree first
            edges.append((rng.choice(seen), v, rng.randint(0, wmax)))
            seen.append(v)
    while len(edges) < m:
        edges.append((rng.randint(1, n), rng.randint(1, n), rng.randint(0, wmax)))
    rng.shuffle(edges)
    return _case(n, edges)


def generate(rng):
    tests = [
        ("01_capital_only", _case(1, [])),
        ("02_no_roads", _case(3, [])),
        ("03_detour", _case(3, [(1, 2, 10), (1, 3, 1), (3, 2, 1)])),
        ("04_example", _case(5, [(1, 2, 10), (1, 3, 1), (3, 2, 2), (2, 4, 5), (4, 4, 7)])),
        ("05_free_roads", _case(4, [(2, 1, 0), (3, 2, 0), (4, 3, 10**9), (1, 4, 10**9)])),
    ]
    for i, (n, m, wmax) in enumerate([(6, 9, 20), (8, 8, 5), (7, 12, 100)]):
        tests.append((f"10_small_{i}", _random(rng, n, m, wmax, connected=i != 2)))
    for i, (n, m, wmax) in enumerate([(30, 60, 1000), (40, 45, 10), (25, 80, 10**9)]):
        tests.append((f"20_medium_{i}", _random(rng, n, m, wmax, connected=i != 1)))
    for i, (n, m, wmax) in enumerate([(300, 600, 10**6), (400, 450, 100), (250, 700, 10**9)]):
        tests.append((f"30_large_{i}", _random(rng, n, m, wmax)))
    for i, (n, m, wmax) in enumerate([(2500, 5000, 10**6), (3000, 3500, 1000)]):
        tests.append((f"40_larger_{i}", _random(rng, n, m, wmax)))
    tests.append(("50_huge_sparse", _random(rng, 20000, 25000, 10**6)))
    tests.append(("51_huge_dense", _random(rng, 15000, 45000, 10**9)))
    tests.append(("52_huge_unit", _random(rng, 20000, 30000, 1)))
    return tests
