import sys


def main():
    t, p = sys.stdin.read().split()
    m = len(p)
    if m > len(t):
        print(0)
        return
    # Knuth-Morris-Pratt: fail[i] = length of the longest proper border of p[:i + 1]
    fail = [0] * m
    k = 0
    for i in range(1, m):
        c = p[i]
        while k and p[k] != c:
            k = fail[k - 1]
        if p[k] == c:
            k += 1
        fail[i] = k
    count = k = 0
    for c in t:
        while k and p[k] != c:
            k = fail[k - 1]
        if p[k] == c:
            k += 1
            if k == m:
                count += 1
                k = fail[k - 1]
    print(count)


main()
