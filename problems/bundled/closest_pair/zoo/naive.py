import math

n = int(input())
p = [tuple(map(int, input().split())) for _ in range(n)]
best = float("inf")
for i in range(n):
    xi, yi = p[i]
    for j in range(i + 1, n):
        d = (xi - p[j][0]) ** 2 + (yi - p[j][1]) ** 2
        if d < best:
            best = d
print(f"{math.sqrt(best):.9f}")
