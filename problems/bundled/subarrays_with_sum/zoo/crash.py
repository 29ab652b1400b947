from collections import Counter


class Solution:
    def countSubarrays(self, nums: list[int], k: int) -> int:
        # starts from the first evening (there is none when the list is empty)
        prefix = nums[0]
        seen = Counter([0, prefix])
        count = 1 if prefix == k else 0
        for x in nums[1:]:
            prefix += x
            count += seen[prefix - k]
            seen[prefix] += 1
        return count
