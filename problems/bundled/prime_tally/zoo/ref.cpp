#include <cstdio>
#include <vector>
#include <algorithm>
using namespace std;

int main() {
    int q;
    if (scanf("%d", &q) != 1) return 0;
    vector<int> l(q), r(q);
    int limit = 1;
    for (int i = 0; i < q; i++) {
        scanf("%d %d", &l[i], &r[i]);
        limit = max(limit, r[i]);
    }
    vector<char> comp(limit + 1, 0);
    vector<int> cnt(limit + 1, 0);
    comp[0] = comp[1] = 1;
    for (long long p = 2; p * p <= limit; p++)
        if (!comp[p])
            for (long long m = p * p; m <= limit; m += p) comp[m] = 1;
    for (int i = 1; i <= limit; i++) cnt[i] = cnt[i - 1] + (comp[i] ? 0 : 1);
    for (int i = 0; i < q; i++) printf("%d\n", cnt[r[i]] - cnt[l[i] - 1]);
    return 0;
}
