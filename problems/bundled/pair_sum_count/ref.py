class Solution:
    def countPairs(self, nums, target):
        seen = {}
        pairs = 0
        for x in nums:
            pairs += seen.get(target - x, 0)
            seen[x] = seen.get(x, 0) + 1
        return pairs
