#include <cstdio>
#include <iostream>
#include <string>
#include <vector>
int main() {
    std::ios::sync_with_stdio(false);
    std::string t, p;
    std::cin >> t >> p;
    int n = t.size(), m = p.size();
    // Z-function of p + '#' + t
    std::string s = p + "#" + t;
    int L = s.size();
    std::vector<int> z(L, 0);
    long long count = 0;
    for (int i = 1, l = 0, r = 0; i < L; i++) {
        if (i < r) z[i] = std::min(r - i, z[i - l]);
        while (i + z[i] < L && s[z[i]] == s[i + z[i]]) z[i]++;
        if (i + z[i] > r) l = i, r = i + z[i];
        if (i > m && z[i] >= m) count++;
    }
    (void)n;
    printf("%lld\n", count);
}
