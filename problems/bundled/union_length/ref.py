import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    vals = list(map(int, data[1 : 1 + 2 * n]))
    stretches = sorted(zip(vals[0::2], vals[1::2], strict=True))
    total = parts = 0
    cur_l = cur_r = None
    for lo, r in stretches:
        if cur_r is not None and lo <= cur_r:
            if r > cur_r:
                cur_r = r
        else:
            if cur_r is not None:
                total += cur_r - cur_l
            cur_l, cur_r = lo, r
            parts += 1
    if cur_r is not None:
        total += cur_r - cur_l
    print(total, parts)


main()
