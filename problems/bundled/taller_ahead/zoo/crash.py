class Solution:
    def distanceToTaller(self, heights: list[int]) -> list[int]:
        n = len(heights)
        answer = [0] * n
        stack = [0]
        for j in range(1, n):
            h = heights[j]
            # forgets that the stack can run empty when h is a new maximum
            while heights[stack[-1]] < h:
                i = stack.pop()
                answer[i] = j - i
            stack.append(j)
        return answer
