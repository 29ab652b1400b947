class Solution:
    def maxDepth(self, s: str) -> int:
        # counts open crates but never checks that a closer matches the kind of its crate
        depth = best = 0
        for c in s:
            if c in "([{":
                depth += 1
                best = max(best, depth)
            else:
                depth -= 1
                if depth < 0:
                    return -1
        return best if depth == 0 else -1
