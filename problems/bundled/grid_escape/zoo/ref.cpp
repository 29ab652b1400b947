#include <cstdio>
#include <cstring>
#include <string>
#include <vector>
int main() {
    int R, C;
    if (scanf("%d %d", &R, &C) != 2) return 0;
    int W = C + 2;
    std::vector<char> g((size_t)W * (R + 2), '#');
    std::vector<char> line(C + 2);
    for (int r = 0; r < R; r++) {
        scanf("%s", line.data());
        memcpy(&g[(size_t)(r + 1) * W + 1], line.data(), C);
    }
    int s = -1, e = -1;
    for (size_t i = 0; i < g.size(); i++) {
        if (g[i] == 'S') s = i;
        if (g[i] == 'E') e = i;
    }
    std::vector<int> dist(g.size(), -1), q;
    q.reserve(g.size());
    dist[s] = 0;
    q.push_back(s);
    int d[4] = {1, -1, W, -W};
    for (size_t h = 0; h < q.size(); h++) {
        int u = q[h];
        for (int k = 0; k < 4; k++) {
            int v = u + d[k];
            if (dist[v] < 0 && g[v] != '#') {
                dist[v] = dist[u] + 1;
                q.push_back(v);
            }
        }
    }
    printf("%d\n", dist[e]);
}
