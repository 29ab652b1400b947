def _fmt(s, lengths):
    return f"{s}\n{len(lengths)}\n" + " ".join(map(str, lengths)) + "\n"


def _random(rng, n, alphabet):
    return "".join(rng.choice(alphabet) for _ in range(n))


def _periodic(rng, n, block, mutations):
    base = _random(rng, block, "abc")
    chars = list((base * (n // block + 1))[:n])
    for _ in range(mutations):
        i = rng.randrange(n)
        chars[i] = rng.choice("abcz")
    return "".join(chars)


def _fibonacci(n):
    a, b = "a", "ab"
    while len(b) < n:
        a, b = b, b + a
    return b[:n]


def _lengths(rng, n, q):
    out = [rng.randint(1, n) for _ in range(q - 1)] + [n]
    rng.shuffle(out)
    return out


def generate(rng):
    tests = [
        ("s01_one", _fmt("z", [1])),
        ("s02_same", _fmt("aaaa", [1, 2, 3, 4])),
        ("s03_example", _fmt("abcabcaxab", [1, 5, 7, 10])),
        ("s04_nondividing", _fmt("abcab", [5, 4, 3])),
        ("s05_distinct", _fmt("abcd", [4, 2])),
        ("s06_aab", _fmt("aabaab", [2, 3, 5, 6])),
    ]
    tests.append(("m01_periodic", _fmt(_periodic(rng, 60, 7, 1), list(range(1, 61)))))
    tests.append(("m02_fib", _fmt(_fibonacci(55), list(range(1, 56)))))
    tests.append(("m03_random", _fmt(_random(rng, 150, "ab"), _lengths(rng, 150, 40))))
    tests.append(("l01_periodic", _fmt(_periodic(rng, 2000, 13, 3), _lengths(rng, 2000, 150))))
    tests.append(("l02_fib", _fmt(_fibonacci(2500), _lengths(rng, 2500, 200))))
    tests.append(("l03_random", _fmt(_random(rng, 2500, "ab"), _lengths(rng, 2500, 200))))
    tests.append(("l04_same", _fmt("q" * 3000, _lengths(rng, 3000, 100))))
    tests.append(("x01_periodic", _fmt(_periodic(rng, 30000, 101, 5), _lengths(rng, 30000, 3000))))
    tests.append(("x02_fib", _fmt(_fibonacci(40000), _lengths(rng, 40000, 3000))))
    tests.append(("x03_random", _fmt(_random(rng, 40000, "ab"), _lengths(rng, 40000, 3000))))
    tests.append(("y01_periodic", _fmt(_periodic(rng, 200000, 1234, 20), _lengths(rng, 200000, 40000))))
    tests.append(("y02_fib", _fmt(_fibonacci(200000), _lengths(rng, 200000, 40000))))
    tests.append(("y03_random", _fmt(_random(rng, 150000, "abc"), _lengths(rng, 150000, 50000))))
    tests.append(("y04_nested", _fmt(_periodic(rng, 200000, 3, 2), _lengths(rng, 200000, 50000))))
    return tests
