#include <algorithm>
#include <cstdio>
#include <vector>
int main() {
    int n;
    if (scanf("%d", &n) != 1) return 0;
    std::vector<std::pair<long long, long long>> iv(n);
    for (auto &p : iv) scanf("%lld %lld", &p.first, &p.second);
    std::sort(iv.begin(), iv.end());
    long long total = 0, parts = 0, cl = 0, cr = -1;
    for (auto [l, r] : iv) {
        if (parts && l <= cr) {
            cr = std::max(cr, r);
        } else {
            if (parts) total += cr - cl;
            cl = l, cr = r;
            parts++;
        }
    }
    if (parts) total += cr - cl;
    printf("%lld %lld\n", total, parts);
}
