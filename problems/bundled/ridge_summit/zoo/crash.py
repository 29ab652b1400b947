import sys

# keeps the heights in a list indexed from 0 and reads one past its end
n = int(sys.stdin.readline())
heights = []
for i in range(1, min(n, 3) + 1):
    print("?", i, flush=True)
    heights.append(int(sys.stdin.readline()))
best = max(range(n), key=lambda i: heights[i])
print("!", best + 1, flush=True)
