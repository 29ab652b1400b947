import math
import random
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    vals = list(map(int, data[1 : 1 + 2 * n]))
    pts = list(zip(vals[0::2], vals[1::2], strict=True))
    if len(set(pts)) < n:
        print("0.000000000")
        return
    # randomized incremental grid (expected linear time); a fixed seed keeps it deterministic
    random.Random(12345).shuffle(pts)
    best = (pts[0][0] - pts[1][0]) ** 2 + (pts[0][1] - pts[1][1]) ** 2

    def build(upto, size):
        grid = {}
        for x, y in pts[:upto]:
            grid.setdefault((x // size, y // size), []).append((x, y))
        return grid

    size = math.isqrt(best) + 1  # a cell at least as wide as the best distance
    grid = build(2, size)
    for i in range(2, n):
        x, y = pts[i]
        cx, cy = x // size, y // size
        found = best
        for gx in (cx - 1, cx, cx + 1):
            for gy in (cy - 1, cy, cy + 1):
                for px, py in grid.get((gx, gy), ()):
                    d = (px - x) ** 2 + (py - y) ** 2
                    if d < found:
                        found = d
        if found < best:
            best = found
            size = math.isqrt(best) + 1
            grid = build(i + 1, size)
        else:
            grid.setdefault((cx, cy), []).append((x, y))
    print(f"{math.sqrt(best):.9f}")


main()
