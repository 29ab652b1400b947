import json


def _fmt(positions, k):
    return json.dumps(positions, separators=(",", ":")) + "\n" + str(k) + "\n"


def _pick_k(rng, n):
    total = n * (n - 1) // 2
    r = rng.random()
    if r < 0.2:
        return rng.randint(1, min(total, n))
    if r < 0.4:
        return rng.randint(max(1, total - n), total)
    return rng.randint(1, total)


def _random(rng, n, hi):
    return [rng.randint(0, hi) for _ in range(n)]


def _clustered(rng, n, hi, clusters):
    centres = [rng.randint(0, hi) for _ in range(clusters)]
    return [max(0, min(hi, rng.choice(centres) + rng.randint(-50, 50))) for _ in range(n)]


def _case(rng, positions):
    return _fmt(positions, _pick_k(rng, len(positions)))


def generate(rng):
    tests = [
        ("s01_two", _fmt([5, 5], 1)),
        ("s02_sorted", _fmt([1, 2, 4, 8], 2)),
        ("s03_example", _fmt([10, 1, 4, 6], 3)),
        ("s04_last", _fmt([7, 3, 0], 3)),
        ("s05_dups", _fmt([4, 4, 4, 9], 4)),
    ]
    tests.append(("m01_random", _case(rng, _random(rng, 12, 100))))
    tests.append(("m02_random", _case(rng, _random(rng, 60, 1000))))
    tests.append(("m03_cluster", _case(rng, _clustered(rng, 50, 10**6, 3))))
    tests.append(("l01_random", _case(rng, _random(rng, 300, 10**6))))
    tests.append(("l02_cluster", _case(rng, _clustered(rng, 400, 10**9, 5))))
    tests.append(("l03_dups", _case(rng, _random(rng, 500, 20))))
    tests.append(("x01_random", _case(rng, _random(rng, 4000, 10**9))))
    tests.append(("x02_cluster", _case(rng, _clustered(rng, 4000, 10**9, 20))))
    tests.append(("x03_small_k", _fmt(_random(rng, 3500, 10**9), rng.randint(1, 3000))))
    tests.append(("y01_random", _case(rng, _random(rng, 50000, 10**9))))
    tests.append(("y02_cluster", _fmt(_clustered(rng, 50000, 10**9, 100), rng.randint(1, 10**9))))
    tests.append(("y03_dups", _case(rng, _random(rng, 50000, 1000))))
    tests.append(("y04_large_k", _fmt(_random(rng, 40000, 10**9), 40000 * 39999 // 2 - rng.randint(0, 1000))))
    return tests
