#include <cstdio>
#include <vector>
using namespace std;

int main() {
    int n, m;
    if (scanf("%d %d", &n, &m) != 2) return 0;
    vector<vector<int>> out(n + 1);
    vector<int> indeg(n + 1, 0), sem(n + 1, 1), q;
    for (int j = 0; j < m; j++) {
        int a, b;
        scanf("%d %d", &a, &b);
        out[a].push_back(b);
        indeg[b]++;
    }
    for (int i = 1; i <= n; i++)
        if (!indeg[i]) q.push_back(i);
    for (size_t h = 0; h < q.size(); h++) {
        int a = q[h];
        for (int b : out[a]) {
            sem[b] = max(sem[b], sem[a] + 1);
            if (--indeg[b] == 0) q.push_back(b);
        }
    }
    if ((int)q.size() < n) {
        printf("-1\n");
        return 0;
    }
    int s = 0;
    for (int i = 1; i <= n; i++) s = max(s, sem[i]);
    printf("%d\n", s);
    for (int i = 1; i <= n; i++) printf("%d%c", sem[i], i == n ? '\n' : ' ');
    return 0;
}
