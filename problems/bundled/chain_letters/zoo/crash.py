import sys


def main():
    data = sys.stdin.buffer.read().split()
    q = int(data[0])
    out = []
    for j in range(q):
        a, b, m = int(data[1 + 3 * j]), int(data[2 + 3 * j]), int(data[3 + 3 * j])
        # modular inverse of a - 1: ValueError when a - 1 and m share a factor (or a = 1)
        inv = pow(a - 1, -1, m)
        out.append((pow(a, b + 1, m) - 1) * inv % m)
    sys.stdout.write("\n".join(map(str, out)) + "\n")


main()
