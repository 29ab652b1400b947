#include <cstdio>
#include <vector>
int main() {
    int n, k;
    if (scanf("%d %d", &n, &k) != 2) return 0;
    std::vector<long long> a(n);
    for (auto &x : a) scanf("%lld", &x);
    long long window = 0;
    for (int i = 0; i < k; i++) window += a[i];
    long long best = window;
    for (int i = k; i < n; i++) {
        window += a[i] - a[i - k];
        if (window > best) best = window;
    }
    printf("%.9f\n", (double)best / k);
}
