import sys


def main():
    s = sys.stdin.readline().strip()
    # Manacher on s with separators: t = ^#a#b#...#$, rad[i] = palindrome radius in t
    t = "^#" + "#".join(s) + "#$"
    m = len(t)
    rad = [0] * m
    centre = right = 0
    for i in range(1, m - 1):
        r = min(right - i, rad[2 * centre - i]) if i < right else 0
        while t[i + r + 1] == t[i - r - 1]:
            r += 1
        rad[i] = r
        if i + r > right:
            centre, right = i, i + r
    best = max(rad)
    i = rad.index(best)  # the leftmost centre of a longest palindrome is its leftmost start
    print(best, (i - best) // 2 + 1)


main()
