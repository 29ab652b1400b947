class Solution:
    def minSpeed(self, pages: list[int], hours: int) -> int:
        def need(r):
            return sum(p // r + 1 for p in pages)  # one hour too many when r divides p

        lo, hi = 1, max(pages) + 1
        while lo < hi:
            mid = (lo + hi) // 2
            if need(mid) <= hours:
                hi = mid
            else:
                lo = mid + 1
        return lo
