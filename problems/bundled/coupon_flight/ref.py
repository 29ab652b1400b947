import sys
from heapq import heappop, heappush


def dijkstra(n, adj, src):
    inf = float("inf")
    dist = [inf] * (n + 1)
    dist[src] = 0
    heap = [(0, src)]
    while heap:
        d, u = heappop(heap)
        if d > dist[u]:
            continue
        for v, c in adj[u]:
            nd = d + c
            if nd < dist[v]:
                dist[v] = nd
                heappush(heap, (nd, v))
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
    from_start = dijkstra(n, fwd, 1)
    to_end = dijkstra(n, rev, n)
    best = from_start[n]
    for u, v, c in edges:
        cand = from_start[u] + c // 2 + to_end[v]
        if cand < best:
            best = cand
    print(-1 if best == float("inf") else int(best))


main()
