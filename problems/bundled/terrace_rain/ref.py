import sys
from heapq import heapify, heappop, heappush


def main():
    data = sys.stdin.buffer.read().split()
    rows, cols = int(data[0]), int(data[1])
    h = list(map(int, data[2 : 2 + rows * cols]))
    if rows <= 2 or cols <= 2:
        print(0)
        return
    # grow the drained region from the border, always from its lowest water level (Dijkstra-like):
    # a plot first reached from level L settles at max(L, its height)
    seen = bytearray(rows * cols)
    heap = []
    for i in range(rows):
        for j in range(cols):
            if i == 0 or j == 0 or i == rows - 1 or j == cols - 1:
                c = i * cols + j
                seen[c] = 1
                heap.append((h[c], c))
    heapify(heap)
    water = 0
    while heap:
        level, c = heappop(heap)
        i, j = divmod(c, cols)
        for d, ok in ((c - cols, i > 0), (c + cols, i < rows - 1), (c - 1, j > 0), (c + 1, j < cols - 1)):
            if ok and not seen[d]:
                seen[d] = 1
                hd = h[d]
                if hd < level:
                    water += level - hd
                    heappush(heap, (level, d))
                else:
                    heappush(heap, (hd, d))
    print(water)


main()
