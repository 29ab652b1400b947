from heapq import heapify, heappop, heappush


class Solution:
    def kthSmallestGap(self, positions: list[int], k: int) -> int:
        a = sorted(positions)
        n = len(a)
        # pop gaps in increasing order: from pair (i, j) the next candidate is (i, j + 1)
        heap = [(a[i + 1] - a[i], i, i + 1) for i in range(n - 1)]
        heapify(heap)
        for _ in range(k - 1):
            _, i, j = heappop(heap)
            heappush(heap, (a[j + 1] - a[i], i, j + 1))  # no check that j + 1 < n
        return heap[0][0]
