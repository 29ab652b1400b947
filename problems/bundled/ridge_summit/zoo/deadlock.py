import sys

# waits for a height before it has asked for one: both sides wait for the other
n = int(sys.stdin.readline())
h = int(sys.stdin.readline())
print("!", 1, flush=True)
