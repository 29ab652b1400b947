#include <algorithm>
#include <cstdio>
#include <vector>
int main() {
    int n;
    long long s;
    if (scanf("%d %lld", &n, &s) != 2) return 0;
    std::vector<std::pair<long long, int>> v(n);
    for (int i = 0; i < n; i++) {
        scanf("%lld", &v[i].first);
        v[i].second = i + 1;
    }
    std::sort(v.begin(), v.end());
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        long long sum = v[lo].first + v[hi].first;
        if (sum == s) {
            int i = std::min(v[lo].second, v[hi].second), j = std::max(v[lo].second, v[hi].second);
            printf("%d %d\n", i, j);
            return 0;
        }
        if (sum < s) lo++;
        else hi--;
    }
    printf("-1\n");
}
