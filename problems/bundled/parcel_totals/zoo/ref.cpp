#include <bitset>
#include <cstdio>
#include <map>
using namespace std;

const int MAXS = 1000001;
bitset<MAXS> reach;

int main() {
    int n;
    if (scanf("%d", &n) != 1) return 0;
    map<int, int> cnt;
    for (int i = 0; i < n; i++) {
        int w;
        scanf("%d", &w);
        cnt[w]++;
    }
    reach[0] = 1;
    for (auto [v, c] : cnt) {
        for (int k = 1; c > 0; k *= 2) {
            int take = min(k, c);
            reach |= reach << ((long long)v * take >= MAXS ? MAXS - 1 : v * take);
            c -= take;
        }
    }
    printf("%d\n", (int)reach.count() - 1);
    return 0;
}
