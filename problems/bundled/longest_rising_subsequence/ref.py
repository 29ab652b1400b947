import sys
from bisect import bisect_left


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    a = list(map(int, data[1 : 1 + n]))
    tails = []  # tails[k]: the smallest last height of a rising choice of k + 1 sessions
    tail_at = []  # index of that session
    prev = [-1] * n
    for i, x in enumerate(a):
        k = bisect_left(tails, x)
        if k == len(tails):
            tails.append(x)
            tail_at.append(i)
        else:
            tails[k] = x
            tail_at[k] = i
        prev[i] = tail_at[k - 1] if k else -1
    picks = []
    i = tail_at[-1]
    while i >= 0:
        picks.append(i + 1)
        i = prev[i]
    picks.reverse()
    sys.stdout.write(f"{len(picks)}\n" + " ".join(map(str, picks)) + "\n")


main()
