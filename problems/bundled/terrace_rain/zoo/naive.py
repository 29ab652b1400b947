import sys


def main():
    data = sys.stdin.read().split()
    rows, cols = int(data[0]), int(data[1])
    h = [[int(data[2 + i * cols + j]) for j in range(cols)] for i in range(rows)]
    inf = float("inf")
    level = [
        [h[i][j] if i in (0, rows - 1) or j in (0, cols - 1) else inf for j in range(cols)]
        for i in range(rows)
    ]
    changed = True
    while changed:  # relax every plot from its neighbours until nothing changes
        changed = False
        for i in range(1, rows - 1):
            for j in range(1, cols - 1):
                low = min(level[i - 1][j], level[i + 1][j], level[i][j - 1], level[i][j + 1])
                new = max(h[i][j], low)
                if new < level[i][j]:
                    level[i][j] = new
                    changed = True
    print(sum(level[i][j] - h[i][j] for i in range(rows) for j in range(cols)))


main()
