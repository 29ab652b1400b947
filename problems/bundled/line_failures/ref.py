import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, m, q = int(data[0]), int(data[1]), int(data[2])
    ends = list(map(int, data[3 : 3 + 2 * m]))
    failures = [int(x) - 1 for x in data[3 + 2 * m : 3 + 2 * m + q]]
    parent = list(range(n + 1))
    size = [1] * (n + 1)

    def find(x):
        root = x
        while parent[root] != root:
            root = parent[root]
        while parent[x] != root:
            parent[x], x = root, parent[x]
        return root

    groups = n

    def join(i):
        nonlocal groups
        ra, rb = find(ends[2 * i]), find(ends[2 * i + 1])
        if ra != rb:
            if size[ra] < size[rb]:
                ra, rb = rb, ra
            parent[rb] = ra
            size[ra] += size[rb]
            groups -= 1

    # run the heat wave backwards: start from the lines that never fail, repair failures in reverse
    closed = bytearray(m)
    for c in failures:
        closed[c] = 1
    for i in range(m):
        if not closed[i]:
            join(i)
    answers = [0] * q
    for j in range(q - 1, -1, -1):
        answers[j] = groups
        join(failures[j])
    sys.stdout.write("\n".join(map(str, answers)) + "\n")


main()
