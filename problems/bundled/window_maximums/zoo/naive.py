import sys


def main():
    data = sys.stdin.read().split()
    n, k = int(data[0]), int(data[1])
    p = list(map(int, data[2 : 2 + n]))
    out = []
    for s in range(n - k + 1):
        best = p[s]
        for j in range(s + 1, s + k):
            if p[j] > best:
                best = p[j]
        out.append(best)
    print(" ".join(map(str, out)))


main()
