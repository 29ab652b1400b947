import sys


def smallest_period(t):
    n = len(t)
    border = [0] * n
    k = 0
    for i in range(1, n):
        while k and t[k] != t[i]:
            k = border[k - 1]
        if t[k] == t[i]:
            k += 1
        border[i] = k
    return n - border[n - 1]


def main():
    data = sys.stdin.read().split()
    s = data[0]
    q = int(data[1])
    # recomputes the border table of every queried prefix from scratch
    print(" ".join(str(smallest_period(s[: int(x)])) for x in data[2 : 2 + q]))


main()
