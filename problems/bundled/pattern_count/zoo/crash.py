t = input().strip()
p = input().strip()
n, m = len(t), len(p)
B, M = 131, (1 << 61) - 1
power = [1] * (n + 1)  # powers up to the strand's length only
for i in range(n):
    power[i + 1] = power[i] * B % M
h = [0] * (n + 1)
for i, c in enumerate(t):
    h[i + 1] = (h[i] * B + ord(c)) % M
hp = 0
for c in p:
    hp = (hp * B + ord(c)) % M
shift = power[m]  # IndexError when the motif is longer than the strand
count = 0
for i in range(n - m + 1):
    if (h[i + m] - h[i] * shift) % M == hp and t[i : i + m] == p:
        count += 1
print(count)
