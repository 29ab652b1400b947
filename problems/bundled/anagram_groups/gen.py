def _fmt(words):
    return f"{len(words)}\n" + " ".join(words) + "\n"


def _scramble(rng, w):
    chars = list(w)
    rng.shuffle(chars)
    return "".join(chars)


def _word(rng, lo, hi, alphabet):
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(lo, hi)))


def _groups(rng, n, bases, lo, hi, alphabet):
    # `bases` base words, each tag a scramble of one of them (skewed towards the first ones)
    base = [_word(rng, lo, hi, alphabet) for _ in range(bases)]
    return [_scramble(rng, base[min(bases - 1, int(rng.expovariate(3 / bases)))]) for _ in range(n)]


def _multiset_trap(rng, n):
    # words over few letters with the same letter set but different counts
    return [_word(rng, 3, 6, "ab") for _ in range(n)]


ALPHA = "abcdefghijklmnopqrstuvwxyz"


def generate(rng):
    tests = [
        ("s01_one", _fmt(["a"])),
        ("s02_same", _fmt(["ab", "ba", "ab"])),
        ("s03_counts", _fmt(["aab", "abb", "bab"])),
        ("s04_example", _fmt(["tea", "eat", "bat", "ate", "tab", "zoo"])),
        ("s05_zed", _fmt(["z", "zz", "z"])),
    ]
    tests.append(("m01_groups", _fmt(_groups(rng, 20, 5, 2, 6, ALPHA))))
    tests.append(("m02_trap", _fmt(_multiset_trap(rng, 25))))
    tests.append(("m03_distinct", _fmt([_word(rng, 4, 8, ALPHA) for _ in range(15)])))
    tests.append(("l01_groups", _fmt(_groups(rng, 200, 60, 3, 10, ALPHA))))
    tests.append(("l02_trap", _fmt(_multiset_trap(rng, 250))))
    tests.append(("l03_distinct", _fmt([_word(rng, 5, 12, ALPHA) for _ in range(150)])))
    tests.append(("x01_groups", _fmt(_groups(rng, 2000, 500, 3, 10, ALPHA))))
    tests.append(("x02_trap", _fmt([_word(rng, 4, 9, "abc") for _ in range(2000)])))
    tests.append(("x03_distinct", _fmt([_word(rng, 5, 12, ALPHA) for _ in range(1200)])))
    tests.append(("y01_groups", _fmt(_groups(rng, 80000, 30000, 3, 12, ALPHA))))
    tests.append(("y02_distinct", _fmt([_word(rng, 6, 12, ALPHA) for _ in range(60000)])))
    tests.append(("y03_trap", _fmt([_word(rng, 5, 12, "abcd") for _ in range(70000)])))
    tests.append(("y04_groups", _fmt(_groups(rng, 100000, 6000, 1, 8, ALPHA))))
    return tests
