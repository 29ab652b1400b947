import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, m = int(data[0]), int(data[1])
    prereq = [[] for _ in range(n + 1)]
    for j in range(m):
        a, b = int(data[2 + 2 * j]), int(data[3 + 2 * j])
        prereq[b].append(a)
    sem = [0] * (n + 1)
    state = [0] * (n + 1)  # 0 new, 1 on the DFS path, 2 finished

    def visit(c):
        state[c] = 1
        best = 0
        for a in prereq[c]:
            if state[a] == 1:
                return False
            if state[a] == 0 and not visit(a):
                return False
            best = max(best, sem[a])
        sem[c] = best + 1
        state[c] = 2
        return True

    for c in range(1, n + 1):
        if state[c] == 0 and not visit(c):
            print(-1)
            return
    print(max(sem[1:]))
    print(" ".join(map(str, sem[1:])))


main()
