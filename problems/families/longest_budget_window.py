"""Family longest_budget_window: the longest run whose total stays within a statement budget
(two pointers; slow: every start and end)."""

FAMILY = "longest_budget_window"
TITLE = "Longest Affordable Stretch"
ARRAYS = ("a", "arr", "vals", "nums", "xs", "ys")
NOUNS = ("costs", "fees", "charges", "prices", "tolls", "fares")


def params(rng, index):
    inclusive = index % 2 == 0  # alternating, so instances 0-4 show both
    return {
        "budget": rng.randint(50, 500),
        "arr": rng.choice(ARRAYS),
        "noun": rng.choice(NOUNS),
        "words": "at most" if inclusive else "less than",
        "cmp": "<=" if inclusive else "<",
        "flip": "<" if inclusive else "<=",
    }


STATEMENT = """# $title

A street has n shops in a row with daily $noun. Find the largest number of consecutive shops whose
$noun add up to $words $budget (0 if there is none).

## Input
The first line holds n. The second line holds the n $noun (integers from 0 to 100).

## Output
One integer: the length of the longest such run.
"""

EFFICIENT = """import sys
data = sys.stdin.buffer.read().split()
n = int(data[0])
$arr = list(map(int, data[1:1 + n]))
best = 0
s = 0
l = 0
for r in range(n):
    s += $arr[r]
    while l <= r and not s $cmp $budget:
        s -= $arr[l]
        l += 1
    best = max(best, r - l + 1)
print(best)
"""

SLOW = """import sys
data = sys.stdin.buffer.read().split()
n = int(data[0])
$arr = list(map(int, data[1:1 + n]))
best = 0
for i in range(n):
    s = 0
    for j in range(i, n):
        s += $arr[j]
        if s $cmp $budget and j - i + 1 > best:
            best = j - i + 1
print(best)
"""

MISTAKES = {
    "boundary": EFFICIENT.replace("not s $cmp $budget", "not s $flip $budget"),
    "off_by_one": EFFICIENT.replace("best = max(best, r - l + 1)", "best = max(best, r - l)"),
}


def _case(rng, n, top=100):
    values = [rng.randint(0, top) for _ in range(n)]
    return f"{n}\n" + " ".join(map(str, values)) + "\n"


def generate(rng, p):
    b = p["budget"]
    q, r = divmod(b, 100)
    exact = [100] * (q + 1) + ([r, 100] if r else [])  # a run that costs exactly the budget
    tests = [("00_one", "1\n0\n"), ("01_exact", f"{len(exact)}\n" + " ".join(map(str, exact)) + "\n")]
    for i, n in enumerate((5, 10, 20, 40, 80, 150, 200)):
        tests.append((f"1{i}_random", _case(rng, n, top=rng.choice((10, 50, 100)))))
    tests.append(("20_huge", _case(rng, 25000)))
    tests.append(("21_huge", _case(rng, 22000, top=30)))
    return tests
