"""Tests for grid_escape: edge cases (a one-row maze, a maze whose wrap-around would be a shortcut,
a sealed exit), then random mazes and winding corridors. In the large mazes the exit lies above and
to the left of the start, so relaxing distances by repeated sweeps in reading order needs one sweep
per step up or left: far too slow; a breadth-first search is linear."""


def _render(grid):
    return f"{len(grid)} {len(grid[0])}\n" + "\n".join("".join(row) for row in grid) + "\n"


def _place(grid, rng, s, e):
    grid[s[0]][s[1]] = "S"
    grid[e[0]][e[1]] = "E"
    return _render(grid)


def _random(rng, rows, cols, wall, far=True):
    grid = [["#" if rng.random() < wall else "." for _ in range(cols)] for _ in range(rows)]
    if far:  # start near the bottom right, exit near the top left
        s = (rng.randrange(rows - max(1, rows // 8), rows), rng.randrange(cols - max(1, cols // 8), cols))
        e = (rng.randrange(0, max(1, rows // 8)), rng.randrange(0, max(1, cols // 8)))
    else:
        s = (rng.randrange(rows), rng.randrange(cols))
        e = s
        while e == s:
            e = (rng.randrange(rows), rng.randrange(cols))
    return _place(grid, rng, s, e)


def _winding(rng, rows, cols):
    """Corridors: every other row is hedge with one gap, alternating ends; exit at the top."""
    grid = [["." for _ in range(cols)] for _ in range(rows)]
    for r in range(1, rows, 2):
        grid[r] = ["#"] * cols
        gap = (
            rng.randrange(0, max(1, cols // 10))
            if (r // 2) % 2
            else rng.randrange(cols - max(1, cols // 10), cols)
        )
        grid[r][gap] = "."
    return _place(grid, rng, (rows - 1, rng.randrange(cols)), (0, rng.randrange(cols)))


def generate(rng):
    tests = [
        ("01_adjacent", "1 2\nSE\n"),
        ("02_no_wrap", "1 5\nS#..E\n"),
        ("03_example", "3 4\nS.#E\n.#..\n....\n"),
        ("04_sealed", "3 3\nS.#\n.##\n##E\n"),
        ("05_column", "4 1\nE\n.\n.\nS\n"),
        ("06_wrap_trap", "2 6\n.#..#S\nE#..#.\n"),
    ]
    for i, (rows, cols, wall) in enumerate([(5, 8, 0.2), (8, 8, 0.3), (6, 10, 0.25)]):
        tests.append((f"10_small_{i}", _random(rng, rows, cols, wall, far=i != 2)))
    for i, (rows, cols, wall) in enumerate([(25, 30, 0.25), (30, 25, 0.3), (20, 40, 0.2)]):
        tests.append((f"20_medium_{i}", _random(rng, rows, cols, wall, far=i != 1)))
    tests.append(("21_medium_winding", _winding(rng, 21, 30)))
    for i, (rows, cols, wall) in enumerate([(80, 90, 0.25), (90, 90, 0.3)]):
        tests.append((f"30_large_{i}", _random(rng, rows, cols, wall)))
    tests.append(("31_large_winding", _winding(rng, 61, 80)))
    for i, (rows, cols, wall) in enumerate([(200, 250, 0.25), (250, 200, 0.3)]):
        tests.append((f"40_larger_{i}", _random(rng, rows, cols, wall)))
    tests.append(("50_huge_random", _random(rng, 600, 600, 0.25)))
    tests.append(("51_huge_winding", _winding(rng, 501, 700)))
    tests.append(("52_huge_open", _random(rng, 500, 800, 0.05)))
    return tests
