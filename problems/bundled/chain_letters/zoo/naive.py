import sys


def main():
    data = sys.stdin.read().split()
    q = int(data[0])
    out = []
    for j in range(q):
        a, b, m = int(data[1 + 3 * j]), int(data[2 + 3 * j]), int(data[3 + 3 * j])
        total, term = 0, 1 % m
        for _ in range(b + 1):
            total = (total + term) % m
            term = term * a % m
        out.append(total)
    print("\n".join(map(str, out)))


main()
