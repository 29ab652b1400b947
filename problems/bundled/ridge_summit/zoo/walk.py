import sys

# walks east from post 1 until the height falls: a read per post up to the summit
n = int(sys.stdin.readline())
last = None
for i in range(1, n + 1):
    print("?", i, flush=True)
    h = int(sys.stdin.readline())
    if last is not None and h < last:
        print("!", i - 1, flush=True)
        break
    last = h
else:
    print("!", n, flush=True)
