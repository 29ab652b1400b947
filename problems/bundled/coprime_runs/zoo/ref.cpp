#include <cstdio>
#include <numeric>
#include <vector>
using namespace std;
typedef long long ll;

int main() {
    int n;
    if (scanf("%d", &n) != 1) return 0;
    vector<pair<ll, ll>> runs, nxt;
    ll total = 0;
    for (int i = 0; i < n; i++) {
        ll x;
        scanf("%lld", &x);
        nxt.clear();
        for (auto [g, c] : runs) {
            ll h = gcd(g, x);
            if (!nxt.empty() && nxt.back().first == h) nxt.back().second += c;
            else nxt.push_back({h, c});
        }
        if (!nxt.empty() && nxt.back().first == x) nxt.back().second++;
        else nxt.push_back({x, 1});
        swap(runs, nxt);
        if (runs[0].first == 1) total += runs[0].second;
    }
    printf("%lld\n", total);
    return 0;
}
