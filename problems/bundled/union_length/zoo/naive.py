n = int(input())
parts = []  # disjoint, non-touching [lo, r) parts in no particular order
for _ in range(n):
    lo, r = map(int, input().split())
    keep = []
    for a, b in parts:
        if b < lo or r < a:
            keep.append((a, b))
        else:
            lo, r = min(lo, a), max(r, b)
    keep.append((lo, r))
    parts = keep
print(sum(b - a for a, b in parts), len(parts))
