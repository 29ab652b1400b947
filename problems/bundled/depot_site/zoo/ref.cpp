#include <cstdio>
#include <vector>
using namespace std;
typedef long long ll;

int main() {
    int n;
    if (scanf("%d", &n) != 1) return 0;
    vector<ll> w(n + 1);
    for (int i = 1; i <= n; i++) scanf("%lld", &w[i]);
    vector<vector<pair<int, ll>>> adj(n + 1);
    for (int j = 0; j < n - 1; j++) {
        int u, v;
        ll len;
        scanf("%d %d %lld", &u, &v, &len);
        adj[u].push_back({v, len});
        adj[v].push_back({u, len});
    }
    vector<int> par(n + 1, 0), order;
    vector<ll> up(n + 1, 0), depth(n + 1, 0), sub(w), cost(n + 1, 0);
    vector<char> seen(n + 1, 0);
    vector<int> st = {1};
    seen[1] = 1;
    while (!st.empty()) {
        int u = st.back();
        st.pop_back();
        order.push_back(u);
        for (auto [v, len] : adj[u])
            if (!seen[v]) {
                seen[v] = 1;
                par[v] = u;
                up[v] = len;
                depth[v] = depth[u] + len;
                st.push_back(v);
            }
    }
    for (int k = n - 1; k > 0; k--) sub[par[order[k]]] += sub[order[k]];
    for (int i = 1; i <= n; i++) cost[1] += w[i] * depth[i];
    for (int k = 1; k < n; k++) {
        int u = order[k];
        cost[u] = cost[par[u]] + up[u] * (sub[1] - 2 * sub[u]);
    }
    int best = 1;
    for (int i = 2; i <= n; i++)
        if (cost[i] < cost[best]) best = i;
    printf("%d %lld\n", best, cost[best]);
    return 0;
}
