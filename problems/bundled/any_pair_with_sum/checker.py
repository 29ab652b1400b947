"""Checker for any_pair_with_sum: `checker.py <input> <expected> <actual>`; exit 0 accepted, 1 wrong.

The expected output only says whether a pair exists; any valid pair is accepted."""

import sys


def verdict(input_path, expected_path, actual_path):
    data = open(input_path, "rb").read().split()
    n, s = int(data[0]), int(data[1])
    a = data[2 : 2 + n]
    exists = open(expected_path, "rb").read().split() != [b"-1"]
    try:
        got = [int(tok) for tok in open(actual_path, "rb").read().split()]
    except ValueError:
        return False
    if not exists:
        return got == [-1]
    if len(got) != 2:
        return False
    i, j = got
    return 1 <= i < j <= n and int(a[i - 1]) + int(a[j - 1]) == s


if __name__ == "__main__":
    sys.exit(0 if verdict(*sys.argv[1:4]) else 1)
