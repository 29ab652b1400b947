import sys


def count_groups(n, adj_edges, is_open):
    seen = [False] * (n + 1)
    groups = 0
    for s in range(1, n + 1):
        if seen[s]:
            continue
        groups += 1
        seen[s] = True
        stack = [s]
        while stack:
            u = stack.pop()
            for v, i in adj_edges[u]:
                if is_open[i] and not seen[v]:
                    seen[v] = True
                    stack.append(v)
    return groups


def main():
    data = sys.stdin.read().split()
    n, m, q = int(data[0]), int(data[1]), int(data[2])
    adj = [[] for _ in range(n + 1)]
    for i in range(m):
        a, b = int(data[3 + 2 * i]), int(data[4 + 2 * i])
        adj[a].append((b, i))
        adj[b].append((a, i))
    is_open = [True] * m
    out = []
    for j in range(q):
        is_open[int(data[3 + 2 * m + j]) - 1] = False
        out.append(count_groups(n, adj, is_open))
    print("\n".join(map(str, out)))


main()
