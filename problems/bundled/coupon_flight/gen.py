def _fmt(n, edges):
    return f"{n} {len(edges)}\n" + "".join(f"{u} {v} {c}\n" for u, v, c in edges)


def _random_graph(rng, n, m, hi):
    edges = []
    # a random spine so that n is usually reachable, with expensive steps
    order = [1] + rng.sample(range(2, n), n - 2) + [n] if n > 2 else list(range(1, n + 1))
    for a, b in zip(order, order[1:], strict=False):
        edges.append((a, b, rng.randint(hi // 2, hi)))
    while len(edges) < m:
        u, v = rng.randint(1, n), rng.randint(1, n)
        edges.append((u, v, rng.randint(1, hi)))
    rng.shuffle(edges)
    return edges[:m]


def _layered(rng, layers, width, hi):
    # layered DAG plus back edges: many near-equal routes, one long jump that pays off halved
    n = layers * width + 2
    edges = []
    for w in range(width):
        edges.append((1, 2 + w, rng.randint(1, hi)))
        edges.append((2 + (layers - 1) * width + w, n, rng.randint(1, hi)))
    for layer in range(layers - 1):
        for w in range(width):
            a = 2 + layer * width + w
            for _ in range(2):
                b = 2 + (layer + 1) * width + rng.randrange(width)
                edges.append((a, b, rng.randint(1, hi)))
            if rng.random() < 0.2:
                edges.append(
                    (a, 2 + rng.randrange(layer + 1) * width + rng.randrange(width), rng.randint(1, hi))
                )
    total = hi * (layers + 1) // 3
    edges.append((1, n, rng.randint(total, 2 * total)))
    rng.shuffle(edges)
    return n, edges


def _unreachable(rng, n, m, hi):
    half = n // 2
    edges = []
    for _ in range(m):
        if rng.random() < 0.5:
            u, v = rng.randint(1, half), rng.randint(1, half)
        else:
            u, v = rng.randint(half + 1, n), rng.randint(1, n)
        edges.append((u, v, rng.randint(1, hi)))
    return edges


def generate(rng):
    tests = [
        ("s01_one_airport", _fmt(1, [])),
        ("s02_no_flight", _fmt(2, [])),
        ("s03_direct", _fmt(2, [(1, 2, 7)])),
        ("s04_greedy_trap", _fmt(3, [(1, 2, 10), (2, 3, 10), (1, 3, 28)])),
        ("s05_example", _fmt(4, [(1, 2, 10), (2, 4, 10), (1, 3, 3), (3, 4, 25)])),
        ("s06_loops", _fmt(3, [(1, 1, 5), (1, 2, 1), (2, 3, 1), (2, 3, 1), (3, 1, 4)])),
        ("s07_backward", _fmt(3, [(2, 1, 5), (3, 2, 1)])),
    ]
    tests.append(("m01_random", _fmt(8, _random_graph(rng, 8, 12, 100))))
    tests.append(("m02_layered", _fmt(*_layered(rng, 3, 3, 50))))
    tests.append(("m03_unreach", _fmt(10, _unreachable(rng, 10, 15, 100))))
    tests.append(("l01_random", _fmt(100, _random_graph(rng, 100, 300, 10**6))))
    tests.append(("l02_layered", _fmt(*_layered(rng, 10, 10, 10**6))))
    tests.append(("l03_unreach", _fmt(150, _unreachable(rng, 150, 300, 10**9))))
    tests.append(("x01_random", _fmt(2000, _random_graph(rng, 2000, 4000, 10**9))))
    tests.append(("x02_layered", _fmt(*_layered(rng, 40, 40, 10**9))))
    tests.append(("x03_unreach", _fmt(3000, _unreachable(rng, 3000, 5000, 10**9))))
    tests.append(("y01_random", _fmt(20000, _random_graph(rng, 20000, 40000, 10**9))))
    tests.append(("y02_layered", _fmt(*_layered(rng, 150, 100, 10**9))))
    tests.append(("y03_sparse", _fmt(30000, _random_graph(rng, 30000, 35000, 10**9))))
    tests.append(("y04_unreach", _fmt(20000, _unreachable(rng, 20000, 40000, 10**9))))
    return tests
