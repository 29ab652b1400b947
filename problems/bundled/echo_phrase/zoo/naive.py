import sys


def main():
    s = sys.stdin.readline().strip()
    n = len(s)
    for length in range(n - 1, 0, -1):
        first = {}
        for i in range(n - length + 1):
            piece = s[i : i + length]
            if piece in first:
                print(length)
                print(first[piece] + 1, i + 1)
                return
            first[piece] = i
    print(0)


main()
