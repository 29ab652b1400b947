#include <cstdio>
typedef unsigned long long ull;
typedef unsigned __int128 u128;

// (sum of a^i for i < n, a^n), both modulo m, by binary doubling of n
void walk(ull a, ull n, ull m, ull &s, ull &p) {
    s = 0;
    p = 1 % m;
    ull sa = 1 % m, pa = a % m;  // the block for the current bit: (sum_{i<2^k}, a^(2^k))
    while (n) {
        if (n & 1) {
            s = (ull)(((u128)s * pa + sa) % m);
            p = (ull)((u128)p * pa % m);
        }
        sa = (ull)(((u128)sa * pa + sa) % m);
        pa = (ull)((u128)pa * pa % m);
        n >>= 1;
    }
}

int main() {
    int q;
    if (scanf("%d", &q) != 1) return 0;
    while (q--) {
        ull a, b, m, s, p;
        scanf("%llu %llu %llu", &a, &b, &m);
        walk(a, b + 1, m, s, p);
        printf("%llu\n", s);
    }
    return 0;
}
