import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, k = int(data[0]), int(data[1])
    a = data[2 : 2 + n]  # kinds compared as byte strings: same decimal text, same kind
    count = {}
    for x in a[:k]:
        count[x] = count.get(x, 0) + 1
    out = [len(count)]
    for i in range(k, n):
        x, y = a[i], a[i - k]
        count[x] = count.get(x, 0) + 1
        c = count[y] - 1
        if c:
            count[y] = c
        else:
            del count[y]
        out.append(len(count))
    sys.stdout.write(" ".join(map(str, out)) + "\n")


main()
