#include "testlib.h"
#include <iostream>

// The test's input: n and the combination x. The answer file holds the least number of tries that
// always suffices (for the message only).
int main(int argc, char* argv[]) {
    registerInteraction(argc, argv);
    long long n = inf.readLong();
    long long x = inf.readLong();
    std::cout << n << std::endl;
    const int max_tries = 200000;
    for (int tries = 0;; ++tries) {
        std::string op = ouf.readToken("[?!]", "operation");
        long long y = ouf.readLong(1LL, n, "y");
        if (op == "!") {
            tout << y << std::endl;
            if (y != x) quitf(_wa, "the combination is %lld, not %lld", x, y);
            quitf(_ok, "found %lld in %d tries", x, tries);
        }
        if (tries == max_tries) quitf(_wa, "more than %d tries", max_tries);
        std::cout << (x < y ? "<" : x > y ? ">" : "=") << std::endl;
    }
}
