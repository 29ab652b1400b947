import re


class Solution:
    def maxDepth(self, s: str) -> int:
        # peel the innermost pairs, one round per level of nesting
        inner = re.compile(r"\(\)|\[\]|\{\}")
        rounds = 0
        while s:
            t = inner.sub("", s)
            if t == s:
                return -1
            s = t
            rounds += 1
        return rounds
