class Solution:
    def maxBadgeDifference(self, codes: list[int]) -> int:
        # decide the answer bit by bit from the top: keep bit b set if two codes' prefixes
        # (the bits above and including b) XOR to the best prefix found so far with bit b set
        best = 0
        for b in range(max(codes).bit_length() - 1, -1, -1):
            want = best | (1 << b)
            prefixes = {c >> b for c in codes}
            w = want >> b
            if any((p ^ w) in prefixes for p in prefixes):
                best = want
        return best
