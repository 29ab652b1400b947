import sys
from itertools import accumulate


def main():
    data = sys.stdin.buffer.read().split()
    n, q = int(data[0]), int(data[1])
    prefix = [0, *accumulate(map(int, data[2 : 2 + n]))]
    bounds = list(map(int, data[2 + n : 2 + n + 2 * q]))
    out = [prefix[bounds[2 * j + 1]] - prefix[bounds[2 * j] - 1] for j in range(q)]
    if out:
        sys.stdout.write("\n".join(map(str, out)) + "\n")


main()
