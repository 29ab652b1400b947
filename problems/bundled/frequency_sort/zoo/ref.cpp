#include <algorithm>
#include <cstdio>
#include <vector>
int main() {
    int n;
    if (scanf("%d", &n) != 1) return 0;
    std::vector<long long> a(n);
    for (auto &x : a) scanf("%lld", &x);
    std::sort(a.begin(), a.end());
    std::vector<std::pair<int, long long>> groups;  // (-count, value)
    for (int i = 0; i < n;) {
        int j = i;
        while (j < n && a[j] == a[i]) j++;
        groups.push_back({-(j - i), a[i]});
        i = j;
    }
    std::sort(groups.begin(), groups.end());
    for (auto &g : groups)
        for (int c = 0; c < -g.first; c++) printf("%lld ", g.second);
    printf("\n");
}
