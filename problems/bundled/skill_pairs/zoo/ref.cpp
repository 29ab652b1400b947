#include <cstdio>
#include <cstdlib>
#include <vector>
using namespace std;

int main() {
    int n, k;
    if (scanf("%d %d", &n, &k) != 2) return 0;
    int size = 1 << k, full = size - 1;
    vector<long long> cnt(size, 0);
    char buf[32];
    for (int i = 0; i < n; i++) {
        scanf("%31s", buf);
        cnt[strtol(buf, nullptr, 2)]++;
    }
    vector<long long> sup(cnt);
    for (int b = 0; b < k; b++)
        for (int m = 0; m < size; m++)
            if (!(m >> b & 1)) sup[m] += sup[m | 1 << b];
    long long ordered = 0;
    for (int m = 0; m < size; m++) ordered += cnt[m] * sup[full ^ m];
    ordered -= cnt[full];
    printf("%lld\n", ordered / 2);
    return 0;
}
