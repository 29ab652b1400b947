"""Family pair_sum_count: pairs whose sum is under a statement bound (sort and two pointers; slow:
every pair)."""

FAMILY = "pair_sum_count"
TITLE = "Light Pairs"
ARRAYS = ("a", "arr", "vals", "nums", "xs", "ys")
NOUNS = ("parcels", "stones", "crates", "bags", "logs", "packs")


def params(rng, index):
    inclusive = index % 2 == 0  # alternating, so instances 0-4 show both
    return {
        "bound": rng.randint(40, 300),
        "arr": rng.choice(ARRAYS),
        "noun": rng.choice(NOUNS),
        "words": "at most" if inclusive else "less than",
        "cmp": "<=" if inclusive else "<",
        "flip": "<" if inclusive else "<=",
    }


STATEMENT = """# $title

There are n $noun with given weights. Count the pairs of two different $noun whose weights add up
to $words $bound.

## Input
The first line holds n. The second line holds the n weights (integers from 0 to $bound).

## Output
One integer: the number of such pairs.
"""

EFFICIENT = """import sys
data = sys.stdin.buffer.read().split()
n = int(data[0])
$arr = sorted(map(int, data[1:1 + n]))
i = 0
j = n - 1
count = 0
while i < j:
    if $arr[i] + $arr[j] $cmp $bound:
        count += j - i
        i += 1
    else:
        j -= 1
print(count)
"""

SLOW = """import sys
data = sys.stdin.buffer.read().split()
n = int(data[0])
$arr = list(map(int, data[1:1 + n]))
count = 0
for i in range(n):
    for j in range(i + 1, n):
        if $arr[i] + $arr[j] $cmp $bound:
            count += 1
print(count)
"""

MISTAKES = {
    "boundary": EFFICIENT.replace("$arr[i] + $arr[j] $cmp $bound", "$arr[i] + $arr[j] $flip $bound"),
    "off_by_one": EFFICIENT.replace("count += j - i\n", "count += j - i + 1\n"),
}


def _case(rng, p, n):
    b = p["bound"]
    values = [rng.randint(0, b) for _ in range(n)]
    return f"{n}\n" + " ".join(map(str, values)) + "\n"


def generate(rng, p):
    b = p["bound"]
    tests = [("00_two", f"2\n{b // 2} {b - b // 2}\n"), ("01_one", "1\n0\n")]
    for i, n in enumerate((3, 6, 12, 25, 50, 90, 150, 200)):
        tests.append((f"1{i}_random", _case(rng, p, n)))
    tests.append(("20_huge", _case(rng, p, 20000)))
    tests.append(("21_huge", _case(rng, p, 18000)))
    return tests
