import sys
from collections import deque


def main():
    data = sys.stdin.buffer.read().split()
    n, k = int(data[0]), int(data[1])
    p = list(map(int, data[2 : 2 + n]))
    dq = deque()
    out = []
    for i, x in enumerate(p):
        while dq and p[dq[-1]] <= x:
            dq.pop()
        dq.append(i)
        if dq[0] < i - k:  # lets the front stay one minute too long
            dq.popleft()
        if i >= k - 1:
            out.append(p[dq[0]])
    sys.stdout.write(" ".join(map(str, out)) + "\n")


main()
