import sys


def main():
    data = sys.stdin.read().split()
    n = int(data[0])
    reps = []  # one sorted representative per group found so far
    sizes = []
    for w in data[1 : 1 + n]:
        key = sorted(w)
        for g, r in enumerate(reps):
            if r == key:
                sizes[g] += 1
                break
        else:
            reps.append(key)
            sizes.append(1)
    print(len(reps), max(sizes))


main()
