class Solution:
    def countClimbs(self, n: int, k: int, cracked: list[int]) -> int:
        mod = 1_000_000_007
        bad = set(cracked)
        ways = [0] * (n + 1)
        ways[0] = 1
        for i in range(1, n + 1):
            if i in bad:
                continue
            total = 0
            for j in range(max(0, i - k), i):
                total += ways[j]
            ways[i] = total % mod
        return ways[n]
