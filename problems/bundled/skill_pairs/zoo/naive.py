import sys


def main():
    data = sys.stdin.read().split()
    n, k = int(data[0]), int(data[1])
    full = (1 << k) - 1
    masks = [int(t, 2) for t in data[2 : 2 + n]]
    teams = 0
    for i in range(n):
        a = masks[i]
        for j in range(i + 1, n):
            if a | masks[j] == full:
                teams += 1
    print(teams)


main()
