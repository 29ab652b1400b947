#include <algorithm>
#include <cmath>
#include <cstdio>
#include <climits>
#include <set>
#include <vector>
typedef long long ll;
int main() {
    int n;
    if (scanf("%d", &n) != 1) return 0;
    std::vector<std::pair<ll, ll>> p(n);
    for (auto &q : p) scanf("%lld %lld", &q.first, &q.second);
    std::sort(p.begin(), p.end());
    // sweep by x, keeping the points within the best distance in a set ordered by y
    std::set<std::pair<ll, ll>> active;  // (y, x)
    ll best = -1;
    double bd = 1e18;
    size_t left = 0;
    for (size_t i = 0; i < p.size(); i++) {
        ll x = p[i].first, y = p[i].second;
        while (left < i && (double)(x - p[left].first) > bd) {
            active.erase({p[left].second, p[left].first});
            left++;
        }
        ll reach = (ll)std::ceil(bd);
        for (auto it = active.lower_bound({y - reach, LLONG_MIN}); it != active.end() && it->first <= y + reach; ++it) {
            ll dx = x - it->second, dy = y - it->first, d = dx * dx + dy * dy;
            if (best < 0 || d < best) {
                best = d;
                bd = std::sqrt((double)best);
            }
        }
        active.insert({y, x});
    }
    printf("%.9f\n", std::sqrt((double)best));
}
