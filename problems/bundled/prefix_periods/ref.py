import sys


def main():
    data = sys.stdin.buffer.read().split()
    s = data[0].decode()
    q = int(data[1])
    n = len(s)
    # prefix function: border[i] = longest proper border of s[0 .. i]
    border = [0] * n
    k = 0
    for i in range(1, n):
        c = s[i]
        while k and s[k] != c:
            k = border[k - 1]
        if s[k] == c:
            k += 1
        border[i] = k
    out = []
    for tok in data[2 : 2 + q]:
        length = int(tok)
        out.append(length - border[length - 1])  # smallest period = length - longest border
    sys.stdout.write(" ".join(map(str, out)) + "\n")


main()
