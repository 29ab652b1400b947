import sys
from heapq import heappop, heappush


def main():
    data = sys.stdin.buffer.read().split()
    n, m = int(data[0]), int(data[1])
    adj = [[] for _ in range(n + 1)]
    for j in range(m):
        u, v, c = int(data[2 + 3 * j]), int(data[3 + 3 * j]), int(data[4 + 3 * j])
        adj[u].append((v, c))
    inf = float("inf")
    dist = [inf] * (n + 1)
    dearest = [0] * (n + 1)  # most expensive flight on the chosen cheapest route
    dist[1] = 0
    heap = [(0, 1)]
    while heap:
        d, u = heappop(heap)
        if d > dist[u]:
            continue
        for v, c in adj[u]:
            if d + c < dist[v]:
                dist[v] = d + c
                dearest[v] = max(dearest[u], c)
                heappush(heap, (d + c, v))
    if dist[n] == inf:
        print(-1)
    else:
        # greedy: halve the dearest flight of the cheapest full-price route
        print(dist[n] - dearest[n] + dearest[n] // 2)


main()
