n = int(input())
jobs = sorted((tuple(map(int, input().split())) for _ in range(n)), key=lambda j: j[1])
best = [0] * n
for i, (s, _e, p) in enumerate(jobs):
    best[i] = p
    for j in range(i):
        if jobs[j][1] <= s and best[j] + p > best[i]:
            best[i] = best[j] + p
    if i and best[i - 1] > best[i]:
        best[i] = best[i - 1]
print(best[-1])
