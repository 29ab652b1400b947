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
    sub = w[:]
    cost = [0] * (n + 1)

    def down(u, p, depth):
        # subtree weights and the cost of village 1, recursively
        c = w[u] * depth
        for v, ln in adj[u]:
            if v != p:
                c += down(v, u, depth + ln)
                sub[u] += sub[v]
        return c

    def reroot(u, p):
        for v, ln in adj[u]:
            if v != p:
                cost[v] = cost[u] + ln * (sub[1] - 2 * sub[v])
                reroot(v, u)

    cost[1] = down(1, 0, 0)
    reroot(1, 0)
    best = min(range(1, n + 1), key=lambda i: (cost[i], i))
    print(best, cost[best])


main()
