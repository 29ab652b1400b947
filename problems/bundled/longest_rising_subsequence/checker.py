"""Checker for longest_rising_subsequence: `checker.py <input> <expected> <actual>`; exit 0 accepted,
1 wrong. The expected output supplies the optimal length; any optimal choice of sessions is accepted."""

import sys


def verdict(input_path, expected_path, actual_path):
    data = open(input_path, "rb").read().split()
    n = int(data[0])
    a = [int(x) for x in data[1 : 1 + n]]
    best = int(open(expected_path, "rb").read().split()[0])
    try:
        got = [int(tok) for tok in open(actual_path, "rb").read().split()]
    except ValueError:
        return False
    if not got or got[0] != best or len(got) != best + 1:
        return False
    picks = got[1:]
    if any(not 1 <= i <= n for i in picks):
        return False
    return all(i < j and a[i - 1] < a[j - 1] for i, j in zip(picks, picks[1:], strict=False))


if __name__ == "__main__":
    sys.exit(0 if verdict(*sys.argv[1:4]) else 1)
