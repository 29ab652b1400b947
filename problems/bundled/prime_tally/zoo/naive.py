import sys


def main():
    data = sys.stdin.read().split()
    q = int(data[0])
    out = []
    for j in range(q):
        lo, hi = int(data[1 + 2 * j]), int(data[2 + 2 * j])
        count = 0
        for x in range(max(lo, 2), hi + 1):
            d = 2
            while d * d <= x:
                if x % d == 0:
                    break
                d += 1
            else:
                count += 1
        out.append(count)
    print("\n".join(map(str, out)))


main()
