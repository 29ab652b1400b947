class Solution:
    def kthSmallestGap(self, positions: list[int], k: int) -> int:
        n = len(positions)
        lo, hi = 0, max(positions) - min(positions)
        while lo < hi:
            mid = (lo + hi) // 2
            count = 0
            for i in range(n):  # counts the pairs within mid by looking at every pair
                pi = positions[i]
                for j in range(i + 1, n):
                    if abs(pi - positions[j]) <= mid:
                        count += 1
            if count >= k:
                hi = mid
            else:
                lo = mid + 1
        return lo
