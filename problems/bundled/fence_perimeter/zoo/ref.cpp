#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>
using namespace std;
typedef long long ll;
typedef pair<ll, ll> P;

ll cross(const P &o, const P &a, const P &b) {
    return (a.first - o.first) * (b.second - o.second) - (a.second - o.second) * (b.first - o.first);
}

int main() {
    int n;
    if (scanf("%d", &n) != 1) return 0;
    vector<P> p(n);
    for (auto &q : p) scanf("%lld %lld", &q.first, &q.second);
    sort(p.begin(), p.end());
    p.erase(unique(p.begin(), p.end()), p.end());
    if (p.size() == 1) {
        printf("0.000000\n");
        return 0;
    }
    vector<P> h(2 * p.size());
    int k = 0;
    for (size_t i = 0; i < p.size(); i++) {
        while (k >= 2 && cross(h[k - 2], h[k - 1], p[i]) <= 0) k--;
        h[k++] = p[i];
    }
    for (int i = (int)p.size() - 2, t = k + 1; i >= 0; i--) {
        while (k >= t && cross(h[k - 2], h[k - 1], p[i]) <= 0) k--;
        h[k++] = p[i];
    }
    h.resize(k - 1);
    double total = 0;
    for (size_t i = 0; i < h.size(); i++) {
        const P &a = h[(i + h.size() - 1) % h.size()], &b = h[i];
        total += hypot((double)(b.first - a.first), (double)(b.second - a.second));
    }
    printf("%.6f\n", total);
    return 0;
}
