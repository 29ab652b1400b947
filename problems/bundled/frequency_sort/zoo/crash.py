import sys
from collections import Counter

data = sys.stdin.read().split()
n = int(data[0])
cnt = Counter(map(int, data[1:]))
# bucket by count; max() of an empty log fails
buckets = [[] for _ in range(max(cnt.values()) + 1)]
for value, count in cnt.items():
    buckets[count].append(value)
out = []
for count in range(len(buckets) - 1, 0, -1):
    for value in sorted(buckets[count]):
        out.extend([value] * count)
print(*out)
