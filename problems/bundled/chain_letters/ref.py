import sys


def series(a, b, m):
    if a == 1:
        return (b + 1) % m
    # a^(b+1) - 1 is divisible by a - 1; computing it modulo m * (a - 1) keeps the quotient
    # exact modulo m (for a = 0: (0 - 1) / (-1) = 1)
    d = a - 1
    mod = m * abs(d)
    top = (pow(a, b + 1, mod) - 1) % mod
    return (top // d) % m if d > 0 else (-top // -d) % m


def main():
    data = sys.stdin.buffer.read().split()
    q = int(data[0])
    out = []
    for j in range(q):
        a, b, m = int(data[1 + 3 * j]), int(data[2 + 3 * j]), int(data[3 + 3 * j])
        out.append(series(a, b, m))
    sys.stdout.write("\n".join(map(str, out)) + "\n")


main()
