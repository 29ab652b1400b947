#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>
using namespace std;
struct C { double x, y, r; };
typedef pair<double, double> P;

C c2(P a, P b) {
    double cx = (a.first + b.first) / 2, cy = (a.second + b.second) / 2;
    return {cx, cy, hypot(a.first - cx, a.second - cy)};
}
C c3(P a, P b, P c) {
    double bx = b.first - a.first, by = b.second - a.second;
    double cx = c.first - a.first, cy = c.second - a.second;
    double d = 2 * (bx * cy - by * cx);
    if (d == 0) {
        C r1 = c2(a, b), r2 = c2(a, c), r3 = c2(b, c);
        C best = r1;
        if (r2.r > best.r) best = r2;
        if (r3.r > best.r) best = r3;
        return best;
    }
    double b2 = bx * bx + by * by, cc = cx * cx + cy * cy;
    double ux = (cy * b2 - by * cc) / d, uy = (bx * cc - cx * b2) / d;
    return {a.first + ux, a.second + uy, hypot(ux, uy)};
}
bool out(P p, const C &c) { return hypot(p.first - c.x, p.second - c.y) > c.r + 1e-7; }

int main() {
    int n;
    if (scanf("%d", &n) != 1) return 0;
    vector<P> p(n);
    for (auto &q : p) {
        long long x, y;
        scanf("%lld %lld", &x, &y);
        q = {(double)x, (double)y};
    }
    sort(p.begin(), p.end());
    p.erase(unique(p.begin(), p.end()), p.end());
    shuffle(p.begin(), p.end(), mt19937(12345));
    C c = {p[0].first, p[0].second, 0};
    for (size_t i = 1; i < p.size(); i++) {
        if (!out(p[i], c)) continue;
        c = {p[i].first, p[i].second, 0};
        for (size_t j = 0; j < i; j++) {
            if (!out(p[j], c)) continue;
            c = c2(p[i], p[j]);
            for (size_t k = 0; k < j; k++)
                if (out(p[k], c)) c = c3(p[i], p[j], p[k]);
        }
    }
    printf("%.6f\n", c.r);
    return 0;
}
