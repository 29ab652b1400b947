#include <algorithm>
#include <iostream>
#include <string>
#include <unordered_map>
using namespace std;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int n;
    cin >> n;
    unordered_map<string, int> groups;
    groups.reserve(2 * n);
    int best = 0;
    for (int i = 0; i < n; i++) {
        string w;
        cin >> w;
        sort(w.begin(), w.end());
        best = max(best, ++groups[w]);
    }
    cout << groups.size() << " " << best << "\n";
    return 0;
}
