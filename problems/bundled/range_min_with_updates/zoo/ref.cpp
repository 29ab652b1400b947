#include <algorithm>
#include <climits>
#include <cstdio>
#include <vector>
int main() {
    int n, q;
    if (scanf("%d %d", &n, &q) != 2) return 0;
    int size = 1;
    while (size < n) size *= 2;
    std::vector<long long> tree(2 * size, LLONG_MAX);
    for (int i = 0; i < n; i++) scanf("%lld", &tree[size + i]);
    for (int k = size - 1; k > 0; k--) tree[k] = std::min(tree[2 * k], tree[2 * k + 1]);
    while (q--) {
        int kind;
        long long a, b;
        scanf("%d %lld %lld", &kind, &a, &b);
        if (kind == 1) {
            int k = size + a - 1;
            tree[k] = b;
            for (k >>= 1; k; k >>= 1) tree[k] = std::min(tree[2 * k], tree[2 * k + 1]);
        } else {
            if (a > b) std::swap(a, b);
            long long best = LLONG_MAX;
            for (long long lo = a - 1 + size, hi = b + size; lo < hi; lo >>= 1, hi >>= 1) {
                if (lo & 1) best = std::min(best, tree[lo++]);
                if (hi & 1) best = std::min(best, tree[--hi]);
            }
            printf("%lld\n", best);
        }
    }
}
