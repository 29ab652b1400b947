import sys
from math import gcd


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    a = list(map(int, data[1 : 1 + n]))
    total = 0
    # gcds of the runs ending at the current gear: (gcd, number of left ends giving it);
    # there are at most ~30 distinct values, each dividing the next
    runs = []
    for x in a:
        nxt = []
        for g, c in runs:
            g = gcd(g, x)
            if nxt and nxt[-1][0] == g:
                nxt[-1][1] += c
            else:
                nxt.append([g, c])
        if nxt and nxt[-1][0] == x:
            nxt[-1][1] += 1
        else:
            nxt.append([x, 1])
        runs = nxt
        if runs[0][0] == 1:
            total += runs[0][1]
    print(total)


main()
