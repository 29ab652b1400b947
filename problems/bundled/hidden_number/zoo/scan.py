import sys

# tries every number from 1 up: a try per number, n round trips through the interactor
n = int(sys.stdin.readline())
for y in range(1, n + 1):
    print("?", y, flush=True)
    if sys.stdin.readline().strip() == "=":
        print("!", y, flush=True)
        break
