from collections import deque

R, C = map(int, input().split())
g = [input() for _ in range(R)]
start = next((r, c) for r in range(R) for c in range(C) if g[r][c] == "S")
dist = [[-1] * C for _ in range(R)]
dist[start[0]][start[1]] = 0
q = deque([start])
ans = -1
while q:
    r, c = q.popleft()
    if g[r][c] == "E":
        ans = dist[r][c]
        break
    for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        nr, nc = r + dr, c + dc
        if nr >= 0 and 0 <= nc < C and g[nr][nc] != "#" and dist[nr][nc] < 0:  # no nr < R check
            dist[nr][nc] = dist[r][c] + 1
            q.append((nr, nc))
print(ans)
