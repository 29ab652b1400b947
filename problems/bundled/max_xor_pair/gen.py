import json


def _fmt(codes):
    return json.dumps(codes, separators=(",", ":")) + "\n"


def _random(rng, n, bits):
    return [rng.getrandbits(bits) for _ in range(n)]


def _shared_top(rng, n, bits):
    # the largest codes all share their high bits; the best pair mixes two smaller codes
    top = 1 << (bits - 1)
    big = [top | rng.getrandbits(bits - 6) for _ in range(n // 2)]
    small = [rng.getrandbits(bits - 1) for _ in range(n - n // 2)]
    codes = big + small
    rng.shuffle(codes)
    return codes


def _clustered(rng, n, bits):
    # codes close to two centres: many equal high bits
    c1, c2 = rng.getrandbits(bits), rng.getrandbits(bits)
    return [(c1 if rng.random() < 0.5 else c2) ^ rng.getrandbits(bits // 3) for _ in range(n)]


def generate(rng):
    tests = [
        ("s01_two", _fmt([1, 2])),
        ("s02_zeros", _fmt([0, 0])),
        ("s03_example", _fmt([4, 3, 5])),
        ("s04_equal", _fmt([9, 9, 9])),
        ("s05_mix", _fmt([0, 1, 2, 3, 6, 7])),
        ("s06_not_max", _fmt([16, 15, 14, 9, 17])),
    ]
    tests.append(("m01_random", _fmt(_random(rng, 30, 10))))
    tests.append(("m02_shared", _fmt(_shared_top(rng, 40, 12))))
    tests.append(("m03_cluster", _fmt(_clustered(rng, 50, 15))))
    tests.append(("l01_random", _fmt(_random(rng, 300, 20))))
    tests.append(("l02_shared", _fmt(_shared_top(rng, 300, 25))))
    tests.append(("l03_cluster", _fmt(_clustered(rng, 400, 30))))
    tests.append(("x01_random", _fmt(_random(rng, 3000, 30))))
    tests.append(("x02_shared", _fmt(_shared_top(rng, 3000, 30))))
    tests.append(("x03_cluster", _fmt(_clustered(rng, 3000, 30))))
    tests.append(("y01_random", _fmt(_random(rng, 50000, 30))))
    tests.append(("y02_shared", _fmt(_shared_top(rng, 50000, 30))))
    tests.append(("y03_cluster", _fmt(_clustered(rng, 60000, 30))))
    tests.append(("y04_small", _fmt(_random(rng, 100000, 16))))
    return tests
