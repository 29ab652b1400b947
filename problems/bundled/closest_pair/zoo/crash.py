import math
import random
import sys

data = sys.stdin.read().split()
n = int(data[0])
pts = [(int(data[1 + 2 * i]), int(data[2 + 2 * i])) for i in range(n)]
random.shuffle(pts)
d = math.dist(pts[0], pts[1])


def cells(upto):
    grid = {}
    for x, y in pts[:upto]:
        grid.setdefault((int(x // d), int(y // d)), []).append((x, y))  # d == 0 for a repeated spot
    return grid


grid = cells(2)
for i in range(2, n):
    x, y = pts[i]
    cx, cy = int(x // d), int(y // d)
    near = min(
        (
            math.dist((x, y), q)
            for gx in (cx - 1, cx, cx + 1)
            for gy in (cy - 1, cy, cy + 1)
            for q in grid.get((gx, gy), ())
        ),
        default=d,
    )
    if near < d:
        d = near
        grid = cells(i + 1)
    else:
        grid.setdefault((cx, cy), []).append((x, y))
print(f"{d:.9f}")
