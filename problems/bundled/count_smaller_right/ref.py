class Solution:
    def countSmaller(self, heights):
        ranks = {v: r for r, v in enumerate(sorted(set(heights)), start=1)}
        size = len(ranks)
        tree = [0] * (size + 1)  # Fenwick tree over ranks: how many seen so far have each rank
        answer = [0] * len(heights)
        for i in range(len(heights) - 1, -1, -1):
            r = ranks[heights[i]]
            k, total = r - 1, 0
            while k > 0:
                total += tree[k]
                k &= k - 1
            answer[i] = total
            while r <= size:
                tree[r] += 1
                r += r & -r
        return answer
