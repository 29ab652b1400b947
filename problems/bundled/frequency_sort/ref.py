import sys
from collections import Counter


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    counts = Counter(map(int, data[1 : 1 + n]))
    order = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    out = []
    for value, count in order:
        out.extend([str(value)] * count)
    sys.stdout.write(" ".join(out) + "\n")


main()
