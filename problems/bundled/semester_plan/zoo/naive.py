import sys


def main():
    data = sys.stdin.read().split()
    n, m = int(data[0]), int(data[1])
    prereq = [[] for _ in range(n + 1)]
    for j in range(m):
        a, b = int(data[2 + 2 * j]), int(data[3 + 2 * j])
        prereq[b].append(a)
    sem = [0] * (n + 1)
    semester = 0
    placed = 0
    while placed < n:
        semester += 1
        # every course whose prerequisites were all taken in earlier semesters
        ready = [c for c in range(1, n + 1) if sem[c] == 0 and all(0 < sem[a] < semester for a in prereq[c])]
        if not ready:
            print(-1)
            return
        for c in ready:
            sem[c] = semester
        placed += len(ready)
    print(semester)
    print(" ".join(map(str, sem[1:])))


main()
