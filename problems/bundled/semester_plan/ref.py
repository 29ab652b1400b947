import sys
from collections import deque


def main():
    data = sys.stdin.buffer.read().split()
    n, m = int(data[0]), int(data[1])
    out_edges = [[] for _ in range(n + 1)]
    indeg = [0] * (n + 1)
    for j in range(m):
        a, b = int(data[2 + 2 * j]), int(data[3 + 2 * j])
        out_edges[a].append(b)
        indeg[b] += 1
    # Kahn's algorithm; a course's semester is 1 + the latest semester among its prerequisites
    sem = [1] * (n + 1)
    queue = deque(i for i in range(1, n + 1) if indeg[i] == 0)
    done = 0
    while queue:
        a = queue.popleft()
        done += 1
        for b in out_edges[a]:
            if sem[a] + 1 > sem[b]:
                sem[b] = sem[a] + 1
            indeg[b] -= 1
            if indeg[b] == 0:
                queue.append(b)
    if done < n:
        print(-1)
        return
    print(max(sem[1:]))
    print(" ".join(map(str, sem[1:])))


main()
