#include <algorithm>
#include <cstdio>
#include <vector>
int main() {
    int n;
    if (scanf("%d", &n) != 1) return 0;
    std::vector<long long> a(n);
    for (auto &x : a) scanf("%lld", &x);
    std::vector<long long> tails;
    std::vector<int> at, prev(n, -1);
    for (int i = 0; i < n; i++) {
        int k = std::lower_bound(tails.begin(), tails.end(), a[i]) - tails.begin();
        if (k == (int)tails.size()) {
            tails.push_back(a[i]);
            at.push_back(i);
        } else {
            tails[k] = a[i];
            at[k] = i;
        }
        prev[i] = k ? at[k - 1] : -1;
    }
    std::vector<int> picks;
    for (int i = at.back(); i >= 0; i = prev[i]) picks.push_back(i + 1);
    std::reverse(picks.begin(), picks.end());
    printf("%zu\n", picks.size());
    for (int p : picks) printf("%d ", p);
    printf("\n");
}
