"""Tests for bracket_depth: edge cases (empty, a leading closer, crossed kinds), then random records
built from random nestings; large ones nest tens of thousands deep, where peeling the innermost pairs
one round at a time is quadratic. Some records are corrupted by one symbol."""

import json

OPEN, CLOSE = "([{", ")]}"


def _case(s):
    return json.dumps(s) + "\n"


def _nested(rng, length, depth_bias):
    """A well-formed record of about `length` symbols; depth_bias in [0, 1) favours going deeper."""
    out, stack = [], []
    while len(out) + len(stack) < length:
        if stack and (rng.random() > depth_bias or len(out) + 2 * len(stack) + 2 > length):
            out.append(CLOSE[stack.pop()])
        else:
            kind = rng.randrange(3)
            stack.append(kind)
            out.append(OPEN[kind])
    while stack:
        out.append(CLOSE[stack.pop()])
    return "".join(out)


def _corrupt(rng, s):
    i = rng.randrange(len(s) // 2, len(s))
    choices = [c for c in OPEN + CLOSE if c != s[i]]
    return s[:i] + rng.choice(choices) + s[i + 1 :]


def generate(rng):
    tests = [
        ("01_empty", _case("")),
        ("02_lone_closer", _case(")")),
        ("03_pair", _case("[]")),
        ("04_crossed", _case("([)]")),
        ("05_unclosed", _case("{{")),
        ("06_example", _case("([]{()})")),
        ("07_closer_first", _case("]()[")),
    ]
    for i, (length, bias) in enumerate([(20, 0.5), (40, 0.7), (60, 0.4)]):
        s = _nested(rng, length, bias)
        tests.append((f"10_small_{i}", _case(s if i != 1 else _corrupt(rng, s))))
    for i, (length, bias) in enumerate([(400, 0.5), (800, 0.6), (600, 0.8)]):
        s = _nested(rng, length, bias)
        tests.append((f"20_medium_{i}", _case(s if i != 2 else _corrupt(rng, s))))
    for i, (length, bias) in enumerate([(6000, 0.55), (8000, 0.6), (5000, 0.5)]):
        s = _nested(rng, length, bias)
        tests.append((f"30_large_{i}", _case(s if i != 2 else _corrupt(rng, s))))
    for i, (length, bias) in enumerate([(60000, 0.6), (80000, 0.7)]):
        s = _nested(rng, length, bias)
        tests.append((f"40_larger_{i}", _case(s if i != 1 else _corrupt(rng, s))))
    deep = _nested(rng, 400000, 0.9)
    tests.append(("50_huge_deep", _case(deep)))
    tests.append(("51_huge_deep_corrupt", _case(_corrupt(rng, _nested(rng, 300000, 0.95)))))
    tests.append(("52_huge_wavy", _case(_nested(rng, 500000, 0.55))))
    return tests
