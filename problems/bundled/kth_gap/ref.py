from bisect import bisect_right
from itertools import repeat
from operator import add


class Solution:
    def kthSmallestGap(self, positions: list[int], k: int) -> int:
        a = sorted(positions)
        n = len(a)
        base = n * (n + 1) // 2

        def pairs_within(d):
            # for each i, the lamps j > i with a[j] - a[i] <= d number bisect_right(a, a[i] + d) - i - 1
            return sum(map(bisect_right, repeat(a), map(add, a, repeat(d)))) - base

        lo, hi = 0, a[-1] - a[0]
        while lo < hi:
            mid = (lo + hi) // 2
            if pairs_within(mid) >= k:
                hi = mid
            else:
                lo = mid + 1
        return lo
