from itertools import accumulate

n, k = map(int, input().split())
a = list(map(int, input().split()))
p = list(accumulate(a))
# windows ending at i >= k; when k == n there are none and max() fails
best = max(p[i] - p[i - k] for i in range(k, n))
best = max(best, p[k - 1])
print("%.9f" % (best / k))
