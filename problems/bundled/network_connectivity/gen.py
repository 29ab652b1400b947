"""Tests for network_connectivity: edge cases (a node with itself, cables laid onto the middle of a
chain), random logs, and long chains of cables (deep trees for a union-find without balancing). The
largest logs ask tens of thousands of questions over big components, where a search per question is
quadratic."""


def _case(n, events):
    return f"{n} {len(events)}\n" + "".join(f"{c} {u} {v}\n" for c, u, v in events)


def _random(rng, n, q, cable_share):
    events = []
    for _ in range(q):
        c = "+" if rng.random() < cable_share else "?"
        events.append((c, rng.randint(1, n), rng.randint(1, n)))
    return _case(n, events)


def _phased(rng, n, cables, questions):
    """Cables first (most of the network joined), then the questions."""
    events = [("+", rng.randint(1, n), rng.randint(1, n)) for _ in range(cables)]
    events += [("?", rng.randint(1, n), rng.randint(1, n)) for _ in range(questions)]
    return _case(n, events)


def _chain(rng, n, questions):
    """Cables 1-2, 2-3, ... in order, then questions about far-apart islands."""
    events = [("+", i, i + 1) for i in range(1, n)]
    events += [("?", rng.randint(1, n // 10 + 1), rng.randint(n - n // 10, n)) for _ in range(questions)]
    return _case(n, events)


def generate(rng):
    tests = [
        ("01_self", _case(1, [("?", 1, 1)])),
        ("02_lonely", _case(2, [("?", 1, 2), ("?", 2, 2)])),
        (
            "03_example",
            _case(4, [("?", 1, 2), ("+", 1, 2), ("+", 3, 2), ("?", 1, 3), ("?", 4, 1), ("?", 4, 4)]),
        ),
        ("04_star", _case(3, [("+", 1, 2), ("+", 1, 3), ("?", 2, 3)])),
        ("05_repeat", _case(3, [("+", 2, 2), ("+", 1, 3), ("+", 3, 1), ("?", 1, 3), ("?", 2, 3)])),
    ]
    for i, (n, q, share) in enumerate([(6, 8, 0.5), (8, 7, 0.3), (5, 9, 0.6)]):
        tests.append((f"10_small_{i}", _random(rng, n, q, share)))
    for i, (n, q, share) in enumerate([(30, 60, 0.5), (50, 50, 0.3), (40, 70, 0.7)]):
        tests.append((f"20_medium_{i}", _random(rng, n, q, share)))
    tests.append(("21_medium_chain", _chain(rng, 60, 20)))
    for i, (n, q, share) in enumerate([(300, 600, 0.5), (500, 500, 0.2)]):
        tests.append((f"30_large_{i}", _random(rng, n, q, share)))
    tests.append(("31_large_chain", _chain(rng, 600, 100)))
    tests.append(("40_larger_random", _random(rng, 3000, 6000, 0.5)))
    tests.append(("41_larger_chain", _chain(rng, 3000, 1500)))
    tests.append(("50_huge_phased", _phased(rng, 50000, 40000, 30000)))
    tests.append(("51_huge_chain", _chain(rng, 40000, 30000)))
    tests.append(("52_huge_random", _random(rng, 50000, 70000, 0.6)))
    return tests
