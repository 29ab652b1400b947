import sys

data = sys.stdin.read().split()
n = int(data[0])
iv = sorted((int(data[1 + 2 * i]), int(data[2 + 2 * i])) for i in range(n))
cur_l, cur_r = iv[0]  # there is no first stretch when n == 0
total, parts = 0, 1
for lo, r in iv[1:]:
    if lo <= cur_r:
        cur_r = max(cur_r, r)
    else:
        total += cur_r - cur_l
        parts += 1
        cur_l, cur_r = lo, r
total += cur_r - cur_l
print(total, parts)
