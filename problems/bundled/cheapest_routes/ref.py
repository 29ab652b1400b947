import sys
from heapq import heappop, heappush


def main():
    data = sys.stdin.buffer.read().split()
    n, m = int(data[0]), int(data[1])
    adj = [[] for _ in range(n + 1)]
    vals = list(map(int, data[2 : 2 + 3 * m]))
    for j in range(0, 3 * m, 3):
        u, v, w = vals[j], vals[j + 1], vals[j + 2]
        adj[u].append((v, w))
        adj[v].append((u, w))
    dist = [-1] * (n + 1)
    heap = [(0, 1)]
    while heap:
        d, u = heappop(heap)
        if dist[u] >= 0:
            continue
        dist[u] = d
        for v, w in adj[u]:
            if dist[v] < 0:
                heappush(heap, (d + w, v))
    sys.stdout.write(" ".join(map(str, dist[1:])) + "\n")


main()
