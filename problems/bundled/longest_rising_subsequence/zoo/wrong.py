from bisect import bisect_right

n = int(input())
a = list(map(int, input().split()))
tails, at, prev = [], [], [-1] * n
for i, x in enumerate(a):
    k = bisect_right(tails, x)  # lets equal heights extend a choice: non-decreasing, not rising
    if k == len(tails):
        tails.append(x)
        at.append(i)
    else:
        tails[k], at[k] = x, i
    prev[i] = at[k - 1] if k else -1
picks = []
i = at[-1]
while i >= 0:
    picks.append(i + 1)
    i = prev[i]
print(len(picks))
print(*picks[::-1])
