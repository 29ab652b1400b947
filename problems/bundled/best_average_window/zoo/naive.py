n, k = map(int, input().split())
a = list(map(int, input().split()))
best = max(sum(a[i : i + k]) for i in range(n - k + 1))
print("%.9f" % (best / k))
