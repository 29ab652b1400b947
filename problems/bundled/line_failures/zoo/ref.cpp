#include <cstdio>
#include <numeric>
#include <vector>
using namespace std;

vector<int> par, sz;
int groups;

int find(int x) {
    while (par[x] != x) {
        par[x] = par[par[x]];
        x = par[x];
    }
    return x;
}

void join(int a, int b) {
    a = find(a);
    b = find(b);
    if (a == b) return;
    if (sz[a] < sz[b]) swap(a, b);
    par[b] = a;
    sz[a] += sz[b];
    groups--;
}

int main() {
    int n, m, q;
    if (scanf("%d %d %d", &n, &m, &q) != 3) return 0;
    vector<int> a(m), b(m), cl(q);
    for (int i = 0; i < m; i++) scanf("%d %d", &a[i], &b[i]);
    vector<char> closed(m, 0);
    for (int j = 0; j < q; j++) {
        scanf("%d", &cl[j]);
        cl[j]--;
        closed[cl[j]] = 1;
    }
    par.resize(n + 1);
    iota(par.begin(), par.end(), 0);
    sz.assign(n + 1, 1);
    groups = n;
    for (int i = 0; i < m; i++)
        if (!closed[i]) join(a[i], b[i]);
    vector<int> ans(q);
    for (int j = q - 1; j >= 0; j--) {
        ans[j] = groups;
        join(a[cl[j]], b[cl[j]]);
    }
    for (int j = 0; j < q; j++) printf("%d\n", ans[j]);
    return 0;
}
