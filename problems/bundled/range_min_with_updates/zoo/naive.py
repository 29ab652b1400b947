import sys

data = sys.stdin.read().split()
n, q = int(data[0]), int(data[1])
t = [int(x) for x in data[2 : 2 + n]]
out = []
pos = 2 + n
for _ in range(q):
    kind, a, b = data[pos], int(data[pos + 1]), int(data[pos + 2])
    pos += 3
    if kind == "1":
        t[a - 1] = b
    else:
        out.append(min(t[min(a, b) - 1 : max(a, b)]))
print("\n".join(map(str, out)))
