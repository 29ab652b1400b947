import math


def _fmt(points):
    return f"{len(points)}\n" + "".join(f"{x} {y}\n" for x, y in points)


def _square(rng, n, hi):
    return [(rng.randint(-hi, hi), rng.randint(-hi, hi)) for _ in range(n)]


def _disk(rng, n, r):
    pts = []
    while len(pts) < n:
        x, y = rng.randint(-r, r), rng.randint(-r, r)
        if x * x + y * y <= r * r:
            pts.append((x, y))
    return pts


def _ring(rng, n, r):
    # points rounded from a circle: the answer is decided by three or more far-apart points
    out = []
    for _ in range(n):
        t = rng.random() * 2 * math.pi
        out.append((round(r * math.cos(t)), round(r * math.sin(t))))
    return out


def _triangle_cloud(rng, n, r):
    # an acute triangle's three corners, with every other point strictly inside
    a = [(round(r * math.cos(t)), round(r * math.sin(t))) for t in (0.3, 2.2, 4.3)]
    pts = list(a)
    while len(pts) < n:
        u, v = rng.random(), rng.random()
        if u + v > 1:
            u, v = 1 - u, 1 - v
        x = a[0][0] + u * (a[1][0] - a[0][0]) + v * (a[2][0] - a[0][0])
        y = a[0][1] + u * (a[1][1] - a[0][1]) + v * (a[2][1] - a[0][1])
        pts.append((round(x * 0.9), round(y * 0.9)))
    rng.shuffle(pts)
    return pts


def _line(rng, n, hi):
    dx, dy = rng.randint(-7, 7), rng.randint(1, 7)
    return [(dx * t, dy * t - 5) for t in (rng.randint(-hi, hi) for _ in range(n))]


def generate(rng):
    tests = [
        ("s01_one", _fmt([(5, -3)])),
        ("s02_same", _fmt([(2, 2), (2, 2)])),
        ("s03_two", _fmt([(0, 0), (6, 8)])),
        ("s04_example", _fmt([(0, 0), (4, 0), (2, 3), (2, 1)])),
        ("s05_line", _fmt([(0, 0), (1, 1), (5, 5), (2, 2)])),
        ("s06_right", _fmt([(0, 0), (0, 6), (8, 0)])),
        ("s07_acute", _fmt([(-3, 0), (3, 0), (0, 4), (1, 1)])),
    ]
    tests.append(("m01_square", _fmt(_square(rng, 12, 100))))
    tests.append(("m02_ring", _fmt(_ring(rng, 10, 1000))))
    tests.append(("m03_triangle", _fmt(_triangle_cloud(rng, 15, 500))))
    tests.append(("l01_square", _fmt(_square(rng, 60, 10**5))))
    tests.append(("l02_disk", _fmt(_disk(rng, 70, 10**4))))
    tests.append(("l03_triangle", _fmt(_triangle_cloud(rng, 80, 10**5))))
    tests.append(("l04_line", _fmt(_line(rng, 60, 10**4))))
    tests.append(("x01_square", _fmt(_square(rng, 2500, 10**6))))
    tests.append(("x02_ring", _fmt(_ring(rng, 2000, 10**6))))
    tests.append(("x03_triangle", _fmt(_triangle_cloud(rng, 3000, 10**6))))
    tests.append(("y01_square", _fmt(_square(rng, 40000, 10**6))))
    tests.append(("y02_ring", _fmt(_ring(rng, 40000, 10**6))))
    tests.append(("y03_disk", _fmt(_disk(rng, 50000, 10**6))))
    tests.append(("y04_triangle", _fmt(_triangle_cloud(rng, 45000, 10**6))))
    return tests
