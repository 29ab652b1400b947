import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, k = int(data[0]), int(data[1])
    full = (1 << k) - 1
    cnt = [0] * full  # one slot short: the all-skills mask has no slot
    for tok in data[2 : 2 + n]:
        cnt[int(tok, 2)] += 1
    sup = cnt[:]
    for b in range(k):
        for m in range(full):
            if not m >> b & 1 and m | 1 << b < full:
                sup[m] += sup[m | 1 << b]
    ordered = sum(cnt[m] * sup[full ^ m] for m in range(1, full) if cnt[m])
    print(ordered // 2)


main()
