class Solution:
    def minSpeed(self, pages: list[int], hours: int) -> int:
        r = 1
        while sum((p + r - 1) // r for p in pages) > hours:
            r += 1
        return r
