from collections import defaultdict

n, k = map(int, input().split())
a = list(map(int, input().split()))
count = defaultdict(int)
for x in a[:k]:
    count[x] += 1
out = [len(count)]
for i in range(k, n):
    count[a[i]] += 1
    count[a[i - k]] -= 1  # a kind whose count drops to 0 stays in the dict and is still counted
    out.append(len(count))
print(*out)
