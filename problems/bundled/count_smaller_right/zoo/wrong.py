from bisect import bisect_right, insort


class Solution:
    def countSmaller(self, heights: list[int]) -> list[int]:
        behind = []  # sorted heights of the children behind
        answer = []
        for h in reversed(heights):
            answer.append(bisect_right(behind, h))  # counts equal heights too
            insort(behind, h)
        return answer[::-1]
