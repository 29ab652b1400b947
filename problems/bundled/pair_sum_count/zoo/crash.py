from collections import defaultdict


class Solution:
    def countPairs(self, nums: list[int], target: int) -> int:
        # quick exit when no pair can reach the target (min/max of an empty list fails)
        if target < 2 * min(nums) or target > 2 * max(nums):
            return 0
        seen = defaultdict(int)
        total = 0
        for x in nums:
            total += seen[target - x]
            seen[x] += 1
        return total
