def _fmt(k, a):
    return f"{len(a)} {k}\n" + " ".join(map(str, a)) + "\n"


def _random(rng, n, hi):
    return [rng.randint(-hi, hi) for _ in range(n)]


def _descending(rng, n):
    x = 10**9
    out = []
    for _ in range(n):
        out.append(x)
        x -= rng.randint(0, 20000)
    return out


def generate(rng):
    tests = [
        ("s01_single", _fmt(1, [-7])),
        ("s02_k_eq_n", _fmt(4, [3, 1, 4, 1])),
        ("s03_example", _fmt(3, [2, 9, 4, -1, 3, 3, 8])),
        ("s04_k1", _fmt(1, [5, -2, 5, 0])),
        ("s05_desc", _fmt(2, [9, 8, 7, 6, 5, 4])),
        ("s06_equal", _fmt(3, [4, 4, 4, 4, 4])),
    ]
    for i in range(3):
        n = 40 + 30 * i
        tests.append((f"m0{i + 1}_random", _fmt(rng.randint(1, n), _random(rng, n, 100))))
    tests.append(("m04_desc", _fmt(7, _descending(rng, 60))))
    for i in range(3):
        n = 400 + 200 * i
        tests.append((f"l0{i + 1}_random", _fmt(rng.randint(n // 4, n // 2), _random(rng, n, 10**6))))
    tests.append(("l04_desc", _fmt(200, _descending(rng, 500))))
    for i in range(3):
        n = 5000 + 1000 * i
        tests.append((f"x0{i + 1}_random", _fmt(rng.randint(n // 4, n // 2), _random(rng, n, 10**9))))
    tests.append(("x04_desc", _fmt(2000, _descending(rng, 8000))))
    tests.append(("y01_small_k", _fmt(3, _random(rng, 50000, 10**9))))
    tests.append(("y02_half", _fmt(25000, _random(rng, 50000, 10**9))))
    tests.append(("y03_desc", _fmt(20000, _descending(rng, 45000))))
    tests.append(("y04_third", _fmt(15000, _random(rng, 45000, 10**9))))
    return tests
