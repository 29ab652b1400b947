from collections import deque

R, C = map(int, input().split())
g = [input() for _ in range(R)]
for r in range(R):
    for c in range(C):
        if g[r][c] == "S":
            s = (r, c)
dist = {s: 0}
q = deque([s])
ans = -1
while q:
    r, c = q.popleft()
    if g[r][c] == "E":
        ans = dist[(r, c)]
        break
    for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        nr, nc = r + dr, c + dc
        # no check for nc >= 0: stepping left off column 0 wraps to the last column
        if 0 <= nr < R and nc < C and g[nr][nc] != "#":
            nc %= C
            if (nr, nc) not in dist:
                dist[(nr, nc)] = dist[(r, c)] + 1
                q.append((nr, nc))
print(ans)
