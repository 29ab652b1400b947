import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, m, q = int(data[0]), int(data[1]), int(data[2])
    ends = list(map(int, data[3 : 3 + 2 * m]))
    failures = [int(x) - 1 for x in data[3 + 2 * m : 3 + 2 * m + q]]
    parent = list(range(n + 1))

    def find(x):
        # recursive path compression without union by size: deep trees overflow the stack
        if parent[x] != x:
            parent[x] = find(parent[x])
        return parent[x]

    groups = n

    def join(i):
        nonlocal groups
        ra, rb = find(ends[2 * i]), find(ends[2 * i + 1])
        if ra != rb:
            parent[ra] = rb
            groups -= 1

    closed = set(failures)
    for i in range(m):
        if i not in closed:
            join(i)
    answers = []
    for j in range(q - 1, -1, -1):
        answers.append(groups)
        join(failures[j])
    sys.stdout.write("\n".join(map(str, reversed(answers))) + "\n")


main()
