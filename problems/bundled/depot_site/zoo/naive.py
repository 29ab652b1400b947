import sys


def main():
    data = sys.stdin.read().split()
    n = int(data[0])
    w = [0] + [int(x) for x in data[1 : 1 + n]]
    adj = [[] for _ in range(n + 1)]
    for j in range(n - 1):
        u, v, ln = int(data[1 + n + 3 * j]), int(data[2 + n + 3 * j]), int(data[3 + n + 3 * j])
        adj[u].append((v, ln))
        adj[v].append((u, ln))
    best, best_cost = 0, -1
    for d in range(1, n + 1):  # walk the whole tree from every candidate site
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
        if best_cost < 0 or cost < best_cost:
            best, best_cost = d, cost
    print(best, best_cost)


main()
