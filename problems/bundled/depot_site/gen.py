def _fmt(w, roads):
    return f"{len(w)}\n" + " ".join(map(str, w)) + "\n" + "".join(f"{u} {v} {ln}\n" for u, v, ln in roads)


def _relabel(rng, n, roads):
    perm = list(range(1, n + 1))
    rng.shuffle(perm)
    out = [(perm[u - 1], perm[v - 1], ln) for u, v, ln in roads]
    out = [(v, u, ln) if rng.random() < 0.5 else (u, v, ln) for u, v, ln in out]
    rng.shuffle(out)
    return out


def _random_tree(rng, n, max_len, spread):
    # parent of node i chosen among the last `spread` nodes: small spread gives deep trees
    return [(i, rng.randint(max(1, i - spread), i - 1), rng.randint(1, max_len)) for i in range(2, n + 1)]


def _weights(rng, n, hi, zero_share):
    return [0 if rng.random() < zero_share else rng.randint(1, hi) for _ in range(n)]


def _case(rng, n, max_len, spread, hi, zero_share, relabel=True):
    roads = _random_tree(rng, n, max_len, spread)
    if relabel:
        roads = _relabel(rng, n, roads)
    return _fmt(_weights(rng, n, hi, zero_share), roads)


def _path_from_one(rng, n, max_len):
    # a long path that starts at village 1 (deep for a recursive walk from 1)
    nodes = [1] + rng.sample(range(2, n + 1), n - 1)
    roads = [(nodes[i], nodes[i + 1], rng.randint(1, max_len)) for i in range(n - 1)]
    return _fmt(_weights(rng, n, 5, 0.3), roads)


def generate(rng):
    tests = [
        ("s01_one", _fmt([7], [])),
        ("s02_pair_tie", _fmt([1, 1], [(1, 2, 3)])),
        ("s03_tie_far", _fmt([0, 1, 0, 0, 1], [(1, 5, 2), (5, 2, 2), (2, 3, 1), (3, 4, 1)])),
        ("s04_example", _fmt([3, 1, 0, 2], [(1, 2, 5), (2, 3, 1), (2, 4, 2)])),
        ("s05_zero", _fmt([0, 0, 0], [(3, 1, 4), (2, 3, 9)])),
        ("s06_star", _fmt([1, 2, 3, 4, 5], [(1, 2, 1), (1, 3, 1), (1, 4, 1), (1, 5, 1)])),
    ]
    tests.append(("m01_small", _case(rng, 8, 10, 8, 3, 0.3)))
    tests.append(("m02_ties", _case(rng, 12, 1, 3, 1, 0.5)))
    tests.append(("m03_random", _case(rng, 25, 100, 25, 10, 0.2)))
    tests.append(("m04_random", _case(rng, 40, 1000, 40, 50, 0.2)))
    tests.append(("l01_random", _case(rng, 150, 1000, 150, 1000, 0.1)))
    tests.append(("l02_ties", _case(rng, 200, 2, 5, 1, 0.6)))
    tests.append(("l03_deep", _case(rng, 180, 50, 2, 20, 0.2)))
    tests.append(("x01_random", _case(rng, 1500, 10**6, 1500, 1000, 0.1)))
    tests.append(("x02_path", _path_from_one(rng, 1500, 1000)))
    tests.append(("x03_ties", _case(rng, 2000, 1, 10, 1, 0.5)))
    tests.append(("y01_random", _case(rng, 30000, 10**6, 30000, 1000, 0.1)))
    tests.append(("y02_path", _path_from_one(rng, 30000, 10**6)))
    tests.append(("y03_ties", _case(rng, 40000, 1, 20, 1, 0.5)))
    tests.append(("y04_bushy", _case(rng, 35000, 10**4, 30, 100, 0.3)))
    return tests
