R, C = map(int, input().split())
g = [input() for _ in range(R)]
INF = float("inf")
dist = [[INF] * C for _ in range(R)]
for r in range(R):
    for c in range(C):
        if g[r][c] == "S":
            dist[r][c] = 0
        if g[r][c] == "E":
            er, ec = r, c
# relax every cell until nothing changes
changed = True
while changed:
    changed = False
    for r in range(R):
        for c in range(C):
            if g[r][c] == "#":
                continue
            best = dist[r][c]
            for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                nr, nc = r + dr, c + dc
                if 0 <= nr < R and 0 <= nc < C and dist[nr][nc] + 1 < best:
                    best = dist[nr][nc] + 1
            if best < dist[r][c]:
                dist[r][c] = best
                changed = True
print(dist[er][ec] if dist[er][ec] != INF else -1)
