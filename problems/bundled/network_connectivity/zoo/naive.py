from collections import deque

n, q = map(int, input().split())
adj = [[] for _ in range(n + 1)]
for _ in range(q):
    c, u, v = input().split()
    u, v = int(u), int(v)
    if c == "+":
        adj[u].append(v)
        adj[v].append(u)
        continue
    # a fresh search from u for every question
    seen = {u}
    dq = deque([u])
    while dq and v not in seen:
        x = dq.popleft()
        for y in adj[x]:
            if y not in seen:
                seen.add(y)
                dq.append(y)
    print("YES" if v in seen else "NO")
