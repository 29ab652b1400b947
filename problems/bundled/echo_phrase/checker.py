"""Checker for echo_phrase: `python checker.py <input> <expected> <actual>`; exit 0 = accepted, 1 = WA."""

import sys


def reject(msg):
    print(msg)
    sys.exit(1)


def main():
    with open(sys.argv[1], "rb") as f:
        s = f.read().split()[0]
    n = len(s)
    with open(sys.argv[2], "rb") as f:
        want = int(f.read().split()[0])
    with open(sys.argv[3], "rb") as f:
        got = f.read().split()
    try:
        values = [int(t) for t in got]
    except ValueError:
        reject("output is not all integers")
    if not values:
        reject("empty output")
    if values[0] != want:
        reject(f"length {values[0]}, expected {want}")
    if want == 0:
        if len(values) != 1:
            reject("extra output after 0")
        return
    if len(values) != 3:
        reject("expected the length and two positions")
    _, i, j = values
    if i == j:
        reject("the two positions are equal")
    for p in (i, j):
        if not 1 <= p <= n - want + 1:
            reject(f"position {p} out of range")
    if s[i - 1 : i - 1 + want] != s[j - 1 : j - 1 + want]:
        reject("the two pieces differ")


main()
sys.exit(0)
