from collections import Counter


class Solution:
    def countPairs(self, nums: list[int], target: int) -> int:
        cnt = Counter(nums)
        # counts a crate paired with itself when 2*x == target
        return sum(c * cnt[target - x] for x, c in cnt.items()) // 2
