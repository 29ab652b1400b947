ALPHA = "abcdefghijklmnopqrstuvwxyz"


def _random(rng, n, alphabet):
    return "".join(rng.choice(alphabet) for _ in range(n))


def _planted(rng, n, piece_len, alphabet):
    # random text with one long piece copied to a second place
    s = list(_random(rng, n, alphabet))
    piece = s[rng.randrange(n - piece_len) :][:piece_len]
    j = rng.randrange(n - piece_len)
    s[j : j + piece_len] = piece
    return "".join(s)


def _fibonacci(n):
    a, b = "a", "ab"
    while len(b) < n:
        a, b = b, b + a
    return b[:n]


def _periodic(rng, n, block):
    base = _random(rng, block, ALPHA)
    s = list((base * (n // block + 1))[:n])
    s[rng.randrange(n)] = "z"
    return "".join(s)


def generate(rng):
    tests = [
        ("s01_one", "q\n"),
        ("s02_distinct", "abcxyz\n"),
        ("s03_two", "aa\n"),
        ("s04_overlap", "aaaa\n"),
        ("s05_example", "banananab\n"),
        ("s06_abab", "abababa\n"),
        ("s07_small", _random(rng, 30, "abc") + "\n"),
    ]
    tests.append(("m01_random", _random(rng, 400, "ab") + "\n"))
    tests.append(("m02_planted", _planted(rng, 600, 80, ALPHA) + "\n"))
    tests.append(("m03_fib", _fibonacci(300) + "\n"))
    tests.append(("m04_periodic", _periodic(rng, 500, 7) + "\n"))
    tests.append(("l01_random", _random(rng, 5000, "abcd") + "\n"))
    tests.append(("l02_planted", _planted(rng, 6000, 900, ALPHA) + "\n"))
    tests.append(("l03_fib", _fibonacci(4000) + "\n"))
    tests.append(("l04_periodic", _periodic(rng, 8000, 31) + "\n"))
    tests.append(("w01_random", _random(rng, 20000, "abc") + "\n"))
    tests.append(("w02_planted", _planted(rng, 30000, 5000, "ab") + "\n"))
    tests.append(("x01_random", _random(rng, 100000, "ab") + "\n"))
    tests.append(("x02_planted", _planted(rng, 90000, 20000, ALPHA) + "\n"))
    tests.append(("x03_fib", _fibonacci(100000) + "\n"))
    tests.append(("x04_same", "m" * 100000 + "\n"))
    tests.append(("x05_random26", _random(rng, 100000, ALPHA) + "\n"))
    return tests
