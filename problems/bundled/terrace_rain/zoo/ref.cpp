#include <cstdio>
#include <queue>
#include <vector>
using namespace std;

int main() {
    int R, C;
    if (scanf("%d %d", &R, &C) != 2) return 0;
    vector<int> h(R * C);
    for (auto &x : h) scanf("%d", &x);
    vector<char> seen(R * C, 0);
    priority_queue<pair<int, int>, vector<pair<int, int>>, greater<pair<int, int>>> pq;
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++)
            if (i == 0 || j == 0 || i == R - 1 || j == C - 1) {
                seen[i * C + j] = 1;
                pq.push({h[i * C + j], i * C + j});
            }
    long long water = 0;
    int di[4] = {-1, 1, 0, 0}, dj[4] = {0, 0, -1, 1};
    while (!pq.empty()) {
        auto [lvl, c] = pq.top();
        pq.pop();
        int i = c / C, j = c % C;
        for (int k = 0; k < 4; k++) {
            int a = i + di[k], b = j + dj[k];
            if (a < 0 || b < 0 || a >= R || b >= C) continue;
            int d = a * C + b;
            if (seen[d]) continue;
            seen[d] = 1;
            if (h[d] < lvl) {
                water += lvl - h[d];
                pq.push({lvl, d});
            } else {
                pq.push({h[d], d});
            }
        }
    }
    printf("%lld\n", water);
    return 0;
}
