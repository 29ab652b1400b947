import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, s = int(data[0]), int(data[1])
    first = {}
    for j, x in enumerate(map(int, data[2 : 2 + n])):
        i = first.get(s - x)
        if i is not None:
            print(i + 1, j + 1)
            return
        first.setdefault(x, j)
    print(-1)


main()
