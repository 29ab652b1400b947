import sys


def height(i):
    print("?", i, flush=True)
    return int(sys.stdin.readline())


n = int(sys.stdin.readline())
lo, hi = 1, n  # the summit is in [lo, hi]
while lo < hi:
    mid = (lo + hi) // 2
    if height(mid) < height(mid + 1):
        lo = mid + 1
    else:
        hi = mid
print("!", lo, flush=True)
