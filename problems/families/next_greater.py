"""Family next_greater: the total distance to the next taller (or at least as tall) item, modulo a
statement modulus (a monotonic stack; slow: scan right from each item)."""

FAMILY = "next_greater"
TITLE = "Waiting for a Taller One"
ARRAYS = ("a", "arr", "vals", "nums", "xs", "ys")
NOUNS = ("trees", "towers", "poles", "masts", "pillars", "chimneys")


def params(rng, index):
    strict = index % 2 == 0  # alternating, so instances 0-4 show both
    return {
        "mod": rng.choice((97, 101, 103, 107, 997, 1009, 1013)),
        "arr": rng.choice(ARRAYS),
        "noun": rng.choice(NOUNS),
        "words": "taller than" if strict else "at least as tall as",
        "cmp": ">" if strict else ">=",
        "flip": ">=" if strict else ">",
    }


STATEMENT = """# $title

n $noun stand in a row with given heights. For each one, its wait is the distance to the nearest
one to its right that is $words it (0 if there is none). Print the total of the waits modulo $mod.

## Input
The first line holds n. The second line holds the n heights (integers from 1 to 10^6).

## Output
One integer: the total wait modulo $mod.
"""

EFFICIENT = """import sys
data = sys.stdin.buffer.read().split()
n = int(data[0])
$arr = list(map(int, data[1:1 + n]))
stack = []
total = 0
for i in range(n):
    while stack and $arr[i] $cmp $arr[stack[-1]]:
        total += i - stack.pop()
    stack.append(i)
print(total % $mod)
"""

SLOW = """import sys
data = sys.stdin.buffer.read().split()
n = int(data[0])
$arr = list(map(int, data[1:1 + n]))
total = 0
for i in range(n):
    for j in range(i + 1, n):
        if $arr[j] $cmp $arr[i]:
            total += j - i
            break
print(total % $mod)
"""

MISTAKES = {
    "ties": EFFICIENT.replace("$arr[i] $cmp $arr[stack[-1]]", "$arr[i] $flip $arr[stack[-1]]"),
    "off_by_one": EFFICIENT.replace("total += i - stack.pop()", "total += i - stack.pop() + 1"),
}


def _case(rng, n, top):
    values = [rng.randint(1, top) for _ in range(n)]
    return f"{n}\n" + " ".join(map(str, values)) + "\n"


def _falling(rng, n):
    """Heights that (almost) only fall: every item waits for the end, a quadratic scan for the slow."""
    values = sorted((rng.randint(1, 10**6) for _ in range(n)), reverse=True)
    return f"{n}\n" + " ".join(map(str, values)) + "\n"


def generate(rng, p):
    tests = [("00_one", "1\n5\n"), ("01_ties", "4\n3 3 1 3\n")]
    for i, (n, top) in enumerate(((6, 3), (12, 5), (30, 10), (60, 20), (120, 50), (150, 1000))):
        tests.append((f"1{i}_random", _case(rng, n, top)))
    tests.append(("20_huge", _falling(rng, 14000)))
    tests.append(("21_huge", _falling(rng, 12000)))
    return tests
