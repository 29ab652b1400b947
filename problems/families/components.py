"""Family components: groups of at least a statement size after joining pairs (union-find; slow:
relabel every node on each join)."""

FAMILY = "components"
TITLE = "Joined Villages"
NOUNS = ("villages", "servers", "islands", "stations", "farms", "towers")


def params(rng, index):
    base = index % 2  # alternating, so instances 0-4 show both
    return {
        "size": rng.randint(2, 5),
        "base": base,
        "last": "n - 1" if base == 0 else "n",
        "noun": rng.choice(NOUNS),
    }


STATEMENT = """# $title

There are n $noun, numbered $base to $last, and m roads, each joining two of them. A group is a
largest set of $noun connected by roads. How many groups have at least $size $noun?

## Input
The first line holds n and m. Each of the next m lines holds the two $noun a road joins (numbers
from $base to $last).

## Output
One integer: the number of groups of at least $size $noun.
"""

EFFICIENT = """import sys
data = sys.stdin.buffer.read().split()
n = int(data[0])
m = int(data[1])
parent = list(range(n))
def find(x):
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x
for e in range(m):
    u = find(int(data[2 + 2 * e]) - $base)
    v = find(int(data[3 + 2 * e]) - $base)
    if u != v:
        parent[u] = v
size = {}
for x in range(n):
    r = find(x)
    size[r] = size.get(r, 0) + 1
print(sum(1 for s in size.values() if s >= $size))
"""

SLOW = """import sys
data = sys.stdin.buffer.read().split()
n = int(data[0])
m = int(data[1])
label = list(range(n))
for e in range(m):
    u = label[int(data[2 + 2 * e]) - $base]
    v = label[int(data[3 + 2 * e]) - $base]
    if u != v:
        for x in range(n):
            if label[x] == u:
                label[x] = v
size = {}
for x in range(n):
    size[label[x]] = size.get(label[x], 0) + 1
print(sum(1 for s in size.values() if s >= $size))
"""

MISTAKES = {
    "boundary": EFFICIENT.replace("if s >= $size", "if s > $size"),
    "every_group": EFFICIENT.replace(
        "print(sum(1 for s in size.values() if s >= $size))", "print(len(size))"
    ),
}


def _case(rng, p, n, m, chain=False):
    b = p["base"]
    edges = []
    if chain:  # joins that keep merging big groups: quadratic for a relabelling
        order = list(range(n))
        rng.shuffle(order)
        edges = [(order[i], order[i + 1]) for i in range(min(m, n - 1))]
    while len(edges) < m:
        edges.append((rng.randrange(n), rng.randrange(n)))
    lines = [f"{n} {m}"] + [f"{u + b} {v + b}" for u, v in edges]
    return "\n".join(lines) + "\n"


def generate(rng, p):
    s = p["size"]
    exact = [(i, i + 1) for i in range(s - 1)]  # one group of exactly `size`, then singles and pairs
    n0 = s + 3
    lines = [f"{n0} {len(exact) + 1}"] + [f"{u + p['base']} {v + p['base']}" for u, v in exact]
    lines.append(f"{s + p['base']} {s + 1 + p['base']}")
    tests = [("00_one", "1 0\n"), ("01_exact", "\n".join(lines) + "\n")]
    for i, (n, m) in enumerate(((6, 3), (15, 8), (30, 15), (60, 35), (90, 50))):
        tests.append((f"1{i}_random", _case(rng, p, n, m)))
    tests.append(("20_huge", _case(rng, p, 12000, 8000, chain=True)))
    tests.append(("21_huge", _case(rng, p, 10000, 9000, chain=True)))
    return tests
