from bisect import bisect_right


class Solution:
    def kthSmallestGap(self, positions: list[int], k: int) -> int:
        a = positions  # assumes the lamps are listed in road order, never sorts them
        n = len(a)

        def pairs_within(d):
            return sum(bisect_right(a, a[i] + d, i + 1) - i - 1 for i in range(n))

        lo, hi = 0, max(a) - min(a)
        while lo < hi:
            mid = (lo + hi) // 2
            if pairs_within(mid) >= k:
                hi = mid
            else:
                lo = mid + 1
        return lo
