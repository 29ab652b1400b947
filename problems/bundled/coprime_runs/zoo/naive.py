import sys
from math import gcd


def main():
    data = sys.stdin.read().split()
    n = int(data[0])
    a = list(map(int, data[1 : 1 + n]))
    total = 0
    for left in range(n):
        g = 0
        for right in range(left, n):
            g = gcd(g, a[right])
            if g == 1:  # every longer run from `left` has gcd 1 too
                total += n - right
                break
    print(total)


main()
