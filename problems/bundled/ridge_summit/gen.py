def generate(rng):
    def ridge(n, p):
        return f"{n} {p} {rng.randint(-(10**6), 10**6)}\n"

    tests = [
        ("s01_one", ridge(1, 1)),
        ("s02_west", ridge(2, 1)),
        ("s03_example", "5 4 9\n"),
        ("s04_east", ridge(40, 40)),
        ("s05_small", ridge(60, rng.randint(1, 60))),
    ]
    for i, n in enumerate((1000, 8000, 20000), start=1):
        tests.append((f"m{i:02d}_random", ridge(n, rng.randint(1, n))))
    # the summit far east: walking from the west reads a post per step
    tests.append(("l01_far_east", ridge(10**6, 10**6 - rng.randint(0, 50))))
    tests.append(("l02_huge", ridge(10**9, rng.randint(1, 10**9))))
    tests.append(("l03_huge_east", ridge(10**9, 10**9)))
    return tests
