def _fmt(points):
    return f"{len(points)}\n" + "".join(f"{x} {y}\n" for x, y in points)


def _random(rng, n, hi):
    return [(rng.randint(-hi, hi), rng.randint(-hi, hi)) for _ in range(n)]


def _parabola(rng, n, noise_inside):
    # every point of y = x^2 is a corner of the fence; a few points inside it
    xs = rng.sample(range(-n, n + 1), n)
    pts = [(x, x * x) for x in xs]
    for _ in range(noise_inside):
        x = rng.randint(-n // 2, n // 2)
        pts.append((x, x * x + rng.randint(1, n)))
    rng.shuffle(pts)
    return pts


def _grid(rng, n, side):
    # small coordinate range: many shared x values and repeated points
    return [(rng.randint(0, side), rng.randint(0, side)) for _ in range(n)]


def _line(rng, n, hi):
    dx, dy = rng.randint(-5, 5), rng.randint(1, 5)
    x0, y0 = rng.randint(-hi, hi), rng.randint(-hi, hi)
    return [(x0 + dx * t, y0 + dy * t) for t in (rng.randint(-hi // 10, hi // 10) for _ in range(n))]


def generate(rng):
    tests = [
        ("s01_one", _fmt([(3, -4)])),
        ("s02_same", _fmt([(1, 1), (1, 1), (1, 1)])),
        ("s03_two", _fmt([(0, 0), (3, 4)])),
        ("s04_example", _fmt([(0, 0), (4, 0), (4, 3), (2, 1), (0, 3)])),
        ("s05_vertical", _fmt([(2, 5), (2, -1), (2, 0), (2, 3)])),
        ("s06_square_edges", _fmt([(0, 0), (0, 1), (0, 2), (2, 2), (2, 1), (2, 0), (1, 1)])),
    ]
    tests.append(("m01_random", _fmt(_random(rng, 20, 100))))
    tests.append(("m02_grid", _fmt(_grid(rng, 30, 4))))
    tests.append(("m03_parabola", _fmt(_parabola(rng, 20, 3))))
    tests.append(("m04_line", _fmt(_line(rng, 10, 1000))))
    tests.append(("l01_random", _fmt(_random(rng, 300, 10**6))))
    tests.append(("l02_grid", _fmt(_grid(rng, 400, 30))))
    tests.append(("l03_parabola", _fmt(_parabola(rng, 200, 50))))
    tests.append(("x01_random", _fmt(_random(rng, 3000, 10**9))))
    tests.append(("x02_grid", _fmt(_grid(rng, 5000, 1000))))
    tests.append(("x03_parabola", _fmt(_parabola(rng, 600, 100))))
    tests.append(("x04_line", _fmt(_line(rng, 3000, 10**8))))
    tests.append(("y01_random", _fmt(_random(rng, 30000, 10**9))))
    tests.append(("y02_parabola", _fmt(_parabola(rng, 45000, 3000))))
    tests.append(("y03_grid", _fmt(_grid(rng, 50000, 3000))))
    tests.append(("y04_parabola", _fmt(_parabola(rng, 20000, 20000))))
    return tests
