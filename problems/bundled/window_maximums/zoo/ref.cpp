#include <cstdio>
#include <deque>
#include <string>
#include <vector>
using namespace std;

int main() {
    int n, k;
    if (scanf("%d %d", &n, &k) != 2) return 0;
    vector<long long> p(n);
    for (auto &x : p) scanf("%lld", &x);
    deque<int> dq;
    string out;
    for (int i = 0; i < n; i++) {
        while (!dq.empty() && p[dq.back()] <= p[i]) dq.pop_back();
        dq.push_back(i);
        if (dq.front() <= i - k) dq.pop_front();
        if (i >= k - 1) {
            out += to_string(p[dq.front()]);
            out += ' ';
        }
    }
    out += '\n';
    fputs(out.c_str(), stdout);
    return 0;
}
