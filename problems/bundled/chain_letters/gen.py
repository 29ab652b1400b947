def _fmt(queries):
    return f"{len(queries)}\n" + "".join(f"{a} {b} {m}\n" for a, b, m in queries)


def _query(rng, max_a, max_b, max_m):
    kind = rng.random()
    if kind < 0.15:
        m = rng.randint(1, max_m)
        a = rng.choice([0, 1, m + 1, 2 * m + 1]) if max_a > 2 * m + 1 else rng.choice([0, 1])
    else:
        m = rng.randint(1, max_m)
        if rng.random() < 0.5:  # a composite modulus sharing factors with a - 1
            g = rng.choice([2, 3, 4, 6, 10, 12])
            m = max(1, m // g * g)
            a = 1 + g * rng.randint(0, max(0, (max_a - 1) // g))
        else:
            a = rng.randint(0, max_a)
    return a, rng.randint(0, max_b), m


def generate(rng):
    tests = [
        ("s01_one", _fmt([(5, 0, 1)])),
        ("s02_example", _fmt([(2, 3, 100), (3, 2, 10), (1, 999, 7)])),
        ("s03_zero_base", _fmt([(0, 0, 5), (0, 7, 5)])),
        ("s04_composite", _fmt([(5, 3, 12), (7, 4, 9)])),
        ("s05_prime", _fmt([(2, 10, 13), (10, 5, 7)])),
    ]
    tests.append(("m01_small", _fmt([_query(rng, 20, 30, 50) for _ in range(4)])))
    tests.append(("m02_small", _fmt([_query(rng, 100, 50, 1000) for _ in range(12)])))
    tests.append(("m03_small", _fmt([_query(rng, 10**4, 60, 10**5) for _ in range(20)])))
    tests.append(("l01_mid", _fmt([_query(rng, 10**6, 2000, 10**6) for _ in range(60)])))
    tests.append(("l02_mid", _fmt([_query(rng, 10**9, 500, 10**9) for _ in range(150)])))
    tests.append(("l03_mid", _fmt([_query(rng, 50, 3000, 10**9) for _ in range(80)])))
    tests.append(("x01_big_b", _fmt([_query(rng, 10**9, 10**12, 10**9) for _ in range(600)])))
    tests.append(("x02_big_b", _fmt([_query(rng, 10**6, 10**9, 10**6) for _ in range(800)])))
    tests.append(("x03_big_b", _fmt([_query(rng, 10**9, 10**18, 10**9) for _ in range(500)])))
    tests.append(("y01_huge", _fmt([_query(rng, 10**9, 10**18, 10**9) for _ in range(12000)])))
    tests.append(("y02_huge", _fmt([_query(rng, 10**9, 10**18, 10**9) for _ in range(15000)])))
    tests.append(("y03_small_m", _fmt([_query(rng, 10**9, 10**18, 100) for _ in range(18000)])))
    tests.append(("y04_mixed", _fmt([_query(rng, 10**3, 10**15, 10**9) for _ in range(15000)])))
    return tests
