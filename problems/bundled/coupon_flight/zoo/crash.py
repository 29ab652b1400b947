import sys
from heapq import heappop, heappush


def dijkstra(n, adj, src):
    dist = [float("inf")] * (n + 1)
    dist[src] = 0
    heap = [(0, src)]
    while heap:
        d, u = heappop(heap)
        if d > dist[u]:
            continue
        for v, c in adj[u]:
            if d + c < dist[v]:
                dist[v] = d + c
                heappush(heap, (d + c, v))
    return dist


def main():
    data = sys.stdin.buffer.read().split()
    n, m = int(data[0]), int(data[1])
    fwd = [[] for _ in range(n + 1)]
    rev = [[] for _ in range(n + 1)]
    edges = []
    for j in range(m):
        u, v, c = int(data[2 + 3 * j]), int(data[3 + 3 * j]), int(data[4 + 3 * j])
        fwd[u].append((v, c))
        rev[v].append((u, c))
        edges.append((u, v, c))
    a = dijkstra(n, fwd, 1)
    b = dijkstra(n, rev, n)
    best = min([a[n]] + [a[u] + c // 2 + b[v] for u, v, c in edges])
    print(int(best))  # infinity when n is unreachable: OverflowError


main()
