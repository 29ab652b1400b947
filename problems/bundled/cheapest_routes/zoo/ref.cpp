#include <cstdio>
#include <functional>
#include <queue>
#include <vector>
int main() {
    int n, m;
    if (scanf("%d %d", &n, &m) != 2) return 0;
    std::vector<std::vector<std::pair<int, long long>>> adj(n + 1);
    for (int j = 0; j < m; j++) {
        int u, v;
        long long w;
        scanf("%d %d %lld", &u, &v, &w);
        adj[u].push_back({v, w});
        adj[v].push_back({u, w});
    }
    std::vector<long long> dist(n + 1, -1);
    std::priority_queue<std::pair<long long, int>, std::vector<std::pair<long long, int>>, std::greater<>> pq;
    pq.push({0, 1});
    while (!pq.empty()) {
        auto [d, u] = pq.top();
        pq.pop();
        if (dist[u] >= 0) continue;
        dist[u] = d;
        for (auto [v, w] : adj[u])
            if (dist[v] < 0) pq.push({d + w, v});
    }
    for (int i = 1; i <= n; i++) printf("%lld ", dist[i]);
    printf("\n");
}
