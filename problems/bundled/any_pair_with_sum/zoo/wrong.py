n, s = map(int, input().split())
a = list(map(int, input().split()))
where = {v: i for i, v in enumerate(a)}
for i, v in enumerate(a):
    j = where.get(s - v)
    if j is not None:  # may be the same token when v == s - v
        print(min(i, j) + 1, max(i, j) + 1)
        break
else:
    print(-1)
