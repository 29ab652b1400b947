import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, q = int(data[0]), int(data[1])
    parent = list(range(n + 1))
    size = [1] * (n + 1)

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    out = []
    for j in range(q):
        c, u, v = data[2 + 3 * j], int(data[3 + 3 * j]), int(data[4 + 3 * j])
        ru, rv = find(u), find(v)
        if c == b"+":
            if ru != rv:
                if size[ru] < size[rv]:
                    ru, rv = rv, ru
                parent[rv] = ru
                size[ru] += size[rv]
        else:
            out.append("YES" if ru == rv else "NO")
    sys.stdout.write("\n".join(out) + ("\n" if out else ""))


main()
