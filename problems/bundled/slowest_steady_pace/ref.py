class Solution:
    def minSpeed(self, pages, hours):
        def fits(rate):
            # ceil(p / rate) == -(-p // rate)
            return -sum(-p // rate for p in pages) <= hours

        lo, hi = 1, max(pages)
        while lo < hi:
            mid = (lo + hi) // 2
            if fits(mid):
                hi = mid
            else:
                lo = mid + 1
        return lo
