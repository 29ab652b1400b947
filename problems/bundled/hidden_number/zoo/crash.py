import sys

# reads the interactor's first line as two numbers: a ValueError before its first try
n, m = map(int, sys.stdin.readline().split())
print("!", n, flush=True)
