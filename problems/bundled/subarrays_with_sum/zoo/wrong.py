class Solution:
    def countSubarrays(self, nums: list[int], k: int) -> int:
        # sliding window: only right when every value is positive
        count = left = total = 0
        for right, x in enumerate(nums):
            total += x
            while total > k and left <= right:
                total -= nums[left]
                left += 1
            if total == k and left <= right:
                count += 1
        return count
