class Solution:
    def distanceToTaller(self, heights: list[int]) -> list[int]:
        n = len(heights)
        answer = [0] * n
        stack = []  # indices whose taller mast is not found yet; heights non-increasing
        for j, h in enumerate(heights):
            while stack and heights[stack[-1]] < h:
                i = stack.pop()
                answer[i] = j - i
            stack.append(j)
        return answer
