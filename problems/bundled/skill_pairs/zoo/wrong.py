import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, k = int(data[0]), int(data[1])
    size = 1 << k
    full = size - 1
    cnt = [0] * size
    for tok in data[2 : 2 + n]:
        cnt[int(tok, 2)] += 1
    sup = cnt[:]
    for b in range(k):
        for m in range(size):
            if not m >> b & 1:
                sup[m] += sup[m | 1 << b]
    ordered = sum(cnt[m] * sup[full ^ m] for m in range(size) if cnt[m])
    print(ordered // 2)  # a participant with every skill is also paired with themselves


main()
