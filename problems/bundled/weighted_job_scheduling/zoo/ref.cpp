#include <algorithm>
#include <cstdio>
#include <tuple>
#include <vector>
int main() {
    int n;
    if (scanf("%d", &n) != 1) return 0;
    std::vector<std::tuple<long long, long long, long long>> jobs(n);  // (end, start, pay)
    for (auto &[e, s, p] : jobs) scanf("%lld %lld %lld", &s, &e, &p);
    std::sort(jobs.begin(), jobs.end());
    std::vector<long long> ends(n), best(n + 1, 0);
    for (int i = 0; i < n; i++) ends[i] = std::get<0>(jobs[i]);
    for (int k = 1; k <= n; k++) {
        auto [e, s, p] = jobs[k - 1];
        int j = std::upper_bound(ends.begin(), ends.begin() + (k - 1), s) - ends.begin();
        best[k] = std::max(best[k - 1], best[j] + p);
    }
    printf("%lld\n", best[n]);
}
