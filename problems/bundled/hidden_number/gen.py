def generate(rng):
    tests = [
        ("s01_one", "1 1\n"),
        ("s02_two_low", "2 1\n"),
        ("s03_example", "10 7\n"),
        ("s04_top", "100 100\n"),
        ("s05_small", f"60 {rng.randint(1, 60)}\n"),
    ]
    for i, n in enumerate((1000, 5000, 30000), start=1):
        tests.append((f"m{i:02d}_random", f"{n} {rng.randint(1, n)}\n"))
    # the combination near the top: a scan from 1 needs n tries
    tests.append(("l01_high", f"{10**6} {10**6 - rng.randint(0, 50)}\n"))
    tests.append(("l02_huge", f"{10**18} {rng.randint(1, 10**18)}\n"))
    tests.append(("l03_huge_edge", f"{10**18} {10**18}\n"))
    return tests
