def _fmt(k, masks):
    return f"{len(masks)} {k}\n" + "".join(format(m, f"0{k}b") + "\n" for m in masks)


def _random(rng, n, k, p_one):
    return [sum(1 << b for b in range(k) if rng.random() < p_one) for _ in range(n)]


def _with_full(rng, n, k, p_one, full_share):
    full = (1 << k) - 1
    return [full if rng.random() < full_share else m for m in _random(rng, n, k, p_one)]


def _halves(rng, n, k):
    # participants mostly know one half of the skills and a little of the other
    lo = (1 << (k // 2)) - 1
    hi = ((1 << k) - 1) ^ lo
    out = []
    for _ in range(n):
        base = lo if rng.random() < 0.5 else hi
        out.append(base | sum(1 << b for b in range(k) if rng.random() < 0.15))
    return out


def generate(rng):
    tests = [
        ("s01_one", _fmt(1, [1])),
        ("s02_single_full", _fmt(3, [7])),
        ("s03_example", _fmt(3, [0b110, 0b011, 0b111, 0b001])),
        ("s04_fulls", _fmt(2, [3, 3, 3])),
        ("s05_none", _fmt(4, [0b0001, 0b0011, 0b0010])),
        ("s06_mixed", _fmt(2, [1, 2, 3, 0, 2])),
    ]
    tests.append(("m01_random", _fmt(5, _random(rng, 10, 5, 0.6))))
    tests.append(("m02_full", _fmt(4, _with_full(rng, 15, 4, 0.5, 0.2))))
    tests.append(("m03_halves", _fmt(8, _halves(rng, 30, 8))))
    tests.append(("l01_random", _fmt(10, _random(rng, 150, 10, 0.55))))
    tests.append(("l02_full", _fmt(12, _with_full(rng, 200, 12, 0.7, 0.05))))
    tests.append(("l03_halves", _fmt(14, _halves(rng, 300, 14))))
    tests.append(("x01_random", _fmt(16, _random(rng, 2000, 16, 0.6))))
    tests.append(("x02_full", _fmt(16, _with_full(rng, 2500, 16, 0.75, 0.02))))
    tests.append(("x03_halves", _fmt(16, _halves(rng, 3000, 16))))
    tests.append(("y01_random", _fmt(16, _random(rng, 30000, 16, 0.6))))
    tests.append(("y02_full", _fmt(16, _with_full(rng, 35000, 16, 0.8, 0.01))))
    tests.append(("y03_halves", _fmt(16, _halves(rng, 35000, 16))))
    tests.append(("y04_small_k", _fmt(9, _with_full(rng, 60000, 9, 0.5, 0.01))))
    return tests
