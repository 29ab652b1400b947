s = input().strip()
t = "^" + s + "$"
n = len(t)
rad = [0] * n
c = r = 0
for i in range(1, n - 1):  # Manacher without separators: finds only odd-length palindromes
    k = min(r - i, rad[2 * c - i]) if i < r else 0
    while t[i + k + 1] == t[i - k - 1]:
        k += 1
    rad[i] = k
    if i + k > r:
        c, r = i, i + k
best = max(rad)
i = rad.index(best)
print(2 * best + 1, i - best)
