import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    w = list(map(int, data[1 : 1 + n]))
    tally = [0] * max(w)  # one slot short: the heaviest weight has no slot
    for x in w:
        tally[x] += 1
    reach = 1
    for v in range(1, len(tally)):
        c = tally[v]
        k = 1
        while c > 0:
            take = min(k, c)
            reach |= reach << (v * take)
            c -= take
            k *= 2
    print(reach.bit_count() - 1)


main()
