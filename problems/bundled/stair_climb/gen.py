import json


def _fmt(n, k, cracked):
    return f"{n}\n{k}\n" + json.dumps(cracked, separators=(",", ":")) + "\n"


def _case(rng, n, k, density):
    cracked = [s for s in range(1, n) if rng.random() < density]
    rng.shuffle(cracked)
    return n, k, cracked


def generate(rng):
    tests = [
        ("s01_one", _fmt(1, 1, [])),
        ("s02_example", _fmt(5, 2, [2])),
        ("s03_blocked", _fmt(4, 1, [3])),
        ("s04_big_k", _fmt(6, 6, [1, 5])),
        ("s05_free", _fmt(10, 3, [])),
        ("s06_wall", _fmt(7, 2, [3, 4])),
    ]
    tests.append(("m01_small", _fmt(*_case(rng, 60, 4, 0.2))))
    tests.append(("m02_small", _fmt(*_case(rng, 120, 10, 0.1))))
    tests.append(("m03_dense", _fmt(*_case(rng, 80, 5, 0.5))))
    tests.append(("l01_mid", _fmt(*_case(rng, 1500, 30, 0.1))))
    tests.append(("l02_mid", _fmt(*_case(rng, 2000, 12, 0.05))))
    tests.append(("l03_dense", _fmt(*_case(rng, 1000, 40, 0.5))))
    tests.append(("l04_mid", _fmt(*_case(rng, 3000, 25, 0.15))))
    tests.append(("x01_large", _fmt(*_case(rng, 20000, 60, 0.1))))
    tests.append(("x02_large", _fmt(*_case(rng, 30000, 20, 0.05))))
    tests.append(("x03_dense", _fmt(*_case(rng, 15000, 80, 0.4))))
    tests.append(("y01_huge", _fmt(*_case(rng, 300000, 50000, 0.2))))
    tests.append(("y02_huge", _fmt(*_case(rng, 250000, 150000, 0.1))))
    tests.append(("y03_dense", _fmt(*_case(rng, 200000, 20000, 0.5))))
    tests.append(("y04_long_k", _fmt(*_case(rng, 300000, 300000, 0.05))))
    tests.append(("y05_dense", _fmt(*_case(rng, 300000, 100000, 0.3))))
    return tests
