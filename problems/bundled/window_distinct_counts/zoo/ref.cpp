#include <algorithm>
#include <cstdio>
#include <vector>
int main() {
    int n, k;
    if (scanf("%d %d", &n, &k) != 2) return 0;
    std::vector<long long> a(n);
    for (auto &x : a) scanf("%lld", &x);
    std::vector<long long> sorted(a);
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    std::vector<int> id(n), cnt(sorted.size(), 0);
    for (int i = 0; i < n; i++) id[i] = std::lower_bound(sorted.begin(), sorted.end(), a[i]) - sorted.begin();
    int distinct = 0;
    for (int i = 0; i < n; i++) {
        if (cnt[id[i]]++ == 0) distinct++;
        if (i >= k && --cnt[id[i - k]] == 0) distinct--;
        if (i >= k - 1) printf("%d ", distinct);
    }
    printf("\n");
}
