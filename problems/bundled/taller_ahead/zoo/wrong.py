class Solution:
    def distanceToTaller(self, heights: list[int]) -> list[int]:
        n = len(heights)
        answer = [0] * n
        stack = []
        for j, h in enumerate(heights):
            # pops on equal heights too: an equal mast is taken as "taller"
            while stack and heights[stack[-1]] <= h:
                i = stack.pop()
                answer[i] = j - i
            stack.append(j)
        return answer
