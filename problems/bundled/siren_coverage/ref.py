import random
import sys
from math import hypot


def circle2(a, b):
    cx, cy = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2
    return cx, cy, hypot(a[0] - cx, a[1] - cy)


def circle3(a, b, c):
    ax, ay = a
    bx, by = b[0] - ax, b[1] - ay
    cx, cy = c[0] - ax, c[1] - ay
    d = 2 * (bx * cy - by * cx)
    if d == 0:  # collinear: the two farthest apart span the circle
        return max((circle2(a, b), circle2(a, c), circle2(b, c)), key=lambda t: t[2])
    b2, c2 = bx * bx + by * by, cx * cx + cy * cy
    ux = (cy * b2 - by * c2) / d
    uy = (bx * c2 - cx * b2) / d
    return ax + ux, ay + uy, hypot(ux, uy)


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    pts = list({(int(data[1 + 2 * i]), int(data[2 + 2 * i])) for i in range(n)})
    pts.sort()
    random.Random(20240611).shuffle(pts)  # a fixed shuffle: expected linear time, same output every run
    eps = 1e-7

    def outside(p, c):
        return hypot(p[0] - c[0], p[1] - c[1]) > c[2] + eps

    # Welzl's incremental algorithm
    c = (pts[0][0], pts[0][1], 0.0)
    for i in range(1, len(pts)):
        p = pts[i]
        if not outside(p, c):
            continue
        c = (p[0], p[1], 0.0)
        for j in range(i):
            q = pts[j]
            if not outside(q, c):
                continue
            c = circle2(p, q)
            for k in range(j):
                if outside(pts[k], c):
                    c = circle3(p, q, pts[k])
    print(f"{c[2]:.6f}")


main()
