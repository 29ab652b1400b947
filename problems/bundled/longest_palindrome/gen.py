"""Tests for longest_palindrome: edge cases (one letter, even-length answers, ties), random texts over
small alphabets, and repetitive texts (one letter, a short period, embedded long palindromes) where
expanding around every centre is quadratic. The largest texts have 2-3*10^5 letters."""


def _random(rng, n, alphabet):
    return "".join(rng.choice(alphabet) for _ in range(n))


def _embedded(rng, n, alphabet, length):
    half = _random(rng, length // 2, alphabet)
    pal = half + rng.choice(["", rng.choice(alphabet)]) + half[::-1]
    rest = n - len(pal)
    cut = rng.randint(0, rest)
    return _random(rng, cut, alphabet) + pal + _random(rng, rest - cut, alphabet)


def _periodic(rng, n, period):
    unit = _random(rng, period, "abc")
    return (unit * (n // period + 1))[:n]


def generate(rng):
    tests = [
        ("01_one_letter", "q"),
        ("02_two_same", "zz"),
        ("03_even", "abba"),
        ("04_tie", "abacdc"),
        ("05_example", "xabbaxcbaab"),
        ("06_none_longer", "abcdef"),
    ]
    for i, n in enumerate([20, 30, 40]):
        tests.append((f"10_small_{i}", _random(rng, n, "ab")))
    for i, n in enumerate([300, 500]):
        tests.append((f"20_medium_{i}", _random(rng, n, "abc")))
    tests.append(("21_medium_embedded", _embedded(rng, 400, "abcdefgh", 150)))
    tests.append(("22_medium_same", "a" * 350))
    for i, n in enumerate([2000, 3000]):
        tests.append((f"30_large_{i}", _random(rng, n, "ab")))
    tests.append(("31_large_periodic", _periodic(rng, 2500, 3)))
    tests.append(("32_large_embedded", _embedded(rng, 3000, "xyz", 2000)))
    tests.append(("40_larger_random", _random(rng, 40000, "abcd")))
    tests.append(("41_larger_same", "b" * 30000))
    tests.append(("50_huge_random", _random(rng, 300000, "ab")))
    tests.append(("51_huge_embedded", _embedded(rng, 250000, "abcdefghijklmnopqrstuvwxyz", 120000)))
    tests.append(("52_huge_periodic", _periodic(rng, 200000, 2)))
    return [(name, text + "\n") for name, text in tests]
