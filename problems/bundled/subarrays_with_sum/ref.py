class Solution:
    def countSubarrays(self, nums, k):
        seen = {0: 1}
        prefix = 0
        runs = 0
        for x in nums:
            prefix += x
            runs += seen.get(prefix - k, 0)
            seen[prefix] = seen.get(prefix, 0) + 1
        return runs
