from collections import Counter

n = int(input())
a = list(map(int, input().split())) if n else []
cnt = Counter(a)
out = []
for value, count in sorted(cnt.items(), key=lambda t: (t[1], t[0]), reverse=True):  # ties: larger first
    out += [value] * count
print(*out)
