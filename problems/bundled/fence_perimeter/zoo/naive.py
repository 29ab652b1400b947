import sys
from math import hypot


def main():
    data = sys.stdin.read().split()
    n = int(data[0])
    pts = list({(int(data[1 + 2 * i]), int(data[2 + 2 * i])) for i in range(n)})
    if len(pts) == 1:
        print(0.0)
        return
    # gift wrapping (Jarvis march): O(n) work per fence corner
    start = min(pts)
    cur = start
    total = 0.0
    while True:
        cand = pts[0] if pts[0] != cur else pts[1]
        for p in pts:
            if p == cur:
                continue
            c = (cand[0] - cur[0]) * (p[1] - cur[1]) - (cand[1] - cur[1]) * (p[0] - cur[0])
            if c < 0 or (
                c == 0
                and (p[0] - cur[0]) ** 2 + (p[1] - cur[1]) ** 2
                > (cand[0] - cur[0]) ** 2 + (cand[1] - cur[1]) ** 2
            ):
                cand = p
        total += hypot(cand[0] - cur[0], cand[1] - cur[1])
        cur = cand
        if cur == start:
            break
    print(f"{total:.6f}")


main()
