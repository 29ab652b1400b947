import sys
from heapq import heappop, heappush


def cheapest(n, edges, discounted):
    adj = [[] for _ in range(n + 1)]
    for j, (u, v, c) in enumerate(edges):
        adj[u].append((v, c // 2 if j == discounted else c))
    dist = [None] * (n + 1)
    heap = [(0, 1)]
    while heap:
        d, u = heappop(heap)
        if dist[u] is not None:
            continue
        dist[u] = d
        for v, c in adj[u]:
            if dist[v] is None:
                heappush(heap, (d + c, v))
    return dist[n]


def main():
    data = sys.stdin.read().split()
    n, m = int(data[0]), int(data[1])
    edges = [(int(data[2 + 3 * j]), int(data[3 + 3 * j]), int(data[4 + 3 * j])) for j in range(m)]
    best = cheapest(n, edges, -1)
    for j in range(m):  # try the coupon on every flight
        d = cheapest(n, edges, j)
        if d is not None and (best is None or d < best):
            best = d
    print(-1 if best is None else best)


main()
