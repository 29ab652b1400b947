"""Family frequency_threshold: how many values occur at least (or more than) a statement count
(a counter; slow: count each value by a scan)."""

FAMILY = "frequency_threshold"
TITLE = "Frequent Labels"
ARRAYS = ("a", "arr", "vals", "nums", "xs", "ys")
NOUNS = ("labels", "badges", "stamps", "codes", "tags", "marks")


def params(rng, index):
    inclusive = index % 2 == 0  # alternating, so instances 0-4 show both
    return {
        "times": 2 + (index // 2) % 4,  # with the alternating comparison: no two statements alike
        "arr": rng.choice(ARRAYS),
        "noun": rng.choice(NOUNS),
        "words": "at least" if inclusive else "more than",
        "cmp": ">=" if inclusive else ">",
        "flip": ">" if inclusive else ">=",
    }


STATEMENT = """# $title

A box holds n $noun, each an integer. How many distinct $noun occur $words $times times?

## Input
The first line holds n. The second line holds the n $noun (integers from 1 to 10^6).

## Output
One integer: the number of distinct $noun that occur $words $times times.
"""

EFFICIENT = """import sys
from collections import Counter
data = sys.stdin.buffer.read().split()
n = int(data[0])
$arr = data[1:1 + n]
counts = Counter($arr)
print(sum(1 for c in counts.values() if c $cmp $times))
"""

SLOW = """import sys
data = sys.stdin.buffer.read().split()
n = int(data[0])
$arr = list(map(int, data[1:1 + n]))
seen = set()
total = 0
for x in $arr:
    if x in seen:
        continue
    seen.add(x)
    c = 0
    for y in $arr:
        if y == x:
            c += 1
    if c $cmp $times:
        total += 1
print(total)
"""

MISTAKES = {
    "boundary": EFFICIENT.replace("if c $cmp $times", "if c $flip $times"),
    "counts_occurrences": EFFICIENT.replace("sum(1 for c in", "sum(c for c in"),
}


def _case(rng, n, distinct):
    pool = [rng.randint(1, 10**6) for _ in range(distinct)]
    values = [rng.choice(pool) for _ in range(n)]
    return f"{n}\n" + " ".join(map(str, values)) + "\n"


def generate(rng, p):
    t = p["times"]
    exact = " ".join(["7"] * t + ["9"] * (t + 1) + ["4"])
    tests = [("00_one", "1\n5\n"), ("01_exact", f"{2 * t + 2}\n{exact}\n")]
    for i, (n, d) in enumerate(((8, 3), (20, 5), (40, 8), (70, 15), (100, 20), (120, 30))):
        tests.append((f"1{i}_random", _case(rng, n, d)))
    tests.append(("20_huge", _case(rng, 13000, 3000)))
    tests.append(("21_huge", _case(rng, 12000, 4000)))
    return tests
