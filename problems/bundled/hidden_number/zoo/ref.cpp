#include <cstdio>
#include <iostream>
#include <string>

int main() {
    long long n;
    std::cin >> n;
    long long lo = 1, hi = n;
    while (true) {
        long long mid = lo + (hi - lo) / 2;
        std::cout << "? " << mid << std::endl;
        std::string reply;
        std::cin >> reply;
        if (reply == "=") {
            std::cout << "! " << mid << std::endl;
            return 0;
        }
        if (reply == "<") hi = mid - 1; else lo = mid + 1;
    }
}
