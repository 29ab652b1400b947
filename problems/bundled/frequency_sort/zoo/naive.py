n = int(input())
a = list(map(int, input().split())) if n else []
b = sorted(a, key=lambda x: (-a.count(x), x))
print(*b)
