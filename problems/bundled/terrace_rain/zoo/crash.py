import sys
from heapq import heappop, heappush


def main():
    data = sys.stdin.buffer.read().split()
    rows, cols = int(data[0]), int(data[1])
    h = list(map(int, data[2 : 2 + rows * cols]))
    seen = bytearray(rows * cols)
    heap = []
    for c in range(rows * cols):
        i, j = divmod(c, cols)
        if i in (0, rows - 1) or j in (0, cols - 1):
            seen[c] = 1
            heappush(heap, (h[c], c))
    water = 0

    def neighbours(c):
        i, j = divmod(c, cols)
        if i > 0:
            yield c - cols
        if i < rows - 1:
            yield c + cols
        if j > 0:
            yield c - 1
        if j < cols - 1:
            yield c + 1

    def flood(c, level):
        # fill every plot reachable below `level`, recursively
        nonlocal water
        for d in neighbours(c):
            if not seen[d]:
                seen[d] = 1
                if h[d] <= level:
                    water += level - h[d]
                    flood(d, level)
                else:
                    heappush(heap, (h[d], d))

    while heap:
        level, c = heappop(heap)
        flood(c, level)
    print(water)


main()
