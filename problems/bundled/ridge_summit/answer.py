# the answer file: the summit's post
n, p, base = map(int, input().split())
print(p)
