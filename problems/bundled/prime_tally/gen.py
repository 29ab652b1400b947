def _queries(rng, q, maxr, span):
    out = []
    for _ in range(q):
        length = rng.randint(0, span)
        left = rng.randint(1, max(1, maxr - length))
        out.append((left, min(maxr, left + length)))
    # the largest bound always appears, and ranges starting at 1 (where 1 must not be counted)
    out[rng.randrange(q)] = (rng.randint(1, maxr), maxr)
    out[rng.randrange(q)] = (1, rng.randint(1, maxr))
    return out


def _fmt(qs):
    return f"{len(qs)}\n" + "".join(f"{a} {b}\n" for a, b in qs)


def generate(rng):
    tests = [
        ("s01_one", _fmt([(1, 1)])),
        ("s02_two", _fmt([(2, 2)])),
        ("s03_example", _fmt([(1, 10), (11, 11), (14, 16)])),
        ("s04_small", _fmt([(1, 2), (4, 4), (1, 30), (29, 31)])),
        ("s05_random", _fmt(_queries(rng, 6, 60, 30))),
    ]
    for i in range(3):
        tests.append((f"m0{i + 1}_random", _fmt(_queries(rng, 60 + 20 * i, 1000, 300))))
    for i in range(3):
        tests.append((f"l0{i + 1}_random", _fmt(_queries(rng, 700 + 100 * i, 5000, 2000))))
    for i in range(3):
        tests.append((f"x0{i + 1}_random", _fmt(_queries(rng, 5000 + 1000 * i, 200000, 100000))))
    tests.append(("x04_wide", _fmt(_queries(rng, 6000, 1000000, 1000000))))
    for i in range(3):
        tests.append((f"y0{i + 1}_random", _fmt(_queries(rng, 30000 + 5000 * i, 5000000, 5000000))))
    tests.append(("y04_short", _fmt(_queries(rng, 35000, 5000000, 50))))
    return tests
