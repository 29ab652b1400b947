"""Tests for slowest_steady_pace: edge cases (one page, exactly one hour per document, divisible
page counts), then random print jobs with large page counts and tight hour budgets, where trying
every setting from 1 upward takes far too long; a binary search needs ~30 checks."""

import json


def _case(pages, hours):
    return json.dumps(pages, separators=(",", ":")) + "\n" + str(hours) + "\n"


def _random(rng, n, pmax, slack):
    pages = [rng.randint(1, pmax) for _ in range(n)]
    return _case(pages, n + int(slack * n))


def generate(rng):
    tests = [
        ("01_one_page", _case([1], 3)),
        ("02_one_hour_each", _case([5, 9, 2], 3)),
        ("03_example", _case([3, 6, 7, 11], 8)),
        ("04_divisible", _case([4, 4], 2)),
        ("05_ample_time", _case([10, 10, 10], 30)),
    ]
    for i, (n, pmax, slack) in enumerate([(5, 30, 1.0), (8, 50, 0.5), (10, 20, 3.0)]):
        tests.append((f"10_small_{i}", _random(rng, n, pmax, slack)))
    for i, (n, pmax, slack) in enumerate([(60, 300, 0.7), (80, 1000, 0.2), (50, 100, 2.0)]):
        tests.append((f"20_medium_{i}", _random(rng, n, pmax, slack)))
    for i, (n, pmax, slack) in enumerate([(400, 10**5, 0.5), (600, 10**6, 1.5), (500, 10**4, 0.1)]):
        tests.append((f"30_large_{i}", _random(rng, n, pmax, slack)))
    for i, (n, pmax, slack) in enumerate([(5000, 10**9, 0.5), (8000, 10**7, 2.0)]):
        tests.append((f"40_larger_{i}", _random(rng, n, pmax, slack)))
    tests.append(("50_huge_tight", _random(rng, 60000, 10**9, 0.0)))
    tests.append(("51_huge_loose", _random(rng, 60000, 10**9, 1000.0)))
    tests.append(("52_huge_mixed", _random(rng, 50000, 10**8, 0.3)))
    return tests
