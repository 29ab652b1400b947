"""Family window_extreme: the total of every window's largest or smallest value, modulo a statement
modulus (a monotonic deque; slow: scan each window)."""

FAMILY = "window_extreme"
TITLE = "Window Extremes"
ARRAYS = ("a", "arr", "vals", "nums", "xs", "ys")
NOUNS = ("readings", "heights", "prices", "levels", "depths", "loads")


def params(rng, index):
    largest = index % 2 == 0  # alternating, so instances 0-4 show both
    return {
        "mod": rng.choice((97, 101, 103, 107, 997, 1009, 1013)),
        "arr": rng.choice(ARRAYS),
        "noun": rng.choice(NOUNS),
        "which": "largest" if largest else "smallest",
        "cmp": "<=" if largest else ">=",
        "flip": ">=" if largest else "<=",
        "strict": ">" if largest else "<",
    }


STATEMENT = """# $title

A row holds n $noun. For every window of k consecutive $noun, take its $which value; print the
total of these values over all n - k + 1 windows, modulo $mod.

## Input
The first line holds n and k (1 <= k <= n). The second line holds the n $noun (integers from 0 to
10^6).

## Output
One integer: the total modulo $mod.
"""

EFFICIENT = """import sys
from collections import deque
data = sys.stdin.buffer.read().split()
n = int(data[0])
k = int(data[1])
$arr = list(map(int, data[2:2 + n]))
dq = deque()
total = 0
for i in range(n):
    while dq and $arr[dq[-1]] $cmp $arr[i]:
        dq.pop()
    dq.append(i)
    if dq[0] <= i - k:
        dq.popleft()
    if i >= k - 1:
        total += $arr[dq[0]]
print(total % $mod)
"""

SLOW = """import sys
data = sys.stdin.buffer.read().split()
n = int(data[0])
k = int(data[1])
$arr = list(map(int, data[2:2 + n]))
total = 0
for i in range(n - k + 1):
    best = $arr[i]
    for j in range(i + 1, i + k):
        if $arr[j] $strict best:
            best = $arr[j]
    total += best
print(total % $mod)
"""

MISTAKES = {
    "missing_mod": EFFICIENT.replace("print(total % $mod)", "print(total)"),
    "window_too_wide": EFFICIENT.replace("if dq[0] <= i - k:", "if dq[0] < i - k:"),
    "other_extreme": EFFICIENT.replace("$arr[dq[-1]] $cmp $arr[i]", "$arr[dq[-1]] $flip $arr[i]"),
}


def _case(rng, n, k):
    values = [rng.randint(0, 10**6) for _ in range(n)]
    return f"{n} {k}\n" + " ".join(map(str, values)) + "\n"


def generate(rng, p):
    sizes = [(1, 1), (4, 2), (8, 3), (15, 5), (40, 7), (80, 20), (120, 40), (140, 70)]
    tests = [(f"{i:02d}_random", _case(rng, n, k)) for i, (n, k) in enumerate(sizes)]
    tests.append(("20_huge", _case(rng, 14000, 7000)))
    tests.append(("21_huge", _case(rng, 13000, 5000)))
    return tests
