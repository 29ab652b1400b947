import sys

data = sys.stdin.read().split()
n, q = int(data[0]), int(data[1])
a = [int(x) for x in data[2 : 2 + n]]
pos = 2 + n
for _ in range(q):
    lo, r = int(data[pos]), int(data[pos + 1])
    pos += 2
    total = 0
    for i in range(lo - 1, r):
        total += a[i]
    print(total)
