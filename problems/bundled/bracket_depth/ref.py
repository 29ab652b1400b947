class Solution:
    def maxDepth(self, s):
        match = {")": "(", "]": "[", "}": "{"}
        stack = []
        deepest = 0
        for c in s:
            if c in match:
                if not stack or stack.pop() != match[c]:
                    return -1
            else:
                stack.append(c)
                if len(stack) > deepest:
                    deepest = len(stack)
        return deepest if not stack else -1
