import sys


def main():
    data = sys.stdin.read().split()
    n = int(data[0])
    sums = {0}
    for tok in data[1 : 1 + n]:
        w = int(tok)
        sums |= {s + w for s in sums}
    print(len(sums) - 1)


main()
