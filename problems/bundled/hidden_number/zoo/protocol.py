import sys

# asks with "guess y" instead of "? y": the interactor refuses the first line
n = int(sys.stdin.readline())
print("guess", (1 + n) // 2, flush=True)
print(sys.stdin.readline())
