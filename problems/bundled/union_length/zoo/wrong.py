import sys

data = sys.stdin.read().split()
n = int(data[0])
iv = sorted((int(data[1 + 2 * i]), int(data[2 + 2 * i])) for i in range(n))
total = parts = 0
cur = None
for lo, r in iv:
    if cur and lo < cur[1]:  # touching stretches are counted as separate parts
        cur[1] = max(cur[1], r)
    else:
        if cur:
            total += cur[1] - cur[0]
        cur = [lo, r]
        parts += 1
if cur:
    total += cur[1] - cur[0]
print(total, parts)
