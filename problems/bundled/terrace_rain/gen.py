import math


def _fmt(grid):
    return f"{len(grid)} {len(grid[0])}\n" + "".join(" ".join(map(str, row)) + "\n" for row in grid)


def _noise(rng, r, c, hi):
    return [[rng.randint(0, hi) for _ in range(c)] for _ in range(r)]


def _hills(rng, r, c, bumps, hi):
    # smooth random landscape: a sum of bumps and dips, then a little noise
    centres = [
        (rng.uniform(0, r), rng.uniform(0, c), rng.uniform(2, max(3, min(r, c) / 3)), rng.uniform(-1, 1))
        for _ in range(bumps)
    ]
    grid = []
    for i in range(r):
        row = []
        for j in range(c):
            v = sum(a * math.exp(-((i - ci) ** 2 + (j - cj) ** 2) / (2 * s * s)) for ci, cj, s, a in centres)
            row.append(v)
        grid.append(row)
    lo = min(min(row) for row in grid)
    top = max(max(row) for row in grid) - lo or 1.0
    return [[min(hi, int((v - lo) / top * hi) + rng.randint(0, 2)) for v in row] for row in grid]


def _bowl(rng, r, c, rim, floor_hi):
    grid = [[rng.randint(0, floor_hi) for _ in range(c)] for _ in range(r)]
    for i in range(r):
        grid[i][0] = grid[i][c - 1] = rim
    for j in range(c):
        grid[0][j] = grid[r - 1][j] = rim
    grid[0][rng.randrange(1, c - 1)] = rim // 2  # a notch: the water settles at the notch height
    return grid


def _serpentine(rng, r, c, wall, floor_hi, exit_h):
    # corridors along the rows joined at alternating ends: one long winding channel to the exit
    grid = [[wall] * c for _ in range(r)]
    for i in range(1, r - 1):
        if i % 2 == 1:
            for j in range(1, c - 1):
                grid[i][j] = rng.randint(0, floor_hi)
        else:
            gap = c - 2 if (i // 2) % 2 == 1 else 1
            grid[i][gap] = rng.randint(0, floor_hi)
    grid[0][1] = exit_h
    return grid


def generate(rng):
    tests = [
        ("s01_cell", _fmt([[7]])),
        ("s02_strip", _fmt([[3, 0, 3], [1, 0, 4]])),
        ("s03_cup", _fmt([[3, 3, 3], [3, 0, 3], [3, 3, 3]])),
        ("s04_example", _fmt([[5, 5, 5, 0, 5], [5, 1, 5, 2, 5], [5, 1, 1, 1, 5], [5, 5, 5, 5, 5]])),
        ("s05_leak", _fmt([[4, 4, 4, 4], [4, 0, 0, 4], [4, 0, 4, 4], [4, 0, 4, 4], [4, 1, 4, 4]])),
    ]
    tests.append(("m01_noise", _fmt(_noise(rng, 6, 7, 9))))
    tests.append(("m02_snake", _fmt(_serpentine(rng, 7, 6, 9, 3, 1))))
    tests.append(("m03_bowl", _fmt(_bowl(rng, 8, 8, 20, 5))))
    tests.append(("m04_noise", _fmt(_noise(rng, 12, 12, 99))))
    tests.append(("l01_noise", _fmt(_noise(rng, 20, 25, 100))))
    tests.append(("l02_hills", _fmt(_hills(rng, 25, 30, 8, 500))))
    tests.append(("l03_snake", _fmt(_serpentine(rng, 21, 30, 50, 9, 4))))
    tests.append(("x01_noise", _fmt(_noise(rng, 60, 70, 10000))))
    tests.append(("x02_hills", _fmt(_hills(rng, 70, 70, 25, 10000))))
    tests.append(("x03_bowl", _fmt(_bowl(rng, 50, 50, 9000, 30))))
    tests.append(("x04_snake", _fmt(_serpentine(rng, 41, 60, 9000, 50, 20))))
    tests.append(("w01_hills", _fmt(_hills(rng, 100, 110, 10, 10000))))
    tests.append(("y01_noise", _fmt(_noise(rng, 300, 400, 10000))))
    tests.append(("y02_hills", _fmt(_hills(rng, 300, 400, 20, 10000))))
    tests.append(("y03_snake", _fmt(_serpentine(rng, 301, 400, 10000, 100, 30))))
    tests.append(("y04_bowl", _fmt(_bowl(rng, 350, 400, 10000, 1000))))
    return tests
