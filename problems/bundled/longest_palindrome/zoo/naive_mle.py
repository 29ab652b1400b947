s = input().strip()
n = len(s)
# the textbook table: pal[i][j] is True when s[i..j] is a palindrome; n*n entries
pal = [[False] * n for _ in range(n)]
best_len, best_start = 1, 0
for i in range(n - 1, -1, -1):
    pal[i][i] = True
    for j in range(i + 1, n):
        if s[i] == s[j] and (j - i < 2 or pal[i + 1][j - 1]):
            pal[i][j] = True
            if j - i + 1 > best_len or (j - i + 1 == best_len and i < best_start):
                best_len, best_start = j - i + 1, i
print(best_len, best_start + 1)
