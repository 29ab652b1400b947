"""The ridge's interactor: the test's input is `n p base`; the height at post i is base + i up to
the summit p and base + 2p - i after it. The answer file holds p."""

import sys

MAX_READS = 3_000_000
MAX_LINE = 64


def wrong(message):
    print(f"wrong answer {message}", file=sys.stderr)
    sys.exit(1)


def main():
    n, p, base = map(int, open("input").read().split())
    summit = int(open("answer").read())
    if summit != p:
        print(f"FAIL answer file says {summit}, input {p}", file=sys.stderr)
        sys.exit(3)
    out = sys.stdout
    out.write(f"{n}\n")
    out.flush()
    read = sys.stdin.buffer.readline
    for reads in range(MAX_READS + 1):
        line = read(MAX_LINE)
        if not line:
            wrong(f"the program ended after {reads} reads without naming the summit")
        if not line.endswith(b"\n"):
            wrong(f"line {reads + 1} is not a line of at most {MAX_LINE - 1} bytes")
        words = line.split()
        if len(words) != 2 or words[0] not in (b"?", b"!") or not words[1].isdigit():
            wrong(f"line {reads + 1} is not '? i' or '! p': {line[:40]!r}")
        i = int(words[1])
        if not 1 <= i <= n:
            wrong(f"post {i} is not between 1 and {n}")
        if words[0] == b"!":
            with open("output", "w") as f:
                f.write(f"{i}\n")
            if i != p:
                wrong(f"the summit is post {p}, not {i}")
            print(f"ok summit {p} after {reads} reads", file=sys.stderr)
            return
        if reads == MAX_READS:
            wrong(f"more than {MAX_READS} reads")
        out.write(f"{base + i if i <= p else base + 2 * p - i}\n")
        out.flush()


main()
