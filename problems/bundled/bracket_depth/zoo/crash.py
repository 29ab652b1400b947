class Solution:
    def maxDepth(self, s: str) -> int:
        pairs = {")": "(", "]": "[", "}": "{"}
        stack = []
        best = 0
        for c in s:
            if c in pairs:
                if stack.pop() != pairs[c]:  # pops an empty stack on a leading closer
                    return -1
            else:
                stack.append(c)
                best = max(best, len(stack))
        return -1 if stack else best
