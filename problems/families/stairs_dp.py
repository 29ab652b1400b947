"""Family stairs_dp: ways to climb a staircase with steps up to a statement size, modulo a statement
modulus (one DP table for every question; slow: a table per question)."""

FAMILY = "stairs_dp"
TITLE = "Staircase Ways"
NOUNS = ("stairs", "rungs", "terraces", "ledges", "steps", "tiers")


def params(rng, index):
    return {
        "jump": rng.randint(2, 6),
        "mod": rng.choice((97, 101, 103, 107, 997, 1009, 1013)),
        "noun": rng.choice(NOUNS),
    }


STATEMENT = """# $title

A climber goes up a flight of x $noun, each move going up between 1 and $jump $noun. For each
question x, print the number of different move sequences that end exactly at the top, modulo $mod.

## Input
The first line holds t. The second line holds t questions x (0 <= x <= 100000).

## Output
t lines: the number of ways for each x, modulo $mod.
"""

EFFICIENT = """import sys
data = sys.stdin.buffer.read().split()
t = int(data[0])
xs = list(map(int, data[1:1 + t]))
top = max(xs)
ways = [0] * (top + 1)
ways[0] = 1
for i in range(1, top + 1):
    ways[i] = sum(ways[max(0, i - $jump):i]) % $mod
print('\\n'.join(str(ways[x]) for x in xs))
"""

SLOW = """import sys
data = sys.stdin.buffer.read().split()
t = int(data[0])
xs = list(map(int, data[1:1 + t]))
out = []
for x in xs:
    ways = [0] * (x + 1)
    ways[0] = 1
    for i in range(1, x + 1):
        ways[i] = sum(ways[max(0, i - $jump):i]) % $mod
    out.append(ways[x])
print('\\n'.join(map(str, out)))
"""

MISTAKES = {
    "wrong_init": EFFICIENT.replace("ways[0] = 1", "ways[0] = 0\nif top > 0:\n    ways[1] = 1"),
    "jump_too_far": EFFICIENT.replace("ways[max(0, i - $jump):i]", "ways[max(0, i - $jump - 1):i]"),
}


def _case(rng, t, top):
    xs = [rng.randint(0, top) for _ in range(t)]
    return f"{t}\n" + " ".join(map(str, xs)) + "\n"


def generate(rng, p):
    tests = [("00_zero", "1\n0\n"), ("01_small", "4\n1 2 3 4\n")]
    for i, (t, top) in enumerate(((5, 10), (10, 30), (20, 60), (40, 100), (100, 300), (150, 999))):
        tests.append((f"1{i}_random", _case(rng, t, top)))
    tests.append(("20_huge", _case(rng, 15000, 100000)))
    tests.append(("21_huge", _case(rng, 14000, 90000)))
    return tests
