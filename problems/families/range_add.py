"""Family range_add: after adding to ranges, how many positions reach a statement level (a
difference array; slow: add to each position of each range)."""

FAMILY = "range_add"
TITLE = "Flood Marks"
NOUNS = ("posts", "plots", "cells", "tiles", "slots", "bins")


def params(rng, index):
    inclusive = index % 2 == 0  # alternating, so instances 0-4 show both
    return {
        "level": rng.randint(10, 90),
        "noun": rng.choice(NOUNS),
        "words": "at least" if inclusive else "more than",
        "cmp": ">=" if inclusive else ">",
        "flip": ">" if inclusive else ">=",
    }


STATEMENT = """# $title

There are n $noun in a row, numbered 1 to n, each at level 0. Each of q updates raises the $noun l
to r (inclusive) by v. After all updates, how many $noun are at a level $words $level?

## Input
The first line holds n and q. Each of the next q lines holds l, r and v (1 <= l <= r <= n,
1 <= v <= 20).

## Output
One integer: the number of $noun whose level is $words $level.
"""

EFFICIENT = """import sys
data = sys.stdin.buffer.read().split()
n = int(data[0])
q = int(data[1])
diff = [0] * (n + 1)
for j in range(q):
    l = int(data[2 + 3 * j])
    r = int(data[3 + 3 * j])
    v = int(data[4 + 3 * j])
    diff[l - 1] += v
    diff[r] -= v
cur = 0
count = 0
for i in range(n):
    cur += diff[i]
    if cur $cmp $level:
        count += 1
print(count)
"""

SLOW = """import sys
data = sys.stdin.buffer.read().split()
n = int(data[0])
q = int(data[1])
vals = [0] * n
for j in range(q):
    l = int(data[2 + 3 * j])
    r = int(data[3 + 3 * j])
    v = int(data[4 + 3 * j])
    for i in range(l - 1, r):
        vals[i] += v
count = 0
for i in range(n):
    if vals[i] $cmp $level:
        count += 1
print(count)
"""

MISTAKES = {
    "boundary": EFFICIENT.replace("if cur $cmp $level", "if cur $flip $level"),
    "off_by_one": EFFICIENT.replace("diff[r] -= v", "diff[r - 1] -= v"),
}


def _case(rng, n, q, wide=False):
    lines = [f"{n} {q}"]
    for _ in range(q):
        if wide:
            lo = rng.randint(1, max(1, n // 10))
            hi = rng.randint(max(lo, n - n // 10), n)
        else:
            lo = rng.randint(1, n)
            hi = rng.randint(lo, n)
        lines.append(f"{lo} {hi} {rng.randint(1, 20)}")
    return "\n".join(lines) + "\n"


def generate(rng, p):
    lv = p["level"]
    tests = [("00_exact", f"2 1\n1 1 {min(20, lv)}\n"), ("01_exact", f"3 {lv}\n" + "1 2 1\n" * lv)]
    for i, (n, q) in enumerate(((5, 10), (10, 20), (20, 30), (40, 40), (60, 50))):
        tests.append((f"1{i}_random", _case(rng, n, q)))
    tests.append(("20_huge", _case(rng, 20000, 7000, wide=True)))
    tests.append(("21_huge", _case(rng, 15000, 7500, wide=True)))
    return tests
