import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    w = [0] + [int(x) for x in data[1 : 1 + n]]
    adj = [[] for _ in range(n + 1)]
    pos = 1 + n
    for _ in range(n - 1):
        u, v, ln = int(data[pos]), int(data[pos + 1]), int(data[pos + 2])
        pos += 3
        adj[u].append((v, ln))
        adj[v].append((u, ln))
    # iterative DFS from village 1: parent, edge length to parent, visiting order
    parent = [0] * (n + 1)
    up_len = [0] * (n + 1)
    depth = [0] * (n + 1)
    order = []
    seen = bytearray(n + 1)
    seen[1] = 1
    stack = [1]
    while stack:
        u = stack.pop()
        order.append(u)
        for v, ln in adj[u]:
            if not seen[v]:
                seen[v] = 1
                parent[v] = u
                up_len[v] = ln
                depth[v] = depth[u] + ln
                stack.append(v)
    # weight of each subtree
    sub = w[:]
    for u in reversed(order):
        if u != 1:
            sub[parent[u]] += sub[u]
    total = sub[1]
    cost = [0] * (n + 1)
    cost[1] = sum(w[i] * depth[i] for i in range(1, n + 1))
    # moving the depot from parent p to child c over a road of length L: the sub[c] deliveries in
    # c's subtree get L shorter, the other total - sub[c] get L longer
    for u in order:
        if u != 1:
            cost[u] = cost[parent[u]] + up_len[u] * (total - 2 * sub[u])
    best = min(range(1, n + 1), key=lambda i: (cost[i], i))
    print(best, cost[best])


main()
