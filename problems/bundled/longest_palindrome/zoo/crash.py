s = input().strip()
n = len(s)


def grow(lo, r):
    while lo >= 0 and r < n and s[lo] == s[r]:
        lo -= 1
        r += 1
    return r - lo - 1, lo + 1


odd = max((grow(i, i) for i in range(n)), key=lambda t: (t[0], -t[1]))
even = max((grow(i, i + 1) for i in range(n - 1)), key=lambda t: (t[0], -t[1]))  # none when n == 1
best = max(odd, even, key=lambda t: (t[0], -t[1]))
print(best[0], best[1] + 1)
