#include <cstdio>
#include <string>
#include <vector>
#include <iostream>
using namespace std;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    string s;
    int q;
    cin >> s >> q;
    int n = s.size();
    vector<int> b(n, 0);
    for (int i = 1, k = 0; i < n; i++) {
        while (k && s[k] != s[i]) k = b[k - 1];
        if (s[k] == s[i]) k++;
        b[i] = k;
    }
    string out;
    for (int j = 0; j < q; j++) {
        int L;
        cin >> L;
        out += to_string(L - b[L - 1]);
        out += j + 1 < q ? ' ' : '\n';
    }
    cout << out;
    return 0;
}
