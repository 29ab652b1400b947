PRIMES = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37]


def _fmt(a):
    return f"{len(a)}\n" + " ".join(map(str, a)) + "\n"


def _random(rng, n, hi):
    return [rng.randint(1, hi) for _ in range(n)]


def _blocks(rng, n, block_lo, block_hi, hi):
    # runs of multiples of one prime (their gcd stays > 1 for a long time), block after block
    a = []
    while len(a) < n:
        p = rng.choice(PRIMES[:6])
        a.extend(p * rng.randint(1, hi // p) for _ in range(rng.randint(block_lo, block_hi)))
    return a[:n]


def _shared(rng, n, factor, hi, ones):
    # everything shares `factor` except a few plain values (sometimes 1)
    a = [factor * rng.randint(1, hi // factor) for _ in range(n)]
    for _ in range(ones):
        a[rng.randrange(n)] = rng.choice([1, rng.randint(1, hi)])
    return a


def generate(rng):
    tests = [
        ("s01_one", _fmt([1])),
        ("s02_prime", _fmt([7])),
        ("s03_example", _fmt([6, 10, 15, 4, 1])),
        ("s04_ones", _fmt([1, 1, 1])),
        ("s05_even", _fmt([2, 4, 8, 6])),
        ("s06_mix", _fmt([3, 1, 9, 2, 4, 5])),
    ]
    tests.append(("m01_random", _fmt(_random(rng, 20, 30))))
    tests.append(("m02_blocks", _fmt(_blocks(rng, 30, 3, 8, 100))))
    tests.append(("m03_shared", _fmt(_shared(rng, 40, 6, 600, 2))))
    tests.append(("l01_random", _fmt(_random(rng, 300, 50))))
    tests.append(("l02_blocks", _fmt(_blocks(rng, 250, 20, 80, 10**6))))
    tests.append(("l03_shared", _fmt(_shared(rng, 300, 30, 10**6, 3))))
    tests.append(("x01_random", _fmt(_random(rng, 3000, 10**9))))
    tests.append(("x02_blocks", _fmt(_blocks(rng, 2500, 100, 400, 10**9))))
    tests.append(("x03_shared", _fmt(_shared(rng, 1500, 2, 10**9, 0))))
    tests.append(("y01_random", _fmt(_random(rng, 40000, 10**9))))
    tests.append(("y02_blocks", _fmt(_blocks(rng, 60000, 2000, 6000, 10**9))))
    tests.append(("y03_shared", _fmt(_shared(rng, 60000, 210, 10**9, 20))))
    tests.append(("y04_small", _fmt(_random(rng, 100000, 1000))))
    return tests
