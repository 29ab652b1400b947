# the answer file: the number of tries a halving search needs at most (the interactor's message only)
n, x = map(int, input().split())
print(n.bit_length())
