import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, q = int(data[0]), int(data[1])
    # bottom-up segment tree: leaves at size..size+n-1, tree[k] = min(tree[2k], tree[2k+1])
    size = 1
    while size < n:
        size *= 2
    inf = float("inf")
    tree = [inf] * (2 * size)
    tree[size : size + n] = map(int, data[2 : 2 + n])
    for k in range(size - 1, 0, -1):
        a, b = tree[2 * k], tree[2 * k + 1]
        tree[k] = a if a < b else b
    out = []
    pos = 2 + n
    for _ in range(q):
        kind, a, b = data[pos], int(data[pos + 1]), int(data[pos + 2])
        pos += 3
        if kind == b"1":
            k = size + a - 1
            tree[k] = b
            k >>= 1
            while k:
                x, y = tree[2 * k], tree[2 * k + 1]
                tree[k] = x if x < y else y
                k >>= 1
        else:
            if a > b:
                a, b = b, a
            lo, hi = a - 1 + size, b + size  # half-open [lo, hi)
            best = inf
            while lo < hi:
                if lo & 1:
                    if tree[lo] < best:
                        best = tree[lo]
                    lo += 1
                if hi & 1:
                    hi -= 1
                    if tree[hi] < best:
                        best = tree[hi]
                lo >>= 1
                hi >>= 1
            out.append(best)
    if out:
        sys.stdout.write("\n".join(map(str, out)) + "\n")


main()
