"""Tests for pattern_count: edge cases (motif longer than the strand, overlapping occurrences, the
whole strand), random strands over small alphabets, and repetitive strands with long motifs that
almost match everywhere, where comparing the motif at every position letter by letter is quadratic."""


def _case(t, p):
    return f"{t}\n{p}\n"


def _random(rng, n, alphabet):
    return "".join(rng.choice(alphabet) for _ in range(n))


def _planted(rng, n, m, alphabet, copies):
    p = _random(rng, m, alphabet)
    t = list(_random(rng, n, alphabet))
    for _ in range(copies):
        i = rng.randrange(0, n - m + 1)
        t[i : i + m] = p
    return _case("".join(t), p)


def _near_miss(rng, n, m):
    # strand of one letter, motif of the same letter but its last one: no match, long partial matches
    return _case("a" * n, "a" * (m - 1) + "b")


def generate(rng):
    tests = [
        ("01_longer_motif", _case("ab", "abc")),
        ("02_single", _case("a", "a")),
        ("03_overlap", _case("aaaa", "aa")),
        ("04_example", _case("abababa", "aba")),
        ("05_whole", _case("xyzzy", "xyzzy")),
        ("06_absent", _case("abcabc", "cb")),
    ]
    for i, (n, m) in enumerate([(30, 2), (40, 3), (25, 5)]):
        tests.append((f"10_small_{i}", _planted(rng, n, m, "ab", 3)))
    for i, (n, m) in enumerate([(300, 4), (400, 20)]):
        tests.append((f"20_medium_{i}", _planted(rng, n, m, "abc", 5)))
    tests.append(("21_medium_same", _case("a" * 300, "a" * 40)))
    for i, (n, m) in enumerate([(3000, 6), (4000, 200)]):
        tests.append((f"30_large_{i}", _planted(rng, n, m, "ab", 20)))
    tests.append(("31_large_near_miss", _near_miss(rng, 3000, 300)))
    tests.append(("40_larger_planted", _planted(rng, 40000, 1000, "ab", 30)))
    tests.append(("41_larger_near_miss", _near_miss(rng, 30000, 3000)))
    tests.append(("50_huge_same", _case("a" * 400000, "a" * 100000)))
    tests.append(("51_huge_near_miss", _near_miss(rng, 300000, 100000)))
    tests.append(("52_huge_planted", _planted(rng, 500000, 20, "ab", 1000)))
    return tests
