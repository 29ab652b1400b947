s = input().strip()
n = len(s)
best_len, best_start = 1, 0
for c in range(2 * n - 1):
    lo, r = c // 2, (c + 1) // 2
    while lo >= 0 and r < n and s[lo] == s[r]:
        lo -= 1
        r += 1
    length = r - lo - 1
    if length > best_len or (length == best_len and lo + 1 < best_start):
        best_len, best_start = length, lo + 1
print(best_len, best_start + 1)
