import sys
from bisect import bisect_right


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    vals = list(map(int, data[1 : 1 + 3 * n]))
    jobs = sorted(zip(vals[1::3], vals[0::3], vals[2::3], strict=True))  # (end, start, pay) by end
    ends = [e for e, _, _ in jobs]
    best = [0] * (n + 1)  # best[k]: the most from the first k requests by end time
    for k, (_, s, p) in enumerate(jobs, start=1):
        j = bisect_right(ends, s, 0, k - 1)  # requests ending at or before s
        take = best[j] + p
        best[k] = take if take > best[k - 1] else best[k - 1]
    print(best[n])


main()
