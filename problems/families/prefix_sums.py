"""Family prefix_sums: range totals modulo a statement modulus (prefix sums; slow: sum each range)."""

FAMILY = "prefix_sums"
TITLE = "Ledger Range Totals"
ARRAYS = ("a", "arr", "vals", "nums", "xs", "ys")
NOUNS = ("amounts", "deposits", "weights", "scores", "tolls", "rations")


def params(rng, index):
    order = ("nq", "qn")[index % 2]  # alternating, so instances 0-4 show both
    return {
        "mod": rng.choice((97, 101, 103, 107, 997, 1009, 1013)),
        "arr": rng.choice(ARRAYS),
        "noun": rng.choice(NOUNS),
        "order": order,
        "first": "n q" if order == "nq" else "q n",
        "ni": 0 if order == "nq" else 1,
        "qi": 1 if order == "nq" else 0,
    }


STATEMENT = """# $title

A ledger holds n $noun, numbered 1 to n. Answer q questions: for the positions l to r (inclusive),
print the total of the $noun there, modulo $mod.

## Input
The first line holds $first. The second line holds the n $noun (integers from 0 to 10000). Each of
the next q lines holds l and r (1 <= l <= r <= n).

## Output
q lines: each question's total modulo $mod.
"""

EFFICIENT = """import sys
data = sys.stdin.buffer.read().split()
n = int(data[$ni])
q = int(data[$qi])
$arr = list(map(int, data[2:2 + n]))
pre = [0] * (n + 1)
for i in range(n):
    pre[i + 1] = pre[i] + $arr[i]
out = []
for j in range(q):
    l = int(data[2 + n + 2 * j])
    r = int(data[3 + n + 2 * j])
    out.append((pre[r] - pre[l - 1]) % $mod)
print('\\n'.join(map(str, out)))
"""

SLOW = """import sys
data = sys.stdin.buffer.read().split()
n = int(data[$ni])
q = int(data[$qi])
$arr = list(map(int, data[2:2 + n]))
out = []
for j in range(q):
    l = int(data[2 + n + 2 * j])
    r = int(data[3 + n + 2 * j])
    s = 0
    for i in range(l - 1, r):
        s += $arr[i]
    out.append(s % $mod)
print('\\n'.join(map(str, out)))
"""

MISTAKES = {
    "missing_mod": EFFICIENT.replace(
        "out.append((pre[r] - pre[l - 1]) % $mod)", "out.append(pre[r] - pre[l - 1])"
    ),
    "off_by_one": EFFICIENT.replace("(pre[r] - pre[l - 1])", "(pre[r] - pre[l])"),
}


def _case(rng, p, n, q, wide=False):
    values = [rng.randint(0, 10000) for _ in range(n)]
    head = f"{n} {q}" if p["order"] == "nq" else f"{q} {n}"
    lines = [head, " ".join(map(str, values))]
    for _ in range(q):
        if wide:
            lo = rng.randint(1, max(1, n // 20))
            hi = rng.randint(max(lo, n - n // 20), n)
        else:
            lo = rng.randint(1, n)
            hi = rng.randint(lo, n)
        lines.append(f"{lo} {hi}")
    return "\n".join(lines) + "\n"


def generate(rng, p):
    sizes = [(1, 1), (3, 2), (6, 4), (12, 8), (30, 20), (60, 40), (800, 600), (1000, 900)]
    tests = [(f"{i:02d}_random", _case(rng, p, n, q)) for i, (n, q) in enumerate(sizes)]
    tests.append(("20_huge_wide", _case(rng, p, 9000, 6000, wide=True)))
    tests.append(("21_huge_wide", _case(rng, p, 8000, 7000, wide=True)))
    return tests
