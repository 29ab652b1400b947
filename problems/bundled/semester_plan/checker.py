"""Checker for semester_plan: `python checker.py <input> <expected> <actual>`; exit 0 = accepted, 1 = WA."""

import sys


def reject(msg):
    print(msg)
    sys.exit(1)


def main():
    with open(sys.argv[1], "rb") as f:
        data = f.read().split()
    n, m = int(data[0]), int(data[1])
    with open(sys.argv[2], "rb") as f:
        want = int(f.read().split()[0])
    with open(sys.argv[3], "rb") as f:
        got = f.read().split()
    if not got:
        reject("empty output")
    try:
        values = [int(t) for t in got]
    except ValueError:
        reject("output is not all integers")
    if values[0] != want:
        reject(f"semester count {values[0]}, expected {want}")
    if want == -1:
        if len(values) != 1:
            reject("extra output after -1")
        return
    if len(values) != n + 1:
        reject(f"expected {n} semesters after the count, got {len(values) - 1}")
    sem = [0] + values[1:]
    for i in range(1, n + 1):
        if not 1 <= sem[i] <= want:
            reject(f"course {i}: semester {sem[i]} outside 1..{want}")
    for j in range(m):
        a, b = int(data[2 + 2 * j]), int(data[3 + 2 * j])
        if sem[a] >= sem[b]:
            reject(f"rule {a} {b} broken: semesters {sem[a]} and {sem[b]}")


main()
sys.exit(0)
