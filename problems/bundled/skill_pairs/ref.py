import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, k = int(data[0]), int(data[1])
    size = 1 << k
    full = size - 1
    cnt = [0] * size
    for tok in data[2 : 2 + n]:
        cnt[int(tok, 2)] += 1
    # sup[m] = number of participants whose skills include all of m (sum over supersets)
    sup = cnt[:]
    for b in range(k):
        step = 1 << b
        for base in range(0, size, 2 * step):
            # masks base .. base+step-1 lack bit b; add their partners with bit b set
            lo = sup[base : base + step]
            hi = sup[base + step : base + 2 * step]
            sup[base : base + step] = [x + y for x, y in zip(lo, hi, strict=True)]
    ordered = 0
    for m in range(size):
        if cnt[m]:
            ordered += cnt[m] * sup[full ^ m]
    # every pair {i, j} was counted from both sides; a participant with all skills also paired
    # with themselves once
    ordered -= cnt[full]
    print(ordered // 2)


main()
