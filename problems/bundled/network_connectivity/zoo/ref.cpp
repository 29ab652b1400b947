#include <cstdio>
#include <numeric>
#include <vector>
std::vector<int> parent;
int find(int x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
}
int main() {
    int n, q;
    if (scanf("%d %d", &n, &q) != 2) return 0;
    parent.resize(n + 1);
    std::iota(parent.begin(), parent.end(), 0);
    std::vector<int> size(n + 1, 1);
    char c[4];
    for (int j = 0; j < q; j++) {
        int u, v;
        scanf("%3s %d %d", c, &u, &v);
        int ru = find(u), rv = find(v);
        if (c[0] == '+') {
            if (ru == rv) continue;
            if (size[ru] < size[rv]) std::swap(ru, rv);
            parent[rv] = ru;
            size[ru] += size[rv];
        } else {
            puts(ru == rv ? "YES" : "NO");
        }
    }
}
