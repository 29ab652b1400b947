class Solution:
    def distanceToTaller(self, heights: list[int]) -> list[int]:
        n = len(heights)
        answer = [0] * n
        for i in range(n):
            for j in range(i + 1, n):
                if heights[j] > heights[i]:
                    answer[i] = j - i
                    break
        return answer
