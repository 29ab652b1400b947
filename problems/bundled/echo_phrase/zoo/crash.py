import sys


def main():
    s = sys.stdin.readline().strip()
    n = len(s)
    # sort the suffixes, then the answer is the longest common prefix of two neighbours
    order = sorted(range(n), key=lambda i: s[i:])
    lcps = []
    for a, b in zip(order, order[1:], strict=False):
        k = 0
        while a + k < n and b + k < n and s[a + k] == s[b + k]:
            k += 1
        lcps.append((k, a, b))
    best, a, b = max(lcps)  # no neighbours when |s| = 1: max() of an empty list
    print(best)
    if best:
        print(a + 1, b + 1)


main()
