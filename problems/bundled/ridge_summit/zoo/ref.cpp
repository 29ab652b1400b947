#include <iostream>

static long long height(long long i) {
    std::cout << "? " << i << std::endl;
    long long h;
    std::cin >> h;
    return h;
}

int main() {
    long long n;
    std::cin >> n;
    long long lo = 1, hi = n;
    while (lo < hi) {
        long long mid = lo + (hi - lo) / 2;
        if (height(mid) < height(mid + 1)) lo = mid + 1; else hi = mid;
    }
    std::cout << "! " << lo << std::endl;
}
