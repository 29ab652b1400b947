def _fmt(n, rules):
    return f"{n} {len(rules)}\n" + "".join(f"{a} {b}\n" for a, b in rules)


def _dag(rng, n, m, reverse_listing=False):
    # edges go forward in a hidden random order; listed in random order (or backwards)
    order = list(range(1, n + 1))
    rng.shuffle(order)
    rules = []
    for _ in range(m):
        i, j = sorted(rng.sample(range(n), 2))
        rules.append((order[i], order[j]))
    if reverse_listing:
        pos = {c: i for i, c in enumerate(order)}
        rules.sort(key=lambda r: -pos[r[0]])
    else:
        rng.shuffle(rules)
    return rules


def _chain_dag(rng, n, extra, course_one_last=False):
    # a long chain through all courses (S = n) plus forward shortcuts
    order = list(range(1, n + 1))
    rng.shuffle(order)
    if course_one_last:
        order.remove(1)
        order.append(1)
    pos = {c: i for i, c in enumerate(order)}
    rules = [(order[i], order[i + 1]) for i in range(n - 1)]
    for _ in range(extra):
        i, j = sorted(rng.sample(range(n), 2))
        rules.append((order[i], order[j]))
    rules.sort(key=lambda r: -pos[r[1]])  # listed from the end of the chain backwards
    return rules


def _with_cycle(rng, n, m):
    rules = _dag(rng, n, m)
    k = rng.randint(2, min(n, 6))
    cyc = rng.sample(range(1, n + 1), k)
    rules += [(cyc[i], cyc[(i + 1) % k]) for i in range(k)]
    rng.shuffle(rules)
    return rules


def _layers(rng, width, depth, m):
    n = width * depth
    order = list(range(1, n + 1))
    rng.shuffle(order)
    rules = []
    for _ in range(m):
        lay = rng.randrange(depth - 1)
        rules.append(
            (order[lay * width + rng.randrange(width)], order[(lay + 1) * width + rng.randrange(width)])
        )
    rng.shuffle(rules)
    return n, rules


def generate(rng):
    tests = [
        ("s01_single", _fmt(1, [])),
        ("s02_self", _fmt(1, [(1, 1)])),
        ("s03_pair", _fmt(2, [(2, 1)])),
        ("s04_example", _fmt(5, [(1, 2), (2, 3), (1, 4), (5, 3)])),
        ("s05_backwards", _fmt(4, [(3, 4), (2, 3), (1, 2)])),
        ("s06_cycle", _fmt(3, [(1, 2), (2, 3), (3, 1)])),
        ("s07_repeats", _fmt(3, [(1, 3), (1, 3), (2, 3)])),
    ]
    tests.append(("m00_dag", _fmt(8, _dag(rng, 8, 10, True))))
    tests.append(("m01_dag", _fmt(50, _dag(rng, 50, 70))))
    tests.append(("m02_chain", _fmt(40, _chain_dag(rng, 40, 30))))
    tests.append(("m03_cycle", _fmt(50, _with_cycle(rng, 50, 60))))
    tests.append(("l01_dag", _fmt(200, _dag(rng, 200, 300, True))))
    tests.append(("l02_chain", _fmt(150, _chain_dag(rng, 150, 150))))
    tests.append(("l03_cycle", _fmt(200, _with_cycle(rng, 200, 300))))
    tests.append(("l04_layers", _fmt(*_layers(rng, 20, 10, 300))))
    tests.append(("x01_dag", _fmt(3000, _dag(rng, 3000, 3000))))
    tests.append(("x02_chain", _fmt(1500, _chain_dag(rng, 1500, 2500, True))))
    tests.append(("x03_cycle", _fmt(3000, _with_cycle(rng, 3000, 3000))))
    tests.append(("x04_layers", _fmt(*_layers(rng, 100, 40, 5000))))
    tests.append(("y01_dag", _fmt(40000, _dag(rng, 40000, 50000))))
    tests.append(("y02_chain", _fmt(30000, _chain_dag(rng, 30000, 42000))))
    tests.append(("y03_cycle", _fmt(40000, _with_cycle(rng, 40000, 50000))))
    tests.append(("y04_layers", _fmt(*_layers(rng, 200, 300, 60000))))
    return tests
