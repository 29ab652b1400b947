#include <cstdio>
#include <iostream>
#include <string>
#include <vector>
int main() {
    std::string s;
    std::cin >> s;
    std::string t = "^#";
    for (char c : s) {
        t += c;
        t += '#';
    }
    t += '$';
    int m = t.size();
    std::vector<int> rad(m, 0);
    int centre = 0, right = 0;
    for (int i = 1; i < m - 1; i++) {
        int r = i < right ? std::min(right - i, rad[2 * centre - i]) : 0;
        while (t[i + r + 1] == t[i - r - 1]) r++;
        rad[i] = r;
        if (i + r > right) centre = i, right = i + r;
    }
    int best = 0, at = 0;
    for (int i = 1; i < m - 1; i++)
        if (rad[i] > best) best = rad[i], at = i;
    printf("%d %d\n", best, (at - best) / 2 + 1);
}
