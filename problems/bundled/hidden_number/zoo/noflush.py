import sys

# never flushes: its first try stays in its buffer while both sides wait for the other
n = int(sys.stdin.readline())
lo, hi = 1, n
while True:
    mid = (lo + hi) // 2
    sys.stdout.write(f"? {mid}\n")
    reply = sys.stdin.readline().strip()
    if reply == "=":
        sys.stdout.write(f"! {mid}\n")
        break
    if reply == "<":
        hi = mid - 1
    else:
        lo = mid + 1
