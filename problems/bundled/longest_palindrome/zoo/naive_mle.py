s = input().strip()
n = len(s)
# every substring first, then the palindromes among them: ~n^3/6 bytes of text, so memory runs out
# within a few hundred thousand substrings on a large text, long before any time limit
subs = [(i, s[i:j]) for i in range(n) for j in range(i + 1, n + 1)]
best_len, best_start = 0, 0
for i, t in subs:
    if len(t) > best_len and t == t[::-1]:
        best_len, best_start = len(t), i
print(best_len, best_start + 1)
