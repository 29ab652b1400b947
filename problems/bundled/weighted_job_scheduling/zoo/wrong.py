import sys
from bisect import bisect_left

data = sys.stdin.read().split()
n = int(data[0])
jobs = sorted((int(data[2 + 3 * i]), int(data[1 + 3 * i]), int(data[3 + 3 * i])) for i in range(n))
ends = [e for e, _, _ in jobs]
best = [0] * (n + 1)
for k in range(1, n + 1):
    e, s, p = jobs[k - 1]
    j = bisect_left(ends, s, 0, k - 1)  # treats a slot ending exactly at s as overlapping
    best[k] = max(best[k - 1], best[j] + p)
print(best[n])
