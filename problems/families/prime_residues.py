"""Family prime_residues: primes up to x in a statement residue class (a sieve and prefix counts;
slow: trial division per question)."""

FAMILY = "prime_residues"
TITLE = "Primes in a Lane"
NOUNS = ("lane", "track", "column", "row", "channel", "aisle")


def params(rng, index):
    mod = rng.choice((3, 4, 5, 6, 7, 8, 10, 12))
    residues = [r for r in range(1, mod) if _gcd(r, mod) == 1]
    return {"mod": mod, "rest": rng.choice(residues), "noun": rng.choice(NOUNS)}


def _gcd(a, b):
    while b:
        a, b = b, a % b
    return a


STATEMENT = """# $title

The numbers 1, 2, 3, ... are laid out in $mod lanes: number p goes to the $noun p mod $mod. For each
question x, count the primes p <= x in the $noun $rest (that is, with p mod $mod = $rest).

## Input
The first line holds q. The second line holds q questions x (1 <= x <= 200000).

## Output
q lines: the count for each question.
"""

EFFICIENT = """import sys
data = sys.stdin.buffer.read().split()
q = int(data[0])
xs = list(map(int, data[1:1 + q]))
top = max(xs) + 1
sieve = bytearray([1]) * top
sieve[0] = 0
sieve[1] = 0
for i in range(2, int(top ** 0.5) + 1):
    if sieve[i]:
        sieve[i * i::i] = bytearray(len(range(i * i, top, i)))
pre = [0] * top
c = 0
for i in range(top):
    if sieve[i] and i % $mod == $rest:
        c += 1
    pre[i] = c
print('\\n'.join(str(pre[x]) for x in xs))
"""

SLOW = """import sys
data = sys.stdin.buffer.read().split()
q = int(data[0])
xs = list(map(int, data[1:1 + q]))
out = []
for x in xs:
    c = 0
    for p in range(2, x + 1):
        if p % $mod == $rest and all(p % d for d in range(2, int(p ** 0.5) + 1)):
            c += 1
    out.append(c)
print('\\n'.join(map(str, out)))
"""

MISTAKES = {
    "below_x": EFFICIENT.replace("str(pre[x]) for x in xs", "str(pre[x - 1]) for x in xs"),
    "every_lane": EFFICIENT.replace("if sieve[i] and i % $mod == $rest:", "if sieve[i]:"),
}


def _case(rng, q, top):
    xs = [rng.randint(1, top) for _ in range(q)]
    return f"{q}\n" + " ".join(map(str, xs)) + "\n"


def generate(rng, p):
    small_primes = [x for x in range(2, 200) if all(x % d for d in range(2, x))]
    lane = [x for x in small_primes if x % p["mod"] == p["rest"]][:5]
    tests = [("00_one", "1\n1\n"), ("01_lane", f"{len(lane)}\n" + " ".join(map(str, lane)) + "\n")]
    for i, (q, top) in enumerate(((5, 20), (10, 100), (30, 300), (60, 999), (100, 999))):
        tests.append((f"1{i}_random", _case(rng, q, top)))
    tests.append(("20_huge", _case(rng, 14000, 200000)))
    tests.append(("21_huge", _case(rng, 13000, 150000)))
    return tests
