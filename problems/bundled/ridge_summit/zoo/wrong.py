import sys


def height(i):
    print("?", i, flush=True)
    return int(sys.stdin.readline())


# compares with the post to the west and never considers the last post
n = int(sys.stdin.readline())
lo, hi = 1, max(1, n - 1)
while lo < hi:
    mid = (lo + hi + 1) // 2
    if height(mid - 1) < height(mid):
        lo = mid
    else:
        hi = mid - 1
print("!", lo, flush=True)
