class Solution:
    def countSmaller(self, heights: list[int]) -> list[int]:
        n = len(heights)
        return [sum(1 for j in range(i + 1, n) if heights[j] < heights[i]) for i in range(n)]
