import sys


def main():
    data = sys.stdin.buffer.read().split()
    s = data[0].decode()
    q = int(data[1])
    n = len(s)
    border = [0] * n
    k = 0
    for i in range(1, n):
        while k and s[k] != s[i]:
            k = border[k - 1]
        if s[k] == s[i]:
            k += 1
        border[i] = k
    out = []
    for tok in data[2 : 2 + q]:
        length = int(tok)
        p = length - border[length - 1]
        if length % p:  # mistakes "period" for "the prefix is whole copies of a block"
            p = length
        out.append(p)
    sys.stdout.write(" ".join(map(str, out)) + "\n")


main()
