import sys


def main():
    lines = sys.stdin.buffer.read().split(b"\n")
    rows, cols = map(int, lines[0].split())
    width = cols + 2  # a hedge border on every side: no bounds checks
    cells = bytearray(b"#" * (width * (rows + 2)))
    for r in range(rows):
        cells[(r + 1) * width + 1 : (r + 1) * width + 1 + cols] = lines[r + 1][:cols]
    start, goal = cells.index(b"S"), cells.index(b"E")
    dist = [-1] * len(cells)
    dist[start] = 0
    frontier = [start]
    wall = ord("#")
    steps = (1, -1, width, -width)
    while frontier:
        nxt = []
        for cell in frontier:
            d = dist[cell] + 1
            for step in steps:
                v = cell + step
                if dist[v] < 0 and cells[v] != wall:
                    dist[v] = d
                    if v == goal:
                        print(d)
                        return
                    nxt.append(v)
        frontier = nxt
    print(-1)


main()
