import sys
from math import gcd


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    a = list(map(int, data[1 : 1 + n]))
    total = 0
    runs = []
    for i, x in enumerate(a):
        nxt = []
        for g, c in runs:
            g = gcd(g, x)
            if nxt and nxt[-1][0] == g:
                nxt[-1][1] += c
            else:
                nxt.append([g, c])
        # the run made of gear i alone is started, but only counted from the next gear on
        if i:
            if nxt and nxt[0][0] == 1:
                total += nxt[0][1]
        if nxt and nxt[-1][0] == x:
            nxt[-1][1] += 1
        else:
            nxt.append([x, 1])
        runs = nxt
    print(total)


main()
