import sys
from math import hypot


def main():
    data = sys.stdin.read().split()
    n = int(data[0])
    xs = [int(data[1 + 2 * i]) for i in range(n)]
    ys = [int(data[2 + 2 * i]) for i in range(n)]
    pts = list(zip(xs, ys, strict=True))

    def reach(cx, cy):
        return max(hypot(x - cx, y - cy) for x, y in pts)

    def best_for_x(cx):
        lo, hi = min(ys), max(ys)
        for _ in range(80):  # the farthest distance is convex in the centre: ternary search
            m1, m2 = lo + (hi - lo) / 3, hi - (hi - lo) / 3
            if reach(cx, m1) < reach(cx, m2):
                hi = m2
            else:
                lo = m1
        return reach(cx, (lo + hi) / 2)

    lo, hi = min(xs), max(xs)
    for _ in range(80):
        m1, m2 = lo + (hi - lo) / 3, hi - (hi - lo) / 3
        if best_for_x(m1) < best_for_x(m2):
            hi = m2
        else:
            lo = m1
    print(f"{best_for_x((lo + hi) / 2):.6f}")


main()
