import sys
from math import hypot


def cross(o, a, b):
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    pts = sorted({(int(data[1 + 2 * i]), int(data[2 + 2 * i])) for i in range(n)})
    if len(pts) == 1:
        print("0.000000")
        return
    # Andrew's monotone chain
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
    for i in range(len(hull)):
        a, b = hull[i - 1], hull[i]
        total += hypot(b[0] - a[0], b[1] - a[1])
    print(f"{total:.6f}")


main()
