"""Family int_root: the largest x with x^e + c*x within a value (binary search on the answer; slow:
count x up one by one)."""

FAMILY = "int_root"
TITLE = "Largest Fitting Crate"
NOUNS = ("crate", "tank", "block", "cube", "vault", "bin")


def params(rng, index):
    return {"power": rng.choice((2, 3)), "extra": rng.randint(1, 40), "noun": rng.choice(NOUNS)}


STATEMENT = """# $title

A $noun of side x costs x^$power + $extra * x coins. For each budget v, print the largest x >= 0
whose $noun costs at most v.

## Input
The first line holds q. The second line holds q budgets v (0 <= v <= 10^12).

## Output
q lines: the largest such x for each budget.
"""

EFFICIENT = """import sys
data = sys.stdin.buffer.read().split()
q = int(data[0])
out = []
for j in range(q):
    v = int(data[1 + j])
    lo = 0
    hi = v + 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if mid ** $power + $extra * mid <= v:
            lo = mid
        else:
            hi = mid
    out.append(lo)
print('\\n'.join(map(str, out)))
"""

SLOW = """import sys
data = sys.stdin.buffer.read().split()
q = int(data[0])
out = []
for j in range(q):
    v = int(data[1 + j])
    x = 0
    while (x + 1) ** $power + $extra * (x + 1) <= v:
        x += 1
    out.append(x)
print('\\n'.join(map(str, out)))
"""

MISTAKES = {
    "boundary": EFFICIENT.replace("mid ** $power + $extra * mid <= v", "mid ** $power + $extra * mid < v"),
    "off_by_one": EFFICIENT.replace("out.append(lo)", "out.append(hi)"),
}


def _cost(p, x):
    return x ** p["power"] + p["extra"] * x


def _case(rng, q, top):
    vs = [rng.randint(0, top) for _ in range(q)]
    return f"{q}\n" + " ".join(map(str, vs)) + "\n"


def generate(rng, p):
    exact = [_cost(p, x) for x in (1, 2, 3, 5, 8)]
    tests = [("00_zero", "1\n0\n"), ("01_exact", f"{len(exact)}\n" + " ".join(map(str, exact)) + "\n")]
    for i, (q, top) in enumerate(((5, 100), (10, 1000), (30, 10000), (60, 10000), (90, 10000))):
        tests.append((f"1{i}_random", _case(rng, q, top)))
    tests.append(("20_huge", _case(rng, 7500, 10**12)))
    tests.append(("21_huge", _case(rng, 7000, 10**12)))
    return tests
