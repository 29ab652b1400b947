import sys
from math import hypot


def cross(o, a, b):
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    pts = sorted({(int(data[1 + 2 * i]), int(data[2 + 2 * i])) for i in range(n)})
    lower, upper = [], []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    hull = lower[:-1] + upper[:-1]
    total = 0.0
    prev = hull[-1]  # empty hull when all trees share one point
    for p in hull:
        total += hypot(p[0] - prev[0], p[1] - prev[1])
        prev = p
    print(f"{total:.6f}")


main()
