import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, k = int(data[0]), int(data[1])
    a = list(map(int, data[2 : 2 + n]))
    window = sum(a[:k])
    best = window
    for i in range(k, n):
        window += a[i] - a[i - k]
        if window > best:
            best = window
    print(f"{best / k:.9f}")


main()
