#include <cstring>
#include <iostream>
#include <string>
#include <vector>
using namespace std;

// suffix automaton; minpos / maxpos: smallest / largest end position of a state's substrings
struct State {
    int len, link, next[26], minpos, maxpos;
};

int main() {
    ios::sync_with_stdio(false);
    string s;
    cin >> s;
    int n = s.size();
    vector<State> st(2 * n + 2);
    int sz = 1, last = 0;
    st[0].len = 0;
    st[0].link = -1;
    st[0].minpos = st[0].maxpos = -1;
    memset(st[0].next, -1, sizeof st[0].next);
    for (int i = 0; i < n; i++) {
        int c = s[i] - 'a', cur = sz++;
        st[cur].len = st[last].len + 1;
        st[cur].minpos = st[cur].maxpos = i;
        memset(st[cur].next, -1, sizeof st[cur].next);
        int p = last;
        while (p != -1 && st[p].next[c] == -1) {
            st[p].next[c] = cur;
            p = st[p].link;
        }
        if (p == -1) {
            st[cur].link = 0;
        } else {
            int q = st[p].next[c];
            if (st[p].len + 1 == st[q].len) {
                st[cur].link = q;
            } else {
                int cl = sz++;
                st[cl] = st[q];
                st[cl].len = st[p].len + 1;
                while (p != -1 && st[p].next[c] == q) {
                    st[p].next[c] = cl;
                    p = st[p].link;
                }
                st[q].link = st[cur].link = cl;
            }
        }
        last = cur;
    }
    vector<vector<int>> byLen(n + 1);
    for (int v = 1; v < sz; v++) byLen[st[v].len].push_back(v);
    for (int l = n; l > 0; l--)
        for (int v : byLen[l]) {
            int u = st[v].link;
            if (st[u].minpos == -1 || st[v].minpos < st[u].minpos) st[u].minpos = st[v].minpos;
            if (st[v].maxpos > st[u].maxpos) st[u].maxpos = st[v].maxpos;
        }
    int best = 0, bi = 0, bj = 0;
    for (int v = 1; v < sz; v++)
        if (st[v].len > best && st[v].minpos != st[v].maxpos) {
            best = st[v].len;
            bi = st[v].minpos - best + 2;
            bj = st[v].maxpos - best + 2;
        }
    cout << best << "\n";
    if (best) cout << bi << " " << bj << "\n";
    return 0;
}
