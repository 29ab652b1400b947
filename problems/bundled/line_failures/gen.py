def _fmt(n, lines, failures):
    head = f"{n} {len(lines)} {len(failures)}\n"
    return head + "".join(f"{a} {b}\n" for a, b in lines) + "".join(f"{c}\n" for c in failures)


def _random(rng, n, m, q):
    lines = [(rng.randint(1, n), rng.randint(1, n)) for _ in range(m)]
    failures = rng.sample(range(1, m + 1), q)
    return n, lines, failures


def _path(rng, n, extra, q):
    # a path 1-2-3-...-n listed in order, plus lines from substation 1 to far substations
    lines = [(i, i + 1) for i in range(1, n)]
    lines += [(1, rng.randint(n // 2, n)) for _ in range(extra)]
    m = len(lines)
    # fail only some of the extra lines and a few path lines at the far end
    pool = list(range(n, m + 1)) + list(range(n - 10, n))
    failures = rng.sample(pool, min(q, len(pool)))
    return n, lines, failures


def _clusters(rng, n, clusters, m, q):
    # dense clusters joined by a few lines: failures inside a cluster rarely split it
    label = [0] + [rng.randrange(clusters) for _ in range(n)]
    members = {}
    for i in range(1, n + 1):
        members.setdefault(label[i], []).append(i)
    groups = list(members.values())
    lines = []
    while len(lines) < m:
        if rng.random() < 0.05:
            lines.append((rng.randint(1, n), rng.randint(1, n)))
        else:
            g = rng.choice(groups)
            lines.append((rng.choice(g), rng.choice(g)))
    failures = rng.sample(range(1, m + 1), q)
    return n, lines, failures


def generate(rng):
    tests = [
        ("s01_one", _fmt(1, [(1, 1)], [1])),
        ("s02_two", _fmt(2, [(1, 2), (2, 1)], [2, 1])),
        ("s03_example", _fmt(4, [(1, 2), (2, 3), (1, 3), (3, 4)], [3, 2, 4])),
        ("s04_loops", _fmt(3, [(1, 1), (2, 2), (1, 2)], [1, 3, 2])),
        ("s05_isolated", _fmt(5, [(2, 3), (3, 2)], [1])),
    ]
    tests.append(("m01_random", _fmt(*_random(rng, 8, 12, 6))))
    tests.append(("m02_random", _fmt(*_random(rng, 30, 45, 40))))
    tests.append(("m03_clusters", _fmt(*_clusters(rng, 40, 4, 60, 30))))
    tests.append(("m04_path", _fmt(*_path(rng, 60, 10, 8))))
    tests.append(("l01_random", _fmt(*_random(rng, 200, 300, 250))))
    tests.append(("l02_path", _fmt(*_path(rng, 300, 50, 40))))
    tests.append(("l03_clusters", _fmt(*_clusters(rng, 250, 10, 400, 300))))
    tests.append(("x01_random", _fmt(*_random(rng, 1000, 1500, 1200))))
    tests.append(("x02_path", _fmt(*_path(rng, 2500, 500, 300))))
    tests.append(("x03_clusters", _fmt(*_clusters(rng, 1200, 30, 2000, 1500))))
    tests.append(("y01_random", _fmt(*_random(rng, 25000, 35000, 30000))))
    tests.append(("y02_path", _fmt(*_path(rng, 40000, 5000, 4000))))
    tests.append(("y03_clusters", _fmt(*_clusters(rng, 30000, 300, 40000, 35000))))
    tests.append(("y04_dense", _fmt(*_random(rng, 5000, 50000, 50000))))
    return tests
