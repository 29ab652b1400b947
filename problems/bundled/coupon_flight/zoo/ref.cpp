#include <cstdio>
#include <queue>
#include <vector>
using namespace std;
typedef long long ll;
const ll INF = (ll)4e18;

vector<ll> dijkstra(int n, const vector<vector<pair<int, ll>>> &adj, int src) {
    vector<ll> dist(n + 1, INF);
    priority_queue<pair<ll, int>, vector<pair<ll, int>>, greater<pair<ll, int>>> pq;
    dist[src] = 0;
    pq.push({0, src});
    while (!pq.empty()) {
        auto [d, u] = pq.top();
        pq.pop();
        if (d > dist[u]) continue;
        for (auto [v, c] : adj[u])
            if (d + c < dist[v]) {
                dist[v] = d + c;
                pq.push({dist[v], v});
            }
    }
    return dist;
}

int main() {
    int n, m;
    if (scanf("%d %d", &n, &m) != 2) return 0;
    vector<vector<pair<int, ll>>> fwd(n + 1), rev(n + 1);
    vector<int> eu(m), ev(m);
    vector<ll> ec(m);
    for (int j = 0; j < m; j++) {
        scanf("%d %d %lld", &eu[j], &ev[j], &ec[j]);
        fwd[eu[j]].push_back({ev[j], ec[j]});
        rev[ev[j]].push_back({eu[j], ec[j]});
    }
    vector<ll> a = dijkstra(n, fwd, 1), b = dijkstra(n, rev, n);
    ll best = a[n];
    for (int j = 0; j < m; j++)
        if (a[eu[j]] < INF && b[ev[j]] < INF) best = min(best, a[eu[j]] + ec[j] / 2 + b[ev[j]]);
    printf("%lld\n", best >= INF ? -1LL : best);
    return 0;
}
