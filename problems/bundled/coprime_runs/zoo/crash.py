import sys
from math import gcd


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    a = list(map(int, data[1 : 1 + n]))
    levels = n.bit_length() - 1  # one level short: lengths >= 2^levels cannot be queried
    table = [a]
    for j in range(1, levels):
        prev, half = table[-1], 1 << (j - 1)
        table.append([gcd(prev[i], prev[i + half]) for i in range(n - (1 << j) + 1)])

    def run_gcd(lo, hi):
        k = (hi - lo + 1).bit_length() - 1
        return gcd(table[k][lo], table[k][hi - (1 << k) + 1])

    total = 0
    for r in range(n):
        if run_gcd(0, r) != 1:
            continue
        lo, hi = 0, r  # the largest left end whose run to r still has gcd 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if run_gcd(mid, r) == 1:
                lo = mid
            else:
                hi = mid - 1
        total += lo + 1
    print(total)


main()
