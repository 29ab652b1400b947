import sys

# stops halving when two candidates are left and guesses the lower one
n = int(sys.stdin.readline())
lo, hi = 1, n
while hi - lo > 1:
    mid = (lo + hi) // 2
    print("?", mid, flush=True)
    reply = sys.stdin.readline().strip()
    if reply == "=":
        lo = hi = mid
    elif reply == "<":
        hi = mid - 1
    else:
        lo = mid + 1
print("!", lo, flush=True)
