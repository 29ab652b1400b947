import sys


def main():
    data = sys.stdin.buffer.read().split()
    rows, cols = int(data[0]), int(data[1])
    h = [list(map(int, data[2 + i * cols : 2 + (i + 1) * cols])) for i in range(rows)]
    # the 1D rule in both directions: water is capped by the walls seen straight left/right and
    # straight up/down; it misses water escaping along a winding path
    left = [[0] * cols for _ in range(rows)]
    right = [[0] * cols for _ in range(rows)]
    up = [[0] * cols for _ in range(rows)]
    down = [[0] * cols for _ in range(rows)]
    for i in range(rows):
        m = 0
        for j in range(cols):
            m = max(m, h[i][j])
            left[i][j] = m
        m = 0
        for j in range(cols - 1, -1, -1):
            m = max(m, h[i][j])
            right[i][j] = m
    for j in range(cols):
        m = 0
        for i in range(rows):
            m = max(m, h[i][j])
            up[i][j] = m
        m = 0
        for i in range(rows - 1, -1, -1):
            m = max(m, h[i][j])
            down[i][j] = m
    total = 0
    for i in range(rows):
        for j in range(cols):
            lvl = min(left[i][j], right[i][j], up[i][j], down[i][j])
            total += lvl - h[i][j]
    print(total)


main()
