"""Family residue_pairs: pairs with the same remainder modulo a statement modulus (count per
remainder; slow: every pair)."""

FAMILY = "residue_pairs"
TITLE = "Matching Remainders"
ARRAYS = ("a", "arr", "vals", "nums", "xs", "ys")
NOUNS = ("tickets", "coins", "tokens", "cards", "chips", "keys")


def params(rng, index):
    return {"mod": rng.randint(3, 60), "arr": rng.choice(ARRAYS), "noun": rng.choice(NOUNS)}


STATEMENT = """# $title

There are n $noun, each with a number. Count the pairs of two different $noun whose numbers leave
the same remainder when divided by $mod.

## Input
The first line holds n. The second line holds the n numbers (integers from 0 to 10^6).

## Output
One integer: the number of such pairs.
"""

EFFICIENT = """import sys
data = sys.stdin.buffer.read().split()
n = int(data[0])
$arr = list(map(int, data[1:1 + n]))
cnt = [0] * $mod
for x in $arr:
    cnt[x % $mod] += 1
print(sum(c * (c - 1) // 2 for c in cnt))
"""

SLOW = """import sys
data = sys.stdin.buffer.read().split()
n = int(data[0])
$arr = list(map(int, data[1:1 + n]))
count = 0
for i in range(n):
    for j in range(i + 1, n):
        if $arr[i] % $mod == $arr[j] % $mod:
            count += 1
print(count)
"""

MISTAKES = {
    "self_pairs": EFFICIENT.replace("c * (c - 1) // 2", "c * (c + 1) // 2"),
    "squares": EFFICIENT.replace("c * (c - 1) // 2", "c * c // 2"),
}


def _case(rng, n):
    values = [rng.randint(0, 10**6) for _ in range(n)]
    return f"{n}\n" + " ".join(map(str, values)) + "\n"


def generate(rng, p):
    m = p["mod"]
    tests = [("00_one", "1\n7\n"), ("01_pair", f"3\n{m} {2 * m} 1\n")]
    for i, n in enumerate((5, 10, 20, 40, 80, 100)):
        tests.append((f"1{i}_random", _case(rng, n)))
    tests.append(("20_huge", _case(rng, 14000)))
    tests.append(("21_huge", _case(rng, 13000)))
    return tests
