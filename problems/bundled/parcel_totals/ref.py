import sys
from collections import Counter


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    counts = Counter(map(int, data[1 : 1 + n]))
    reach = 1  # bit t set <=> total t is reachable
    for v, c in counts.items():
        # c copies of v as parcels of 1, 2, 4, ... copies and a remainder: every count 0..c is a subset sum
        k = 1
        while c > 0:
            take = min(k, c)
            reach |= reach << (v * take)
            c -= take
            k *= 2
    print(reach.bit_count() - 1)


main()
