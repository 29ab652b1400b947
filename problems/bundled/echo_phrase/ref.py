import sys


def main():
    s = sys.stdin.readline().strip()
    # suffix automaton of s; minpos / maxpos: smallest / largest end position of each state's
    # substrings (a state occurs twice or more exactly when they differ)
    link = [-1]
    length = [0]
    trans = [{}]
    minpos = [-1]
    maxpos = [-1]
    last = 0
    for i, ch in enumerate(s):
        cur = len(length)
        length.append(length[last] + 1)
        link.append(-1)
        trans.append({})
        minpos.append(i)
        maxpos.append(i)
        p = last
        while p != -1 and ch not in trans[p]:
            trans[p][ch] = cur
            p = link[p]
        if p == -1:
            link[cur] = 0
        else:
            q = trans[p][ch]
            if length[p] + 1 == length[q]:
                link[cur] = q
            else:
                clone = len(length)
                length.append(length[p] + 1)
                link.append(link[q])
                trans.append(trans[q].copy())
                minpos.append(minpos[q])
                maxpos.append(maxpos[q])
                while p != -1 and trans[p].get(ch) == q:
                    trans[p][ch] = clone
                    p = link[p]
                link[q] = clone
                link[cur] = clone
        last = cur
    # push end positions up the suffix-link tree, longest states first (counting sort by length)
    buckets = [[] for _ in range(len(s) + 1)]
    for v in range(1, len(length)):
        buckets[length[v]].append(v)
    for ln in range(len(s), 0, -1):
        for v in buckets[ln]:
            u = link[v]
            if minpos[u] == -1 or minpos[v] < minpos[u]:
                minpos[u] = minpos[v]
            if maxpos[v] > maxpos[u]:
                maxpos[u] = maxpos[v]
    best, bi, bj = 0, 0, 0
    for v in range(1, len(length)):
        if length[v] > best and minpos[v] != maxpos[v]:
            best = length[v]
            bi, bj = minpos[v] - best + 2, maxpos[v] - best + 2
    print(best)
    if best:
        print(bi, bj)


main()
