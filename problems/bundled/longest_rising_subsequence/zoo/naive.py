n = int(input())
a = list(map(int, input().split()))
best = [1] * n
prev = [-1] * n
for i in range(n):
    for j in range(i):
        if a[j] < a[i] and best[j] + 1 > best[i]:
            best[i] = best[j] + 1
            prev[i] = j
end = max(range(n), key=lambda i: best[i])
picks = []
while end >= 0:
    picks.append(end + 1)
    end = prev[end]
print(len(picks))
print(*picks[::-1])
