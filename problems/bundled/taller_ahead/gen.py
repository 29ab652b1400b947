import json


def _line(h):
    return json.dumps(h, separators=(",", ":")) + "\n"


def _random(rng, n, hi):
    return [rng.randint(0, hi) for _ in range(n)]


def _decreasing(rng, n):
    x = 10**9
    out = []
    for _ in range(n):
        out.append(x)
        x -= rng.randint(0, 3)
    return out


def _plateaus(rng, n, hi):
    out = []
    while len(out) < n:
        out.extend([rng.randint(0, hi)] * rng.randint(1, 6))
    return out[:n]


def _sawtooth(rng, n):
    # long descending runs of repeated heights, each ended by one big spike
    out = []
    while len(out) < n:
        top = rng.randint(10**8, 10**9)
        run = rng.randint(2000, 6000)
        out.extend(top - k // 3 for k in range(run))
        out.append(10**9)
    return out[:n]


def generate(rng):
    tests = [
        ("s01_single", _line([7])),
        ("s02_equal", _line([3, 3, 3, 3])),
        ("s03_desc", _line([5, 4, 3, 2, 1])),
        ("s04_asc", _line([1, 2, 3, 4, 5])),
        ("s05_example", _line([4, 2, 3, 4, 1, 7])),
        ("s06_dups", _line([2, 1, 2, 2, 3, 0, 3])),
    ]
    for i, n in enumerate([150, 200]):
        tests.append((f"m0{i + 1}_random", _line(_random(rng, n, 50))))
    tests.append(("m03_plateau", _line(_plateaus(rng, 150, 9))))
    tests.append(("m04_desc", _line(_decreasing(rng, 90))))
    tests.append(("l01_random", _line(_random(rng, 1000, 10**6))))
    tests.append(("l02_plateau", _line(_plateaus(rng, 1500, 30))))
    tests.append(("l03_desc", _line(_decreasing(rng, 900))))
    tests.append(("x01_random", _line(_random(rng, 10000, 10**9))))
    tests.append(("x02_desc", _line(_decreasing(rng, 9000))))
    tests.append(("x03_sawtooth", _line(_sawtooth(rng, 9000))))
    tests.append(("x04_plateau", _line(_plateaus(rng, 12000, 1000))))
    tests.append(("y01_random", _line(_random(rng, 60000, 10**9))))
    tests.append(("y02_desc", _line(_decreasing(rng, 62000))))
    tests.append(("y03_sawtooth", _line(_sawtooth(rng, 60000))))
    tests.append(("y04_plateau", _line(_plateaus(rng, 100000, 10**5))))
    return tests
