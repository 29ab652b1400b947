def _fmt(w):
    assert sum(w) <= 10**6
    return f"{len(w)}\n" + " ".join(map(str, w)) + "\n"


def _random(rng, n, hi):
    return [rng.randint(1, hi) for _ in range(n)]


def _spread(rng, n, total):
    # n weights summing to about `total`, from a skewed distribution (many small, a few big)
    out = []
    left = total
    for i in range(n):
        avg = max(1, left // (n - i))
        w = max(1, min(left - (n - i - 1), int(rng.expovariate(1 / avg)) + 1))
        out.append(w)
        left -= w
    rng.shuffle(out)
    return out


def _multiples(rng, n, base, hi):
    # all weights share a factor except a few, so the reachable set has holes
    out = [base * rng.randint(1, hi) for _ in range(n)]
    for _ in range(3):
        out[rng.randrange(n)] = rng.randint(1, base * hi)
    return out


def generate(rng):
    tests = [
        ("s01_one", _fmt([7])),
        ("s02_twins", _fmt([5, 5])),
        ("s03_example", _fmt([3, 5, 5, 9])),
        ("s04_triplets", _fmt([2, 2, 2, 7, 7, 7])),
        ("s05_ones", _fmt([1] * 6)),
        ("s06_quads", _fmt([4, 4, 4, 4, 1])),
    ]
    tests.append(("m01_random", _fmt(_random(rng, 30, 50))))
    tests.append(("m02_dups", _fmt(_random(rng, 60, 5))))
    tests.append(("m03_mult", _fmt(_multiples(rng, 40, 7, 20))))
    tests.append(("l01_random", _fmt(_random(rng, 300, 300))))
    tests.append(("l02_dups", _fmt(_random(rng, 800, 12))))
    tests.append(("l03_spread", _fmt(_spread(rng, 400, 30000))))
    tests.append(("l04_mult", _fmt(_multiples(rng, 300, 11, 100))))
    tests.append(("x01_random", _fmt(_random(rng, 2000, 800))))
    tests.append(("x02_dups", _fmt(_random(rng, 6000, 30))))
    tests.append(("x03_spread", _fmt(_spread(rng, 4000, 200000))))
    tests.append(("x04_mult", _fmt(_multiples(rng, 3000, 13, 40))))
    tests.append(("y01_spread", _fmt(_spread(rng, 100000, 1000000))))
    tests.append(("y02_dups", _fmt(_random(rng, 60000, 30))))
    tests.append(("y03_spread", _fmt(_spread(rng, 30000, 1000000))))
    tests.append(("y04_mult", _fmt(_multiples(rng, 20000, 3, 25))))
    tests.append(("y05_small", _fmt(_random(rng, 100000, 18))))
    return tests
