import sys

data = sys.stdin.read().split()
n, q = int(data[0]), int(data[1])
parent = list(range(n + 1))


def find(x):
    while parent[x] != x:
        x = parent[x]
    return x


out = []
for j in range(q):
    c, u, v = data[2 + 3 * j], int(data[3 + 3 * j]), int(data[4 + 3 * j])
    if c == "+":
        parent[u] = find(v)  # re-points u itself, not u's root: u's old group is cut off
    else:
        out.append("YES" if find(u) == find(v) else "NO")
print("\n".join(out))
