class Solution:
    def maxBadgeDifference(self, codes: list[int]) -> int:
        best = 0
        n = len(codes)
        for i in range(n):
            a = codes[i]
            for j in range(i + 1, n):
                if a ^ codes[j] > best:
                    best = a ^ codes[j]
        return best
