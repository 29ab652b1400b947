import sys
from collections import Counter


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    counts = Counter(map(int, data[1 : 1 + n]))
    reach = 1
    for v, c in counts.items():
        k = 1
        while c > 0:
            reach |= reach << (v * k)  # takes k copies even when fewer than k are left
            c -= k
            k *= 2
    print(reach.bit_count() - 1)


main()
