// codefrontier's testlib-compatible runtime, written for this project (no code of testlib's own).
//
// It implements testlib's public interface for checkers, validators and generators, with testlib's
// documented behaviour, so that an unmodified `#include "testlib.h"` program compiles and gives the
// verdict testlib gives:
//
//   registerTestlibCmd(argc, argv)   checker <input> <participant output> <answer>
//   registerValidation([argc, argv]) validator < input (strict mode: every blank is read explicitly)
//   registerGen(argc, argv, version) generator: `rnd` seeded from the command line, testlib's sequence
//   registerInteraction(argc, argv)  interactor <input> <output> [<answer>]: `ouf` is what the program
//                                    sends (stdin, read as it arrives), stdout goes to the program
//
// Exit codes are testlib's: 0 ok, 1 wrong answer, 2 presentation error (also a premature end of
// file and extra output after an accepted answer), 3 failure of the checker itself, 7 points, and
// `_pc(n)` exits n. The verdict is written to stderr as testlib words it ("wrong answer ...",
// "FAIL ..."); the message is kept on one line, so the last line of stderr is always the verdict
// (the judge reads a points verdict's value there: "points <value> <message>").
//
// Semantics kept on purpose (each one is testlib's):
// - blanks are space, tab, CR and LF only (not \f or \v); a UTF-8 BOM at the start of the
//   participant's output is skipped (only there, as testlib does);
// - integers: an optional '-' and decimal digits; leading zeros ("01", "00") and "-0" are refused;
//   a value that does not fit the type is refused (presentation error);
// - doubles: only digits, '.', 'e', 'E', '+', '-' may appear, then C's sscanf("%lf%s") decides (a
//   number with nothing after it; "1.5e" is 1.5, as glibc's scanf reads it); nan refused;
// - readLine/readString at the end of the file return "" (no error); a CR not followed by LF is
//   dropped from a line and the byte after it kept (testlib's reader);
// - eoln() consumes the end of line it finds; readEof() wants the end of file at once;
// - doubleCompare(E, R, eps) widens eps by 1e-15 first, then accepts |R - E| <= eps or R within
//   [E*(1-eps), E*(1+eps)];
// - a failed read or a verdict other than FAIL given through `inf` or `ans` is the jury's fault:
//   FAIL, with the stream's name appended; through `ouf` it is the participant's verdict.
//
// Not here: the result file / -appes XML, opts' exponent
// forms beyond plain numbers, and testlib's colour output.
#ifndef CODEFRONTIER_TESTLIB_H
#define CODEFRONTIER_TESTLIB_H
#ifndef _TESTLIB_H_
#define _TESTLIB_H_
#endif

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include <unistd.h>

#define VERSION "0.9.41-codefrontier"

#define LF ((char)10)
#define CR ((char)13)
#define TAB ((char)9)
#define SPACE ((char)' ')
#define EOFC (255)

#ifndef OK_EXIT_CODE
#define OK_EXIT_CODE 0
#endif
#ifndef WA_EXIT_CODE
#define WA_EXIT_CODE 1
#endif
#ifndef PE_EXIT_CODE
#define PE_EXIT_CODE 2
#endif
#ifndef FAIL_EXIT_CODE
#define FAIL_EXIT_CODE 3
#endif
#ifndef DIRT_EXIT_CODE
#define DIRT_EXIT_CODE 4
#endif
#ifndef POINTS_EXIT_CODE
#define POINTS_EXIT_CODE 7
#endif
#ifndef UNEXPECTED_EOF_EXIT_CODE
#define UNEXPECTED_EOF_EXIT_CODE 8
#endif
#ifndef PC_BASE_EXIT_CODE
#define PC_BASE_EXIT_CODE 0
#endif

#define I64 "%lld"
#define U64 "%llu"

#ifdef __GNUC__
#define NORETURN __attribute__((noreturn))
#else
#define NORETURN
#endif

enum TMode { _input, _output, _answer };

enum TResult {
    _ok = 0,
    _wa = 1,
    _pe = 2,
    _fail = 3,
    _dirt = 4,
    _points = 5,
    _unexpected_eof = 8,
    _partially = 16
};

enum TTestlibMode { _unknown, _checker, _validator, _generator, _interactor, _scorer };

#define _pc(exitCode) (TResult(_partially + (exitCode)))

const long long __TESTLIB_LONGLONG_MAX = 9223372036854775807LL;
const int __TESTLIB_MAX_TEST_CASE = 1073741823;

namespace cf_testlib {

inline std::string vformat(const char* fmt, va_list ap) {
    va_list copy;
    va_copy(copy, ap);
    int n = std::vsnprintf(nullptr, 0, fmt, copy);
    va_end(copy);
    if (n < 0) return fmt;
    std::string out(static_cast<size_t>(n) + 1, '\0');
    std::vsnprintf(&out[0], out.size(), fmt, ap);
    out.resize(static_cast<size_t>(n));
    return out;
}

// What the program is (set by the register function) and what it has done, for the end-of-run guard.
struct State {
    TTestlibMode mode = _unknown;
    bool registered = false;
    bool guard = true;
    int quits = 0;
    int input_eofs = 0;
    bool has_test_case = false;
    int test_case = -1;
    double points = std::numeric_limits<double>::infinity();
    std::string checker_name = "untitled checker";
};

inline State& state() {
    static State s;
    return s;
}

const char OPEN_BRACKET = char(11);
const char CLOSE_BRACKET = char(17);

// `message` with `extra` in its trailing "(...)" group (opened if there is none), testlib's way of
// adding a stream name or a test case to a message.
inline std::string append_message(const std::string& message, const std::string& extra) {
    size_t open = message.find(OPEN_BRACKET), close = message.find(CLOSE_BRACKET);
    bool one_group = open != std::string::npos && close != std::string::npos && open < close &&
                     message.find(OPEN_BRACKET, open + 1) == std::string::npos &&
                     message.find(CLOSE_BRACKET, close + 1) == std::string::npos;
    if (one_group) {
        size_t at = message.find(extra, open);
        if (at == std::string::npos || at >= close) {
            std::string out(message);
            out.insert(close, ", " + extra);
            return out;
        }
        return message;
    }
    return message + " " + OPEN_BRACKET + extra + CLOSE_BRACKET;
}

inline std::string printable(const std::string& message) {
    std::string out(message);
    size_t open = out.find(OPEN_BRACKET), close = out.find(CLOSE_BRACKET);
    if (open != std::string::npos && close != std::string::npos && open < close &&
        out.find(OPEN_BRACKET, open + 1) == std::string::npos && out.find(CLOSE_BRACKET, close + 1) == std::string::npos) {
        out[open] = '(';
        out[close] = ')';
    }
    return out;
}

inline void on_exit();

}  // namespace cf_testlib

template <typename C>
inline bool isEof(C c) {
    return c == EOFC;
}

template <typename C>
inline bool isEoln(C c) {
    return c == LF || c == CR;
}

template <typename C>
inline bool isBlanks(C c) {
    return c == LF || c == CR || c == SPACE || c == TAB;
}

inline std::string trim(const std::string& s) {
    size_t left = 0, right = s.size();
    while (left < right && isBlanks(s[left])) ++left;
    while (right > left && isBlanks(s[right - 1])) --right;
    return s.substr(left, right - left);
}

#ifdef __GNUC__
__attribute__((format(printf, 1, 2)))
#endif
inline std::string format(const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    std::string s = cf_testlib::vformat(fmt, ap);
    va_end(ap);
    return s;
}

inline std::string format(const std::string fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    std::string s = cf_testlib::vformat(fmt.c_str(), ap);
    va_end(ap);
    return s;
}

inline std::string removeDoubleTrailingZeroes(std::string value) {
    if (value.find('.') != std::string::npos) {
        while (!value.empty() && value.back() == '0') value.pop_back();
    }
    if (!value.empty() && value.back() == '.') value += '0';
    return value;
}

inline std::string upperCase(std::string s) {
    for (char& c : s)
        if ('a' <= c && c <= 'z') c = char(c - 'a' + 'A');
    return s;
}

inline std::string lowerCase(std::string s) {
    for (char& c : s)
        if ('A' <= c && c <= 'Z') c = char(c - 'A' + 'a');
    return s;
}

template <typename T>
static std::string vtos(const T& t, std::true_type) {
    if (t == 0) return "0";
    T n(t);
    bool negative = n < 0;
    std::string digits;
    while (n != 0) {
        T d = n % 10;
        if (d < 0) d = -d;
        digits += char('0' + d);
        n /= 10;
    }
    std::reverse(digits.begin(), digits.end());
    return negative ? "-" + digits : digits;
}

template <typename T>
static std::string vtos(const T& t, std::false_type) {
    std::ostringstream out;
    out << t;
    // testlib reads the text back as one token: the first whitespace-free word of it
    std::istringstream in(out.str());
    std::string word;
    in >> word;
    return word;
}

template <typename T>
static std::string vtos(const T& t) {
    return vtos(t, std::is_integral<T>());
}

inline std::string vtos(const std::string& s) { return s; }
inline std::string vtos(const char* s) { return s; }

template <typename T>
static std::string toHumanReadableString(const T& n) {
    if (n == 0) return vtos(n);
    int zeros = 0;
    T m = n;
    while (m % 10 == 0) m /= 10, ++zeros;
    if (zeros < 7) return vtos(n);
    if (m == 1) return "10^" + vtos(zeros);
    if (std::is_signed<T>::value && m == T(-1)) return "-10^" + vtos(zeros);
    return vtos(m) + "*10^" + vtos(zeros);
}

template <typename T>
static std::string toString(const T& t) {
    return vtos(t);
}

// A token for a message: NUL bytes shown as '~', and a long one cut to its first 30 and last 31 bytes.
static std::string __testlib_part(const std::string& s) {
    std::string t(s);
    std::replace(t.begin(), t.end(), '\0', '~');
    if (t.size() <= 64) return t;
    return t.substr(0, 30) + "..." + t.substr(t.size() - 31);
}

inline std::string compress(const std::string& s) { return __testlib_part(s); }

inline std::string englishEnding(int x) {
    x %= 100;
    if (x / 10 == 1) return "th";
    if (x % 10 == 1) return "st";
    if (x % 10 == 2) return "nd";
    if (x % 10 == 3) return "rd";
    return "th";
}

template <typename It, typename Sep>
std::string join(It first, It last, Sep separator) {
    std::stringstream out;
    for (It i = first; i != last; ++i) {
        if (i != first) out << separator;
        out << *i;
    }
    return out.str();
}

template <typename It>
std::string join(It first, It last) {
    return join(first, last, ' ');
}

template <typename Collection, typename Sep>
std::string join(const Collection& c, Sep separator) {
    return join(c.begin(), c.end(), separator);
}

template <typename Collection>
std::string join(const Collection& c) {
    return join(c, ' ');
}

// k separators give exactly k+1 items (empty ones included).
inline std::vector<std::string> split(const std::string& s, const std::string& separators) {
    if (separators.empty()) return std::vector<std::string>(1, s);
    std::vector<std::string> out(1);
    for (char c : s) {
        if (separators.find(c) != std::string::npos)
            out.emplace_back();
        else
            out.back() += c;
    }
    return out;
}

inline std::vector<std::string> split(const std::string& s, char separator) {
    return split(s, std::string(1, separator));
}

// The non-empty items between separators.
inline std::vector<std::string> tokenize(const std::string& s, const std::string& separators) {
    if (separators.empty()) return std::vector<std::string>(1, s);
    std::vector<std::string> out;
    for (const std::string& item : split(s, separators))
        if (!item.empty()) out.push_back(item);
    return out;
}

inline std::vector<std::string> tokenize(const std::string& s, char separator) {
    return tokenize(s, std::string(1, separator));
}

static bool __testlib_isNaN(double r) { return std::isnan(r); }

static bool __testlib_isInfinite(double r) {
    volatile double v = r;
    return v > 1E300 || v < -1E300;
}

inline bool doubleCompare(double expected, double result, double MAX_DOUBLE_ERROR) {
    double eps = MAX_DOUBLE_ERROR + 1E-15;
    if (__testlib_isNaN(expected)) return __testlib_isNaN(result);
    if (__testlib_isInfinite(expected)) {
        if (expected > 0) return result > 0 && __testlib_isInfinite(result);
        return result < 0 && __testlib_isInfinite(result);
    }
    if (__testlib_isNaN(result) || __testlib_isInfinite(result)) return false;
    if (std::fabs(result - expected) <= eps) return true;
    double a = expected * (1.0 - eps), b = expected * (1.0 + eps);
    return result >= std::min(a, b) && result <= std::max(a, b);
}

inline double doubleDelta(double expected, double result) {
    double absolute = std::fabs(result - expected);
    if (std::fabs(expected) > 1E-9) return std::min(absolute, std::fabs(absolute / expected));
    return absolute;
}

inline bool equals(long long integer, const char* s) { return vtos(integer) == s; }
inline bool equals(unsigned long long integer, const char* s) { return vtos(integer) == s; }

// ------------------------------------------------------------------------------------------- pattern
class random_t;

// testlib's small pattern language: a char or [set] (ranges, ^ negation), then ?, *, +, {n} or {n,m};
// '|' alternatives and (...) groups; spaces are ignored unless escaped with '\'. Matching is
// testlib's greedy one: each repetition takes as many characters as it can (at most its maximum) and
// never gives any back, so "[0-9]?1" does not match "1".
class pattern {
  public:
    pattern(std::string s);
    std::string next(random_t& rnd) const;
    bool matches(const std::string& s) const { return matches(s, 0); }
    std::string src() const { return src_; }

  private:
    bool matches(const std::string& s, size_t pos) const;

    std::string src_;
    std::vector<pattern> alternatives_;  // the rest of the pattern, or its '|' branches
    std::vector<char> chars_;            // sorted
    int from_ = 0;
    int to_ = 0;
};

typedef pattern pattern_t;

namespace cf_testlib {

[[noreturn]] inline void fail(const std::string& message);
inline void prepare_opts(int argc, char* argv[]);

inline bool is_command(const std::string& s, size_t pos, char value) {
    if (pos >= s.size() || s[pos] != value) return false;
    size_t slashes = 0;
    while (slashes < pos && s[pos - 1 - slashes] == '\\') ++slashes;
    return slashes % 2 == 0;
}

inline char take_char(const std::string& s, size_t& pos) {
    if (s[pos] == '\\' && pos + 1 < s.size()) {
        pos += 2;
        return s[pos - 1];
    }
    return s[pos++];
}

[[noreturn]] inline void bad_pattern(const std::string& s) { fail("pattern: Illegal pattern (or part) \"" + s + "\""); }

inline std::vector<char> scan_set(const std::string& s, size_t& pos) {
    if (pos >= s.size()) bad_pattern(s);
    std::vector<char> out;
    if (!is_command(s, pos, '[')) {
        out.push_back(take_char(s, pos));
        return out;
    }
    ++pos;
    bool negative = is_command(s, pos, '^');
    if (negative) ++pos;
    bool have_prev = false;
    char prev = 0;
    while (pos < s.size() && !is_command(s, pos, ']')) {
        if (have_prev && is_command(s, pos, '-')) {
            ++pos;
            if (pos + 1 == s.size() || is_command(s, pos, ']')) {  // a '-' at the end is itself
                out.push_back(prev);
                prev = '-';
                continue;
            }
            char last = take_char(s, pos);
            if (prev > last) bad_pattern(s);
            for (int c = prev; c <= last; ++c) out.push_back(char(c));
            have_prev = false;
        } else {
            if (have_prev) out.push_back(prev);
            prev = take_char(s, pos);
            have_prev = true;
        }
    }
    if (have_prev) out.push_back(prev);
    if (!is_command(s, pos, ']')) bad_pattern(s);
    ++pos;
    std::sort(out.begin(), out.end());
    if (negative) {
        std::vector<char> complement;
        for (int code = 0; code < 255; ++code)
            if (!std::binary_search(out.begin(), out.end(), char(code))) complement.push_back(char(code));
        out = complement;
        std::sort(out.begin(), out.end());
    }
    return out;
}

inline void scan_counts(const std::string& s, size_t& pos, int& from, int& to) {
    from = to = 1;
    if (pos >= s.size()) return;
    if (is_command(s, pos, '{')) {
        ++pos;
        std::vector<std::string> parts;  // as testlib: an empty part before ',' counts, a last one does not
        std::string part;
        while (pos < s.size() && !is_command(s, pos, '}')) {
            if (is_command(s, pos, ',')) {
                parts.push_back(part);
                part.clear();
                ++pos;
            } else {
                part += take_char(s, pos);
            }
        }
        if (!part.empty()) parts.push_back(part);
        if (!is_command(s, pos, '}')) bad_pattern(s);
        ++pos;
        if (parts.empty() || parts.size() > 2) bad_pattern(s);
        std::vector<int> numbers;
        for (const std::string& p : parts) {
            int number;
            if (p.empty() || std::sscanf(p.c_str(), "%d", &number) != 1) bad_pattern(s);
            numbers.push_back(number);
        }
        from = numbers[0];
        to = numbers.back();
        if (from > to) bad_pattern(s);
    } else if (is_command(s, pos, '?')) {
        from = 0, to = 1, ++pos;
    } else if (is_command(s, pos, '*')) {
        from = 0, to = INT_MAX, ++pos;
    } else if (is_command(s, pos, '+')) {
        from = 1, to = INT_MAX, ++pos;
    }
}

}  // namespace cf_testlib

inline pattern::pattern(std::string s) : src_(s) {
    std::string t;
    for (size_t i = 0; i < s.size(); ++i)
        if (!cf_testlib::is_command(s, i, ' ')) t += s[i];
    s = t;

    int depth = 0, first_close = -1;
    std::vector<size_t> bars;
    for (size_t i = 0; i < s.size(); ++i) {
        if (cf_testlib::is_command(s, i, '(')) {
            ++depth;
        } else if (cf_testlib::is_command(s, i, ')')) {
            --depth;
            if (depth == 0 && first_close == -1) first_close = int(i);
            if (depth < 0) cf_testlib::bad_pattern(s);
        } else if (depth == 0 && cf_testlib::is_command(s, i, '|')) {
            bars.push_back(i);
        }
    }
    if (depth != 0) cf_testlib::bad_pattern(s);

    if (bars.empty() && first_close + 1 == int(s.size()) && cf_testlib::is_command(s, 0, '(')) {
        alternatives_.push_back(pattern(s.substr(1, s.size() - 2)));
    } else if (!bars.empty()) {
        size_t last = 0;
        bars.push_back(s.size());
        for (size_t bar : bars) {
            alternatives_.push_back(pattern(s.substr(last, bar - last)));
            last = bar + 1;
        }
    } else {
        size_t pos = 0;
        chars_ = cf_testlib::scan_set(s, pos);
        cf_testlib::scan_counts(s, pos, from_, to_);
        if (pos < s.size()) alternatives_.push_back(pattern(s.substr(pos)));
    }
}

inline bool pattern::matches(const std::string& s, size_t pos) const {
    if (to_ > 0) {
        size_t run = 0;
        while (pos + run < s.size() && std::binary_search(chars_.begin(), chars_.end(), s[pos + run])) ++run;
        if (run < size_t(from_)) return false;
        pos += std::min(run, size_t(to_));
    }
    if (alternatives_.empty()) return pos == s.size();
    for (const pattern& p : alternatives_)
        if (p.matches(s, pos)) return true;
    return false;
}

// --------------------------------------------------------------------------------------------- random

// testlib's generator: a 48-bit linear congruential sequence (Java's constants), seeded from the
// command line, with testlib's rejection sampling for ranges.
class random_t {
  private:
    unsigned long long seed;
    static const unsigned long long multiplier = 0x5DEECE66DULL;
    static const unsigned long long addend = 0xBULL;
    static const unsigned long long mask = (1ULL << 48) - 1;
    static const int lim = 25;

    long long nextBits(int bits) {
        if (bits <= 48) {
            seed = (seed * multiplier + addend) & mask;
            return (long long)(seed >> (48 - bits));
        }
        if (bits > 63) cf_testlib::fail("random_t::nextBits(int bits): n must be less than 64");
        int low = version == 0 ? 31 : 32;
        long long high_part = nextBits(31) << 32;
        long long low_part = nextBits(low);
        return high_part ^ low_part;
    }

    template <typename T>
    static T crop(T value, T a, T b) {
        return std::min(std::max(value, a), --b);
    }

    static double crop(double value, double a, double b) {
        value = std::min(std::max(value, a), b);
        if (value >= b) value = std::nexttoward(b, a);
        return value;
    }

  public:
    static inline int version = -1;

    random_t() : seed(3905348978240129619ULL) {}

    void setSeed(int argc, char* argv[]) {
        seed = 3905348978240129619ULL;
        for (int i = 1; i < argc; ++i) {
            for (const char* p = argv[i]; *p; ++p) seed = seed * multiplier + (unsigned int)(*p) + addend;
            seed += multiplier / addend;
        }
        seed &= mask;
    }

    void setSeed(long long value) { seed = ((unsigned long long)value ^ multiplier) & mask; }

    std::string next(const std::string& ptrn) { return pattern(ptrn).next(*this); }

#ifdef __GNUC__
    __attribute__((format(printf, 2, 3)))
#endif
    std::string
    next(const char* fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        std::string ptrn = cf_testlib::vformat(fmt, ap);
        va_end(ap);
        return next(ptrn);
    }

    int next(int n) {
        if (n <= 0) cf_testlib::fail("random_t::next(int n): n must be positive");
        if ((n & -n) == n) return int((n * (long long)nextBits(31)) >> 31);
        const long long limit = INT_MAX / n * n;
        long long bits;
        do bits = nextBits(31);
        while (bits >= limit);
        return int(bits % n);
    }

    unsigned int next(unsigned int n) {
        if (n >= INT_MAX) cf_testlib::fail("random_t::next(unsigned int n): n must be less INT_MAX");
        return (unsigned int)next(int(n));
    }

    long long next(long long n) {
        if (n <= 0) cf_testlib::fail("random_t::next(long long n): n must be positive");
        const long long limit = __TESTLIB_LONGLONG_MAX / n * n;
        long long bits;
        do bits = nextBits(63);
        while (bits >= limit);
        return bits % n;
    }

    unsigned long long next(unsigned long long n) {
        if (n >= (unsigned long long)__TESTLIB_LONGLONG_MAX)
            cf_testlib::fail("random_t::next(unsigned long long n): n must be less LONGLONG_MAX");
        return (unsigned long long)next((long long)n);
    }

    long next(long n) { return (long)next((long long)n); }

    unsigned long next(unsigned long n) {
        if (n >= (unsigned long)LONG_MAX) cf_testlib::fail("random_t::next(unsigned long n): n must be less LONG_MAX");
        return (unsigned long)next((unsigned long long)n);
    }

    int next(int from, int to) { return int(next((long long)to - from + 1) + from); }
    unsigned int next(unsigned int from, unsigned int to) {
        return (unsigned int)(next((long long)to - from + 1) + from);
    }
    long long next(long long from, long long to) { return next(to - from + 1) + from; }
    unsigned long long next(unsigned long long from, unsigned long long to) {
        if (from > to) cf_testlib::fail("random_t::next(unsigned long long from, unsigned long long to): from can't not exceed to");
        return next(to - from + 1) + from;
    }
    long next(long from, long to) { return next(to - from + 1) + from; }
    unsigned long next(unsigned long from, unsigned long to) {
        if (from > to) cf_testlib::fail("random_t::next(unsigned long from, unsigned long to): from can't not exceed to");
        return next(to - from + 1) + from;
    }

    // [0, 1): 53 random bits
    double next() {
        long long high_part = (long long)nextBits(26) << 27;
        long long low_part = nextBits(27);
        return crop(double(high_part + low_part) / double(1LL << 53), 0.0, 1.0);
    }

    double next(double n) {
        if (n <= 0.0) cf_testlib::fail("random_t::next(double): n should be positive");
        return crop(n * next(), 0.0, n);
    }

    double next(double from, double to) {
        if (from >= to) cf_testlib::fail("random_t::next(double from, double to): from should be strictly less than to");
        return next(to - from) + from;
    }

    template <typename Container>
    typename Container::value_type any(const Container& c) {
        int size = int(c.size());
        if (size <= 0) cf_testlib::fail("random_t::any(const Container& c): c.size() must be positive");
        typename Container::const_iterator it = c.begin();
        std::advance(it, next(size));
        return *it;
    }

    template <typename Iter>
    typename Iter::value_type any(const Iter& begin, const Iter& end) {
        int size = int(std::distance(begin, end));
        if (size <= 0) cf_testlib::fail("random_t::any(const Iter& begin, const Iter& end): range must have positive length");
        Iter it = begin;
        std::advance(it, next(size));
        return *it;
    }

    // type > 0: the largest of type+1 draws; type < 0: the smallest of -type+1 (by a power formula
    // once |type| reaches 25, as testlib does)
    template <typename T>
    T weighted(T n, int type) {
        if (std::abs(type) < lim) {
            T result = next(n);
            for (int i = 0; i < +type; ++i) result = std::max(result, next(n));
            for (int i = 0; i < -type; ++i) result = std::min(result, next(n));
            return result;
        }
        double p = type > 0 ? std::pow(next() + 0.0, 1.0 / (type + 1)) : 1 - std::pow(next() + 0.0, 1.0 / (-type + 1));
        return crop((T)(double(n) * p), T(0), n);
    }

    int wnext(int n, int type) {
        if (n <= 0) cf_testlib::fail("random_t::wnext(int n, int type): n must be positive");
        return weighted(n, type);
    }

    long long wnext(long long n, int type) {
        if (n <= 0) cf_testlib::fail("random_t::wnext(long long n, int type): n must be positive");
        return weighted(n, type);
    }

    double wnext(double n, int type) {
        if (n <= 0) cf_testlib::fail("random_t::wnext(double n, int type): n must be positive");
        if (std::abs(type) < lim) {
            double result = next();
            for (int i = 0; i < +type; ++i) result = std::max(result, next());
            for (int i = 0; i < -type; ++i) result = std::min(result, next());
            return n * result;
        }
        double p = type > 0 ? std::pow(next() + 0.0, 1.0 / (type + 1)) : 1 - std::pow(next() + 0.0, 1.0 / (-type + 1));
        return crop(n * p, 0.0, n);
    }

    double wnext(int type) { return wnext(1.0, type); }

    unsigned int wnext(unsigned int n, int type) {
        if (n >= INT_MAX) cf_testlib::fail("random_t::wnext(unsigned int n, int type): n must be less INT_MAX");
        return (unsigned int)wnext(int(n), type);
    }

    unsigned long long wnext(unsigned long long n, int type) {
        if (n >= (unsigned long long)__TESTLIB_LONGLONG_MAX)
            cf_testlib::fail("random_t::wnext(unsigned long long n, int type): n must be less LONGLONG_MAX");
        return (unsigned long long)wnext((long long)n, type);
    }

    long wnext(long n, int type) { return (long)wnext((long long)n, type); }

    unsigned long wnext(unsigned long n, int type) {
        if (n >= (unsigned long)LONG_MAX) cf_testlib::fail("random_t::wnext(unsigned long n, int type): n must be less LONG_MAX");
        return (unsigned long)wnext((unsigned long long)n, type);
    }

    int wnext(int from, int to, int type) {
        if (from > to) cf_testlib::fail("random_t::wnext(int from, int to, int type): from can't not exceed to");
        return wnext(to - from + 1, type) + from;
    }

    int wnext(unsigned int from, unsigned int to, int type) {
        if (from > to) cf_testlib::fail("random_t::wnext(unsigned int from, unsigned int to, int type): from can't not exceed to");
        return int(wnext(to - from + 1, type) + from);
    }

    long long wnext(long long from, long long to, int type) {
        if (from > to) cf_testlib::fail("random_t::wnext(long long from, long long to, int type): from can't not exceed to");
        return wnext(to - from + 1, type) + from;
    }

    unsigned long long wnext(unsigned long long from, unsigned long long to, int type) {
        if (from > to) cf_testlib::fail("random_t::wnext(unsigned long long from, unsigned long long to, int type): from can't not exceed to");
        return wnext(to - from + 1, type) + from;
    }

    long wnext(long from, long to, int type) {
        if (from > to) cf_testlib::fail("random_t::wnext(long from, long to, int type): from can't not exceed to");
        return wnext(to - from + 1, type) + from;
    }

    unsigned long wnext(unsigned long from, unsigned long to, int type) {
        if (from > to) cf_testlib::fail("random_t::wnext(unsigned long from, unsigned long to, int type): from can't not exceed to");
        return wnext(to - from + 1, type) + from;
    }

    double wnext(double from, double to, int type) {
        if (from >= to) cf_testlib::fail("random_t::wnext(double from, double to, int type): from should be strictly less than to");
        return wnext(to - from, type) + from;
    }

    template <typename Container>
    typename Container::value_type wany(const Container& c, int type) {
        int size = int(c.size());
        if (size <= 0) cf_testlib::fail("random_t::wany(const Container& c, int type): c.size() must be positive");
        typename Container::const_iterator it = c.begin();
        std::advance(it, wnext(size, type));
        return *it;
    }

    template <typename Iter>
    typename Iter::value_type wany(const Iter& begin, const Iter& end, int type) {
        int size = int(std::distance(begin, end));
        if (size <= 0) cf_testlib::fail("random_t::any(const Iter& begin, const Iter& end, int type): range must have positive length");
        Iter it = begin;
        std::advance(it, wnext(size, type));
        return *it;
    }

    // first, first+1, ..., first+size-1 in random order (each position swapped with a random earlier one)
    template <typename T, typename E>
    std::vector<E> perm(T size, E first) {
        if (size < 0) cf_testlib::fail("random_t::perm(T size, E first = 0): size must non-negative");
        std::vector<E> p(size);
        E current = first;
        for (T i = 0; i < size; ++i) p[i] = current++;
        for (T i = 1; i < size; ++i) std::swap(p[i], p[next(i + 1)]);
        return p;
    }

    template <typename T>
    std::vector<T> perm(T size) {
        return perm(size, T(0));
    }

    template <typename T>
    std::vector<T> distinct(int size, T from, T to) {
        std::vector<T> result;
        if (size == 0) return result;
        if (from > to) cf_testlib::fail("random_t::distinct expected from <= to");
        if (size < 0) cf_testlib::fail("random_t::distinct expected size >= 0");
        uint64_t n = to - from + 1;
        if (uint64_t(size) > n) cf_testlib::fail("random_t::distinct expected size <= to - from + 1");
        double expected = 0.0;
        for (int i = 1; i <= size; ++i) expected += double(n) / double(n - i + 1);
        if (expected < double(n)) {
            std::set<T> seen;
            while (int(seen.size()) < size) {
                T x = T(next(from, to));
                if (seen.insert(x).second) result.push_back(x);
            }
        } else {
            if (n > 1000000000) cf_testlib::fail("random_t::distinct here expected to - from + 1 <= 1000000000");
            std::vector<T> p(perm(int(n), from));
            result.insert(result.end(), p.begin(), p.begin() + size);
        }
        return result;
    }

    template <typename T>
    std::vector<T> distinct(int size, T upper) {
        if (size < 0) cf_testlib::fail("random_t::distinct expected size >= 0");
        if (size == 0) return std::vector<T>();
        if (upper <= 0) cf_testlib::fail("random_t::distinct expected upper > 0");
        if (size > upper) cf_testlib::fail("random_t::distinct expected size <= upper");
        return distinct(size, T(0), upper - 1);
    }

    template <typename T>
    std::vector<T> partition(int size, T sum, T min_part) {
        if (size < 0) cf_testlib::fail("random_t::partition: size < 0");
        if (size == 0 && sum != 0) cf_testlib::fail("random_t::partition: size == 0 && sum != 0");
        if (min_part * size > sum) cf_testlib::fail("random_t::partition: min_part * size > sum");
        if (size == 0 && sum == 0) return std::vector<T>();
        T rest = sum - min_part * size;
        std::vector<T> cuts(size);  // cuts[0] = 0, then size-1 distinct positions in [1, rest+size-1]
        std::vector<T> d = distinct(size - 1, T(1), T(rest + size - 1));
        for (int i = 0; i + 1 < size; ++i) cuts[i + 1] = d[i];
        std::sort(cuts.begin(), cuts.end());
        std::vector<T> result(size);
        for (int i = 0; i + 1 < size; ++i) result[i] = cuts[i + 1] - cuts[i] - 1 + min_part;
        result[size - 1] = rest + size - 1 - cuts.back() + min_part;
        return result;
    }

    template <typename T>
    std::vector<T> partition(int size, T sum) {
        return partition(size, sum, T(1));
    }
};


inline std::string pattern::next(random_t& rnd) const {
    std::string result;
    if (to_ == INT_MAX) cf_testlib::fail("pattern::next(random_t& rnd): can't process character '*' for generation");
    if (to_ > 0) {
        int count = rnd.next(to_ - from_ + 1) + from_;
        for (int i = 0; i < count; ++i) result += chars_[rnd.next(int(chars_.size()))];
    }
    if (!alternatives_.empty()) result += alternatives_[rnd.next(int(alternatives_.size()))].next(rnd);
    return result;
}

inline random_t rnd;

// ------------------------------------------------------------------------------------------- InStream

struct InStream {
    std::string name;
    TMode mode = _input;
    bool opened = false;
    bool stdfile = false;
    bool strict = false;
    int readManyIteration = NO_INDEX;
    size_t maxFileSize = 128 * 1024 * 1024;
    size_t maxTokenLength = 32 * 1024 * 1024;
    size_t maxMessageLength = 32000;

    static const int NO_INDEX = INT_MAX;

    InStream() = default;
    InStream(const InStream& base, std::string content)
        : name("based on " + base.name), mode(base.mode), opened(true), strict(base.strict), data_(std::move(content)) {}
    InStream(const InStream&) = delete;
    InStream& operator=(const InStream&) = delete;

    void init(std::string fileName, TMode stream_mode) {
        name = fileName;
        mode = stream_mode;
        stdfile = false;
        std::FILE* f = std::fopen(fileName.c_str(), "rb");
        if (f == nullptr) {
            opened = false;
            if (mode == _output) quit(_pe, "Output file not found: \"" + name + "\"");
            if (mode == _answer) quit(_fail, "Answer file not found: \"" + name + "\"");
            return;  // testlib: a missing input file reads as empty
        }
        load(f);
        std::fclose(f);
        if (data_.size() > maxFileSize)
            quitf(_pe, "File size exceeds %d bytes, size is %d", int(maxFileSize), int(data_.size()));
    }

    // An interactor's `ouf`: what the program sends, read from descriptor `fd` as it arrives (a read
    // waits only for the bytes it needs), never ahead of the dialogue; more than maxFileSize bytes
    // is the program's flood, a presentation error.
    void initInteractive(int fd) {
        mode = _output;
        name = "stdin";
        stdfile = true;
        data_.clear();
        pos_ = 0;
        fd_ = fd;
        opened = true;
    }

    void init(std::FILE* f, TMode stream_mode) {
        mode = stream_mode;
        name = f == stdin ? "stdin" : f == stdout ? "stdout" : f == stderr ? "stderr" : "untitled";
        stdfile = f == stdin || f == stdout || f == stderr;
        load(f);
    }

    void skipBom() {
        if (data_.compare(pos_, 3, "\xEF\xBB\xBF") == 0) pos_ += 3;
    }

    // -- characters -------------------------------------------------------------------------------
    bool eof() {
        if (!strict && !opened) return true;
        return !has(pos_);
    }

    char curChar() { return char(cur()); }
    char nextChar() { return char(take()); }
    char readChar() { return nextChar(); }

    char readChar(char c) {
        mark();
        char found = readChar();
        if (c != found) {
            if (!isEoln(found))
                quit(_pe, "Unexpected character '" + std::string(1, found) + "', but '" + std::string(1, c) + "' expected");
            quit(_pe, "Unexpected character #" + vtos(int(found)) + ", but '" + std::string(1, c) + "' expected");
        }
        return found;
    }

    char readSpace() { return readChar(' '); }

    // puts `c` back in front of the stream (testlib's reader keeps the character given, not the one read)
    void unreadChar(char c) {
        if (pos_ > 0) data_[--pos_] = c;
    }

    void skipChar() {
        if (has(pos_)) ++pos_;
    }

    void skipBlanks() {
        while (has(pos_) && isBlanks(data_[pos_])) ++pos_;
    }

    bool seekEof() {
        if (!strict && !opened) return true;
        skipBlanks();
        return eof();
    }

    // At an end of line (or, outside strict mode, the end of the file): consumes it and says true.
    bool eoln() {
        if (!strict && !opened) return true;
        if (!strict) {
            if (!has(pos_)) return true;
            if (data_[pos_] == LF) return ++pos_, true;
            if (data_[pos_] == CR && has(pos_ + 1) && data_[pos_ + 1] == LF) return pos_ += 2, true;
            return false;
        }
        if (has(pos_) && data_[pos_] == LF) return ++pos_, true;
        return false;
    }

    bool seekEoln() {
        if (!strict && !opened) return true;
        while (has(pos_) && (data_[pos_] == SPACE || data_[pos_] == TAB)) ++pos_;
        return eoln();
    }

    void nextLine() { readLine(); }

    void readEoln() {
        mark();
        if (!eoln()) quit(_pe, "Expected EOLN");
    }

    void readEof() {
        mark();
        if (!eof()) quit(_pe, "Expected EOF");
        if (this == &input_stream()) ++cf_testlib::state().input_eofs;
    }

    // -- tokens ------------------------------------------------------------------------------------
    void readWordTo(std::string& result) {
        if (!strict) skipBlanks();
        mark();
        if (!has(pos_)) quit(_unexpected_eof, "Unexpected end of file - token expected");
        if (isBlanks(data_[pos_])) quit(_pe, "Unexpected white-space - token expected");
        size_t start = pos_;
        while (has(pos_) && !isBlanks(data_[pos_])) {
            ++pos_;
            if (pos_ - start > maxTokenLength) {
                result = data_.substr(start, pos_ - start);
                quitf(_pe, "Length of token exceeds %d, token is '%s...'", int(maxTokenLength), __testlib_part(result).c_str());
            }
        }
        result.assign(data_, start, pos_ - start);
    }

    void readTokenTo(std::string& result) { readWordTo(result); }

    void readWordTo(std::string& result, const pattern& p, const std::string& variableName = "") {
        readWordTo(result);
        check_pattern(result, p, variableName, "Token");
    }

    void readWordTo(std::string& result, const std::string& ptrn, const std::string& variableName = "") {
        readWordTo(result, pattern(ptrn), variableName);
    }

    void readTokenTo(std::string& result, const pattern& p, const std::string& variableName = "") {
        readWordTo(result, p, variableName);
    }

    void readTokenTo(std::string& result, const std::string& ptrn, const std::string& variableName = "") {
        readWordTo(result, pattern(ptrn), variableName);
    }

    std::string readWord() {
        std::string s;
        readWordTo(s);
        return s;
    }

    std::string readToken() { return readWord(); }

    std::string readWord(const pattern& p, const std::string& variableName = "") {
        std::string s;
        readWordTo(s, p, variableName);
        return s;
    }

    std::string readWord(const std::string& ptrn, const std::string& variableName = "") {
        return readWord(pattern(ptrn), variableName);
    }

    std::string readToken(const pattern& p, const std::string& variableName = "") { return readWord(p, variableName); }
    std::string readToken(const std::string& ptrn, const std::string& variableName = "") {
        return readWord(pattern(ptrn), variableName);
    }

    std::vector<std::string> readWords(int size, int indexBase = 1) {
        return many<std::string>("readWords", size, indexBase, true, [&] { return readWord(); });
    }
    std::vector<std::string> readWords(int size, const pattern& p, const std::string& variablesName = "", int indexBase = 1) {
        return many<std::string>("readWords", size, indexBase, true, [&] { return readWord(p, variablesName); });
    }
    std::vector<std::string> readWords(int size, const std::string& ptrn, const std::string& variablesName = "",
                                       int indexBase = 1) {
        return readWords(size, pattern(ptrn), variablesName, indexBase);
    }
    std::vector<std::string> readTokens(int size, int indexBase = 1) { return readWords(size, indexBase); }
    std::vector<std::string> readTokens(int size, const pattern& p, const std::string& variablesName = "", int indexBase = 1) {
        return readWords(size, p, variablesName, indexBase);
    }
    std::vector<std::string> readTokens(int size, const std::string& ptrn, const std::string& variablesName = "",
                                        int indexBase = 1) {
        return readWords(size, pattern(ptrn), variablesName, indexBase);
    }

    // -- integers ----------------------------------------------------------------------------------
    long long readLong() {
        if (!strict && seekEof()) quit(_unexpected_eof, "Unexpected end of file - int64 expected");
        readWordTo(token_);
        return to_long_long(token_);
    }

    unsigned long long readUnsignedLong() {
        if (!strict && seekEof()) quit(_unexpected_eof, "Unexpected end of file - int64 expected");
        readWordTo(token_);
        return to_unsigned_long_long(token_);
    }

    int readInteger() {
        if (!strict && seekEof()) quit(_unexpected_eof, "Unexpected end of file - int32 expected");
        readWordTo(token_);
        long long value = to_long_long(token_);
        if (value < INT_MIN || value > INT_MAX) quit(_pe, "Expected int32, but \"" + __testlib_part(token_) + "\" found");
        return int(value);
    }

    int readInt() { return readInteger(); }

    long long readLong(long long minv, long long maxv, const std::string& variableName = "") {
        long long v = readLong();
        if (v < minv || v > maxv) out_of_range("Integer", vtos(v), toHumanReadableString(minv), toHumanReadableString(maxv), variableName);
        return v;
    }

    unsigned long long readUnsignedLong(unsigned long long minv, unsigned long long maxv, const std::string& variableName = "") {
        unsigned long long v = readUnsignedLong();
        if (v < minv || v > maxv)
            out_of_range("Unsigned integer", vtos(v), toHumanReadableString(minv), toHumanReadableString(maxv), variableName);
        return v;
    }

    unsigned long long readLong(unsigned long long minv, unsigned long long maxv, const std::string& variableName = "") {
        return readUnsignedLong(minv, maxv, variableName);
    }

    int readInt(int minv, int maxv, const std::string& variableName = "") {
        int v = readInt();
        if (v < minv || v > maxv) out_of_range("Integer", vtos(v), toHumanReadableString(minv), toHumanReadableString(maxv), variableName);
        return v;
    }

    int readInteger(int minv, int maxv, const std::string& variableName = "") { return readInt(minv, maxv, variableName); }

    std::vector<long long> readLongs(int size, long long minv, long long maxv, const std::string& variablesName = "",
                                     int indexBase = 1) {
        return many<long long>("readLongs", size, indexBase, true, [&] { return readLong(minv, maxv, variablesName); });
    }
    std::vector<long long> readLongs(int size, int indexBase = 1) {
        return many<long long>("readLongs", size, indexBase, true, [&] { return readLong(); });
    }
    std::vector<unsigned long long> readUnsignedLongs(int size, unsigned long long minv, unsigned long long maxv,
                                                      const std::string& variablesName = "", int indexBase = 1) {
        return many<unsigned long long>("readUnsignedLongs", size, indexBase, true,
                                        [&] { return readUnsignedLong(minv, maxv, variablesName); });
    }
    std::vector<unsigned long long> readUnsignedLongs(int size, int indexBase = 1) {
        return many<unsigned long long>("readUnsignedLongs", size, indexBase, true, [&] { return readUnsignedLong(); });
    }
    std::vector<unsigned long long> readLongs(int size, unsigned long long minv, unsigned long long maxv,
                                              const std::string& variablesName = "", int indexBase = 1) {
        return readUnsignedLongs(size, minv, maxv, variablesName, indexBase);
    }
    std::vector<int> readInts(int size, int minv, int maxv, const std::string& variablesName = "", int indexBase = 1) {
        return many<int>("readInts", size, indexBase, true, [&] { return readInt(minv, maxv, variablesName); });
    }
    std::vector<int> readInts(int size, int indexBase = 1) {
        return many<int>("readInts", size, indexBase, true, [&] { return readInt(); });
    }
    std::vector<int> readIntegers(int size, int minv, int maxv, const std::string& variablesName = "", int indexBase = 1) {
        return many<int>("readIntegers", size, indexBase, true, [&] { return readInt(minv, maxv, variablesName); });
    }
    std::vector<int> readIntegers(int size, int indexBase = 1) {
        return many<int>("readIntegers", size, indexBase, true, [&] { return readInt(); });
    }

    // -- doubles -----------------------------------------------------------------------------------
    double readReal() {
        if (!strict && seekEof()) quit(_unexpected_eof, "Unexpected end of file - double expected");
        readWordTo(token_);
        return to_double(token_);
    }

    double readDouble() { return readReal(); }

    double readReal(double minv, double maxv, const std::string& variableName = "") {
        double v = readReal();
        if (v < minv || v > maxv) out_of_range("Double", vtos(v), vtos(minv), vtos(maxv), variableName);
        return v;
    }

    double readDouble(double minv, double maxv, const std::string& variableName = "") { return readReal(minv, maxv, variableName); }

    std::vector<double> readReals(int size, double minv, double maxv, const std::string& variablesName = "", int indexBase = 1) {
        return many<double>("readReals", size, indexBase, true, [&] { return readReal(minv, maxv, variablesName); });
    }
    std::vector<double> readReals(int size, int indexBase = 1) {
        return many<double>("readReals", size, indexBase, true, [&] { return readReal(); });
    }
    std::vector<double> readDoubles(int size, double minv, double maxv, const std::string& variablesName = "", int indexBase = 1) {
        return many<double>("readDoubles", size, indexBase, true, [&] { return readReal(minv, maxv, variablesName); });
    }
    std::vector<double> readDoubles(int size, int indexBase = 1) {
        return many<double>("readDoubles", size, indexBase, true, [&] { return readReal(); });
    }

    double readStrictReal(double minv, double maxv, int minAfterPointDigitCount, int maxAfterPointDigitCount,
                          const std::string& variableName = "") {
        if (!strict && seekEof()) quit(_unexpected_eof, "Unexpected end of file - strict double expected");
        readWordTo(token_);
        double v = to_strict_double(token_, minAfterPointDigitCount, maxAfterPointDigitCount);
        if (v < minv || v > maxv) out_of_range("Strict double", vtos(v), vtos(minv), vtos(maxv), variableName);
        return v;
    }

    double readStrictDouble(double minv, double maxv, int minAfterPointDigitCount, int maxAfterPointDigitCount,
                            const std::string& variableName = "") {
        return readStrictReal(minv, maxv, minAfterPointDigitCount, maxAfterPointDigitCount, variableName);
    }

    std::vector<double> readStrictReals(int size, double minv, double maxv, int minAfterPointDigitCount,
                                        int maxAfterPointDigitCount, const std::string& variablesName = "", int indexBase = 1) {
        return many<double>("readStrictReals", size, indexBase, true, [&] {
            return readStrictReal(minv, maxv, minAfterPointDigitCount, maxAfterPointDigitCount, variablesName);
        });
    }

    std::vector<double> readStrictDoubles(int size, double minv, double maxv, int minAfterPointDigitCount,
                                          int maxAfterPointDigitCount, const std::string& variablesName = "", int indexBase = 1) {
        return many<double>("readStrictDoubles", size, indexBase, true, [&] {
            return readStrictReal(minv, maxv, minAfterPointDigitCount, maxAfterPointDigitCount, variablesName);
        });
    }

    // -- lines -------------------------------------------------------------------------------------
    // Up to the end of the line (not included) or of the file; "" at the end of the file.
    void readStringTo(std::string& result) {
        if (!opened && !strict) quit(_pe, "Expected line");
        result.clear();
        for (;;) {
            int c = cur();
            if (c == LF || c == EOFC) break;
            if (c == CR) {
                take();
                if (cur() == LF) {
                    --pos_;  // the CR goes back: the end of line is CR LF
                    break;
                }
            }
            mark();
            result += char(take());  // after a lone CR: the byte that follows it (EOFC at the end)
        }
        if (strict)
            readEoln();
        else
            eoln();
    }

    void readLineTo(std::string& result) { readStringTo(result); }

    void readStringTo(std::string& result, const pattern& p, const std::string& variableName = "") {
        readStringTo(result);
        check_pattern(result, p, variableName, "Line");
    }
    void readStringTo(std::string& result, const std::string& ptrn, const std::string& variableName = "") {
        readStringTo(result, pattern(ptrn), variableName);
    }
    void readLineTo(std::string& result, const pattern& p, const std::string& variableName = "") {
        readStringTo(result, p, variableName);
    }
    void readLineTo(std::string& result, const std::string& ptrn, const std::string& variableName = "") {
        readStringTo(result, pattern(ptrn), variableName);
    }

    std::string readString() {
        std::string s;
        readStringTo(s);
        return s;
    }
    std::string readLine() { return readString(); }
    std::string readString(const pattern& p, const std::string& variableName = "") {
        std::string s;
        readStringTo(s, p, variableName);
        return s;
    }
    std::string readString(const std::string& ptrn, const std::string& variableName = "") {
        return readString(pattern(ptrn), variableName);
    }
    std::string readLine(const pattern& p, const std::string& variableName = "") { return readString(p, variableName); }
    std::string readLine(const std::string& ptrn, const std::string& variableName = "") {
        return readString(pattern(ptrn), variableName);
    }

    std::vector<std::string> readStrings(int size, int indexBase = 1) {
        return many<std::string>("readStrings", size, indexBase, false, [&] { return readString(); });
    }
    std::vector<std::string> readStrings(int size, const pattern& p, const std::string& variablesName = "", int indexBase = 1) {
        return many<std::string>("readStrings", size, indexBase, false, [&] { return readString(p, variablesName); });
    }
    std::vector<std::string> readStrings(int size, const std::string& ptrn, const std::string& variablesName = "",
                                         int indexBase = 1) {
        return readStrings(size, pattern(ptrn), variablesName, indexBase);
    }
    std::vector<std::string> readLines(int size, int indexBase = 1) {
        return many<std::string>("readLines", size, indexBase, false, [&] { return readString(); });
    }
    std::vector<std::string> readLines(int size, const pattern& p, const std::string& variablesName = "", int indexBase = 1) {
        return many<std::string>("readLines", size, indexBase, false, [&] { return readString(p, variablesName); });
    }
    std::vector<std::string> readLines(int size, const std::string& ptrn, const std::string& variablesName = "",
                                       int indexBase = 1) {
        return readLines(size, pattern(ptrn), variablesName, indexBase);
    }

    // -- verdicts ----------------------------------------------------------------------------------
    NORETURN void quit(TResult result, const char* msg);
    NORETURN void quit(TResult result, const std::string& msg) { quit(result, msg.c_str()); }
    NORETURN void quits(TResult result, std::string msg) { quit(result, msg.c_str()); }

#ifdef __GNUC__
    __attribute__((format(printf, 3, 4)))
#endif
    NORETURN void quitf(TResult result, const char* msg, ...) {
        va_list ap;
        va_start(ap, msg);
        std::string message = cf_testlib::vformat(msg, ap);
        va_end(ap);
        quit(result, message.c_str());
    }

#ifdef __GNUC__
    __attribute__((format(printf, 4, 5)))
#endif
    void quitif(bool condition, TResult result, const char* msg, ...) {
        if (!condition) return;
        va_list ap;
        va_start(ap, msg);
        std::string message = cf_testlib::vformat(msg, ap);
        va_end(ap);
        quit(result, message.c_str());
    }

    // The participant's fault (wrong answer) on ouf, the jury's (FAIL) on inf and ans.
#ifdef __GNUC__
    __attribute__((format(printf, 3, 4)))
#endif
    void ensuref(bool cond, const char* format, ...) {
        if (cond) return;
        va_list ap;
        va_start(ap, format);
        std::string message = cf_testlib::vformat(format, ap);
        va_end(ap);
        quit(_wa, message.c_str());
    }

    void __testlib_ensure(bool cond, std::string message) {
        if (!cond) quit(_wa, message.c_str());
    }

    void close() { opened = false; }

    void setTestCase(int testCase);

    static InStream& input_stream();

  private:
    std::string data_;
    size_t pos_ = 0;
    size_t mark_ = std::string::npos;  // where the last read began, for a validator's "line N"
    std::string token_;

    void load(std::FILE* f) {
        data_.clear();
        pos_ = 0;
        char buf[1 << 16];
        size_t n;
        while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) {
            data_.append(buf, n);
            if (data_.size() > maxFileSize) break;
        }
        opened = true;
    }

    int fd_ = -1;  // an interactive stream's descriptor until its end of file (initInteractive)

    // whether byte i of the stream exists, receiving from an interactive stream until it does
    bool has(size_t i) {
        while (i >= data_.size() && fd_ >= 0) receive();
        return i < data_.size();
    }

    void receive() {
        char buf[1 << 16];
        ssize_t n;
        do n = ::read(fd_, buf, sizeof buf);
        while (n < 0 && errno == EINTR);
        if (n <= 0) {
            fd_ = -1;
            return;
        }
        data_.append(buf, size_t(n));
        if (data_.size() > maxFileSize) {
            fd_ = -1;
            quitf(_pe, "The program sent more than %d bytes", int(maxFileSize));
        }
    }

    int cur() { return has(pos_) ? int(data_[pos_]) : EOFC; }
    int take() { return has(pos_) ? int(data_[pos_++]) : EOFC; }
    void mark() { mark_ = pos_; }

    int line_of_mark() const {
        if (mark_ == std::string::npos) return -1;
        return 1 + int(std::count(data_.begin(), data_.begin() + std::min(mark_, data_.size()), LF));
    }

    template <typename T, typename F>
    std::vector<T> many(const char* what, int size, int indexBase, bool spaced, F read_one) {
        if (size < 0) quit(_fail, std::string(what) + ": size should be non-negative.");
        if (size > 100000000) quit(_fail, std::string(what) + ": size should be at most 100000000.");
        std::vector<T> result;
        result.reserve(size_t(std::min(size, 1 << 20)));
        readManyIteration = indexBase;
        for (int i = 0; i < size; ++i) {
            result.push_back(read_one());
            ++readManyIteration;
            if (strict && spaced && i + 1 < size) readSpace();
        }
        readManyIteration = NO_INDEX;
        return result;
    }

    NORETURN void out_of_range(const std::string& kind, const std::string& value, const std::string& lo, const std::string& hi,
                               const std::string& variableName) {
        std::string range = ", violates the range [" + lo + ", " + hi + "]";
        if (readManyIteration == NO_INDEX) {
            if (variableName.empty()) quit(_wa, kind + " " + value + " violates the range [" + lo + ", " + hi + "]");
            quit(_wa, kind + " parameter [name=" + variableName + "] equals to " + value + range);
        }
        if (variableName.empty()) quit(_wa, kind + " element [index=" + vtos(readManyIteration) + "] equals to " + value + range);
        quit(_wa, kind + " element " + variableName + "[" + vtos(readManyIteration) + "] equals to " + value + range);
    }

    void check_pattern(const std::string& s, const pattern& p, const std::string& variableName, const char* kind) {
        if (p.matches(s)) return;
        std::string k(kind), part = __testlib_part(s), tail = "doesn't correspond to pattern \"" + p.src() + "\"";
        std::string named = k == "Token" ? "Token parameter [name=" : "Line [name=";
        if (readManyIteration == NO_INDEX) {
            if (variableName.empty()) quit(_wa, k + " \"" + part + "\" " + tail);
            quit(_wa, named + variableName + "] equals to \"" + part + "\", " + tail);
        }
        if (variableName.empty()) quit(_wa, k + " element [index=" + vtos(readManyIteration) + "] equals to \"" + part + "\" " + tail);
        quit(_wa, k + " element " + variableName + "[" + vtos(readManyIteration) + "] equals to \"" + part + "\", " + tail);
    }

  public:
    // testlib's number parsing, callable on any token (the global stringTo* below use these)
    long long to_long_long(const std::string& s) {
        std::string expected = "Expected integer, but \"" + __testlib_part(s) + "\" found";
        if (s.find('\0') != std::string::npos) quit(_pe, expected + " (it contains \\0)");
        size_t n = s.size();
        if (n == 0 || n > 20) quit(_pe, expected);
        bool minus = n > 1 && s[0] == '-';
        size_t i = minus ? 1 : 0;
        size_t zeros = 0;
        bool leading = true;
        unsigned long long magnitude = 0;
        bool overflow = false;
        for (; i < n; ++i) {
            char c = s[i];
            if (c < '0' || c > '9') quit(_pe, expected);
            if (c == '0' && leading)
                ++zeros;
            else
                leading = false;
            unsigned d = unsigned(c - '0');
            if (magnitude > (ULLONG_MAX - d) / 10) overflow = true;
            magnitude = magnitude * 10 + d;
        }
        unsigned long long limit = minus ? 9223372036854775808ULL : 9223372036854775807ULL;
        if (overflow || magnitude > limit) quit(_pe, expected);
        if ((zeros > 0 && (magnitude != 0 || minus)) || zeros > 1) quit(_pe, expected);
        if (minus) return magnitude == 9223372036854775808ULL ? LLONG_MIN : -(long long)magnitude;
        return (long long)magnitude;
    }

    unsigned long long to_unsigned_long_long(const std::string& s) {
        std::string expected = "Expected unsigned integer, but \"" + __testlib_part(s) + "\" found";
        if (s.find('\0') != std::string::npos) quit(_pe, expected + " (it contains \\0)");
        size_t n = s.size();
        if (n == 0 || n > 20 || (n > 1 && s[0] == '0')) quit(_pe, expected);
        unsigned long long v = 0;
        for (char c : s) {
            if (c < '0' || c > '9') quit(_pe, expected);
            unsigned d = unsigned(c - '0');
            if (v > (ULLONG_MAX - d) / 10) quit(_pe, expected);
            v = v * 10 + d;
        }
        return v;
    }

    double to_double(const std::string& s) {
        std::string expected = "Expected double, but \"" + __testlib_part(s) + "\" found";
        if (s.find('\0') != std::string::npos) quit(_pe, expected + " (it contains \\0)");
        int minus = 0, plus = 0, points = 0, digits = 0, exps = 0;
        for (char c : s) {
            if ('0' <= c && c <= '9')
                ++digits;
            else if (c == 'e' || c == 'E')
                ++exps;
            else if (c == '-')
                ++minus;
            else if (c == '+')
                ++plus;
            else if (c == '.')
                ++points;
            else
                quit(_pe, expected);
        }
        if (digits == 0 || minus > 2 || plus > 2 || points > 1 || exps > 1) quit(_pe, expected);
        // testlib's own reading: sscanf("%lf%s"), a number with nothing after it. glibc's %lf takes a
        // dangling exponent with it ("1.5e", "1e+" read as 1.5 and 1), which strtod would leave
        double v = 0;
        std::vector<char> rest(s.size() + 1, '\0');
        int scanned = std::sscanf(s.c_str(), "%lf%s", &v, rest.data());
        if (scanned != 1 || std::isnan(v)) quit(_pe, expected);
        return v;
    }

    double to_strict_double(const std::string& s, int minAfter, int maxAfter) {
        if (minAfter < 0) quit(_fail, "stringToStrictDouble: minAfterPointDigitCount should be non-negative.");
        if (minAfter > maxAfter)
            quit(_fail, "stringToStrictDouble: minAfterPointDigitCount should be less or equal to maxAfterPointDigitCount.");
        std::string part = __testlib_part(s);
        std::string expected = "Expected strict double, but \"" + part + "\" found";
        if (s.find('\0') != std::string::npos) quit(_pe, "Expected double, but \"" + part + "\" found (it contains \\0)");
        size_t n = s.size();
        if (n == 0 || n > 1000) quit(_pe, expected);
        if (s[0] != '-' && (s[0] < '0' || s[0] > '9')) quit(_pe, expected);
        int point = -1;
        for (size_t i = 1; i + 1 < n; ++i) {
            if (s[i] == '.') {
                if (point > -1) quit(_pe, expected);
                point = int(i);
            } else if (s[i] < '0' || s[i] > '9') {
                quit(_pe, expected);
            }
        }
        if (s[n - 1] < '0' || s[n - 1] > '9') quit(_pe, expected);
        int after = point == -1 ? 0 : int(n) - point - 1;
        if (after < minAfter || after > maxAfter)
            quit(_pe, "Expected strict double with number of digits after point in range [" + vtos(minAfter) + "," +
                          vtos(maxAfter) + "], but \"" + part + "\" found");
        size_t first_digit = s[0] == '-' ? 1 : 0;
        if (first_digit >= n || s[first_digit] < '0' || s[first_digit] > '9') quit(_pe, expected);
        if (s[first_digit] == '0' && first_digit + 1 < n && s[first_digit + 1] >= '0' && s[first_digit + 1] <= '9')
            quit(_pe, expected);
        double v = std::strtod(s.c_str(), nullptr);
        if (std::isnan(v) || __testlib_isInfinite(v)) quit(_pe, "Expected double, but \"" + part + "\" found");
        if (s[0] == '-' && v >= 0) quit(_pe, "Redundant minus in \"" + part + "\" found");
        return v;
    }
};

inline InStream inf;
inline InStream ouf;
inline InStream ans;

inline InStream& InStream::input_stream() { return inf; }

inline std::string resultName;
inline bool appesMode = false;
inline std::string checkerName = "untitled checker";
inline TTestlibMode testlibMode = _unknown;
inline double __testlib_points = std::numeric_limits<float>::infinity();
inline std::fstream tout;

static inline long long stringToLongLong(InStream& in, const char* buffer) { return in.to_long_long(buffer); }
static inline long long stringToLongLong(InStream& in, const std::string& buffer) { return in.to_long_long(buffer); }
static inline unsigned long long stringToUnsignedLongLong(InStream& in, const char* buffer) {
    return in.to_unsigned_long_long(buffer);
}
static inline unsigned long long stringToUnsignedLongLong(InStream& in, const std::string& buffer) {
    return in.to_unsigned_long_long(buffer);
}
static inline int stringToInt(InStream& in, const char* buffer) {
    long long v = in.to_long_long(buffer);
    if (v < INT_MIN || v > INT_MAX) in.quit(_pe, "Expected int32, but \"" + __testlib_part(buffer) + "\" found");
    return int(v);
}
static inline int stringToInt(InStream& in, const std::string& buffer) { return stringToInt(in, buffer.c_str()); }
static inline double stringToDouble(InStream& in, const char* buffer) { return in.to_double(buffer); }
static inline double stringToDouble(InStream& in, const std::string& buffer) { return in.to_double(buffer); }
static inline double stringToStrictDouble(InStream& in, const char* buffer, int minAfter, int maxAfter) {
    return in.to_strict_double(buffer, minAfter, maxAfter);
}
static inline double stringToStrictDouble(InStream& in, const std::string& buffer, int minAfter, int maxAfter) {
    return in.to_strict_double(buffer, minAfter, maxAfter);
}

namespace cf_testlib {

inline int exit_code(TResult r) {
    switch (r) {
        case _ok: return OK_EXIT_CODE;
        case _wa: return WA_EXIT_CODE;
        case _pe: return PE_EXIT_CODE;
        case _fail: return FAIL_EXIT_CODE;
        case _dirt: return DIRT_EXIT_CODE;
        case _points: return POINTS_EXIT_CODE;
#ifdef ENABLE_UNEXPECTED_EOF
        case _unexpected_eof: return UNEXPECTED_EOF_EXIT_CODE;
#else
        case _unexpected_eof: return PE_EXIT_CODE;
#endif
        default: return r >= _partially ? PC_BASE_EXIT_CODE + (r - _partially) : FAIL_EXIT_CODE;
    }
}

// Writes the verdict line and ends the process (no destructors: the guard must not run again).
[[noreturn]] inline void finish(TResult result, const std::string& message) {
    std::string word;
    switch (result) {
        case _ok: word = "ok "; break;
        case _wa: word = "wrong answer "; break;
        case _pe: word = "wrong output format "; break;
        case _fail: word = "FAIL "; break;
        case _points: word = "points "; break;
        case _unexpected_eof: word = "unexpected eof "; break;
        default: word = format("partially correct (%d) ", int(result) - int(_partially));
    }
    std::string line = printable(message);
    for (char& c : line)
        if (c == '\n' || c == '\r') c = ' ';  // one line: the judge reads the verdict from the last one
    std::fflush(stdout);
    std::fprintf(stderr, "%s%s\n", word.c_str(), line.c_str());
    std::fflush(stderr);
    std::_Exit(exit_code(result));
}

[[noreturn]] inline void fail(const std::string& message) { ouf.quit(_fail, message); }

inline void on_exit() {
    State& s = state();
    if (!s.guard) return;
    s.guard = false;
    if (s.mode == _checker && s.quits == 0) fail("Checker must end with quit or quitf call.");
    if (s.mode == _validator && s.input_eofs == 0 && s.quits == 0) fail("Validator must end with readEof call.");
}

inline void start(TTestlibMode mode) {
    State& s = state();
    s.mode = mode;
    s.registered = true;
    testlibMode = mode;
    static bool hooked = false;
    if (!hooked) std::atexit(on_exit), hooked = true;
}

}  // namespace cf_testlib

inline void InStream::quit(TResult result, const char* msg) {
    cf_testlib::State& s = cf_testlib::state();
    ++s.quits;
    std::string message = trim(msg);
    if (s.has_test_case) {
        if (result != _ok)
            message = cf_testlib::append_message(message, "test case " + vtos(s.test_case));
        else
            message = cf_testlib::append_message(message, vtos(s.test_case) + (s.test_case == 1 ? " test case" : " test cases"));
    }
    if (message.size() > maxMessageLength) {
        std::string warn = "message length exceeds " + vtos(maxMessageLength) + ", the message is truncated: ";
        message = warn + message.substr(0, maxMessageLength - warn.size());
    }
#ifndef ENABLE_UNEXPECTED_EOF
    if (result == _unexpected_eof) result = _pe;  // testlib's default: a premature end is a wrong format
#endif
    if (mode != _output && result != _fail) {
        std::string blamed = cf_testlib::append_message(message, name);
        if (mode == _input && s.mode == _validator && line_of_mark() != -1)
            blamed = cf_testlib::append_message(blamed, "line " + vtos(line_of_mark()));
        quit(_fail, blamed.c_str());
    }
    if (result == _ok || result == _points || result >= _partially) {
        if (s.mode != _interactor && !ouf.seekEof()) ouf.quit(_dirt, "Extra information in the output file");
    }
    if (result == _dirt) result = _pe;
    cf_testlib::finish(result, message);
}

inline void InStream::setTestCase(int testCase) {
    if (testCase < 0 || testCase > __TESTLIB_MAX_TEST_CASE)
        cf_testlib::fail(format("testCase expected fit in [1,%d], but %d doesn't", __TESTLIB_MAX_TEST_CASE, testCase));
}

// ----------------------------------------------------------------------------------- global verdicts

NORETURN inline void quit(TResult result, const std::string& msg) { ouf.quit(result, msg.c_str()); }
NORETURN inline void quit(TResult result, const char* msg) { ouf.quit(result, msg); }

#ifdef __GNUC__
__attribute__((format(printf, 2, 3)))
#endif
NORETURN inline void quitf(TResult result, const char* format, ...) {
    va_list ap;
    va_start(ap, format);
    std::string message = cf_testlib::vformat(format, ap);
    va_end(ap);
    quit(result, message);
}

#ifdef __GNUC__
__attribute__((format(printf, 3, 4)))
#endif
inline void quitif(bool condition, TResult result, const char* format, ...) {
    if (!condition) return;
    va_list ap;
    va_start(ap, format);
    std::string message = cf_testlib::vformat(format, ap);
    va_end(ap);
    quit(result, message);
}

NORETURN inline void __testlib_quitp(double points, const char* message) {
    __testlib_points = points;
    cf_testlib::state().points = points;
    std::string value = removeDoubleTrailingZeroes(format("%.10f", points));
    quit(_points, message == nullptr || *message == '\0' ? value : value + " " + message);
}

NORETURN inline void __testlib_quitp(int points, const char* message) {
    __testlib_points = points;
    cf_testlib::state().points = points;
    std::string value = format("%d", points);
    quit(_points, message == nullptr || *message == '\0' ? value : value + " " + message);
}

NORETURN inline void quitp(float points, const std::string& message = "") { __testlib_quitp(double(points), message.c_str()); }
NORETURN inline void quitp(double points, const std::string& message = "") { __testlib_quitp(points, message.c_str()); }
NORETURN inline void quitp(long double points, const std::string& message = "") {
    __testlib_quitp(double(points), message.c_str());
}
NORETURN inline void quitp(int points, const std::string& message = "") { __testlib_quitp(points, message.c_str()); }

template <typename F>
#ifdef __GNUC__
__attribute__((format(printf, 2, 3)))
#endif
NORETURN void quitp(F points, const char* format, ...) {
    va_list ap;
    va_start(ap, format);
    std::string message = cf_testlib::vformat(format, ap);
    va_end(ap);
    quitp(points, message);
}

// A points verdict with no value, only information (for a scorer elsewhere).
NORETURN inline void quitpi(const std::string& points_info, const std::string& message = "") {
    if (points_info.find(' ') != std::string::npos) quit(_fail, "Parameter 'points_info' can't contain spaces");
    quit(_points, message.empty() ? "points_info=" + points_info : "points_info=" + points_info + " " + message);
}

#ifdef __GNUC__
__attribute__((format(printf, 2, 3)))
#endif
NORETURN inline void quitpi(const std::string& points_info, const char* format, ...) {
    va_list ap;
    va_start(ap, format);
    std::string message = cf_testlib::vformat(format, ap);
    va_end(ap);
    quitpi(points_info, message);
}

template <typename T>
NORETURN void expectedButFound(TResult result, T expected, T found, const char* prependFormat = "", ...);

NORETURN inline void __testlib_expectedButFound(TResult result, const std::string& expected, const std::string& found,
                                                const std::string& prepend) {
    if (!prepend.empty())
        quit(result, format("%s: expected '%s', but found '%s'", compress(prepend).c_str(), compress(expected).c_str(),
                            compress(found).c_str()));
    quit(result, format("expected '%s', but found '%s'", compress(expected).c_str(), compress(found).c_str()));
}

namespace cf_testlib {
template <typename T>
std::string shown(const T& v) {
    if (std::is_floating_point<T>::value) return removeDoubleTrailingZeroes(format("%.12f", double(v)));
    return vtos(v);
}
inline std::string shown(const char* v) { return v; }
inline std::string shown(const std::string& v) { return v; }
}  // namespace cf_testlib

template <typename T>
NORETURN void expectedButFound(TResult result, T expected, T found, const char* prependFormat, ...) {
    va_list ap;
    va_start(ap, prependFormat);
    std::string prepend = cf_testlib::vformat(prependFormat, ap);
    va_end(ap);
    __testlib_expectedButFound(result, cf_testlib::shown(expected), cf_testlib::shown(found), prepend);
}

inline void __testlib_ensure(bool cond, const std::string& msg) {
    if (!cond) quit(_fail, msg);
}

#define ensure(cond) __testlib_ensure(static_cast<bool>(cond), "Condition failed: \"" #cond "\"")
#define STRINGIZE_DETAIL(x) #x
#define STRINGIZE(x) STRINGIZE_DETAIL(x)
#define ensure_ext(cond) __testlib_ensure(static_cast<bool>(cond), "Line " STRINGIZE(__LINE__) ": Condition failed: \"" #cond "\"")

#ifdef __GNUC__
__attribute__((format(printf, 2, 3)))
#endif
inline void ensuref(bool cond, const char* format, ...) {
    if (cond) return;
    va_list ap;
    va_start(ap, format);
    std::string message = cf_testlib::vformat(format, ap);
    va_end(ap);
    quit(_fail, message);
}

#ifdef __GNUC__
__attribute__((format(printf, 1, 2)))
#endif
inline void setName(const char* format, ...) {
    va_list ap;
    va_start(ap, format);
    checkerName = cf_testlib::vformat(format, ap);
    va_end(ap);
}

inline void setName(const std::string& name) { checkerName = name; }

inline void disableFinalizeGuard() { cf_testlib::state().guard = false; }

// Messages after this name the test case ("... (test case 3)"); a first call with 0 makes them 1-based.
inline void setTestCase(int testCase) {
    static bool first = true, zero_based = false;
    if (first && testCase == 0) zero_based = true;
    first = false;
    if (zero_based) ++testCase;
    cf_testlib::state().has_test_case = true;
    cf_testlib::state().test_case = testCase;
}

inline void unsetTestCase() {
    cf_testlib::state().has_test_case = false;
    cf_testlib::state().test_case = -1;
}

// --------------------------------------------------------------------------------- register functions

struct cf_testlib_testset_group {
    bool initialized = false;
    std::string testset_ = "tests";
    std::string group_;
    std::string testset() const { return testset_; }
    std::string group() const { return group_; }
    void setTestset(const char* t) { testset_ = t; }
    void setGroup(const char* g) { group_ = g; }
};

struct cf_testlib_validator : cf_testlib_testset_group {
    std::set<std::string> features_;
    void addFeature(const std::string& f) {
        if (!features_.insert(f).second) cf_testlib::fail("Feature " + f + " registered twice.");
    }
    void feature(const std::string& f) {
        if (!features_.count(f)) cf_testlib::fail("Feature " + f + " didn't registered via addFeature(feature).");
    }
};

inline cf_testlib_validator validator;
inline cf_testlib_testset_group checker;

inline std::string getTestset() { return checker.testset(); }
inline std::string getGroup() { return checker.group(); }

inline void addFeature(const std::string& f) {
    if (testlibMode != _validator) quit(_fail, "Features are supported in validators only.");
    validator.addFeature(f);
}

inline void feature(const std::string& f) {
    if (testlibMode != _validator) quit(_fail, "Features are supported in validators only.");
    validator.feature(f);
}

inline void registerTestlibCmd(int argc, char* argv[]) {
    cf_testlib::start(_checker);
    std::vector<std::string> args(1, argc > 0 ? argv[0] : "checker");
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--testset" || a == "--group") {
            if (i + 1 >= argc) quit(_fail, "Expected " + a.substr(2) + " after " + a + " command line parameter");
            (a == "--testset" ? checker.testset_ : checker.group_) = argv[++i];
        } else {
            args.push_back(a);
        }
    }
    if (args.size() < 4 || args.size() > 6)
        quit(_fail, "Program must be run with the following arguments: [--testset testset] [--group group] "
                    "<input-file> <output-file> <answer-file> [<report-file> [<-appes>]]");
    inf.init(args[1], _input);
    ouf.init(args[2], _output);
    ouf.skipBom();
    ans.init(args[3], _answer);
}

// interactor <input-file> <output-file> [<answer-file> [<report-file> [<-appes>]]]: the program's
// output is `ouf`, read from stdin as it arrives; what the interactor writes to stdout reaches the
// program; `tout` is the output file, which a checker reads after the dialogue (docs/spec.md 2.8).
inline void registerInteraction(int argc, char* argv[]) {
    cf_testlib::start(_interactor);
    if (argc < 3 || argc > 6)
        quit(_fail, "Program must be run with the following arguments: <input-file> <output-file> "
                    "[<answer-file> [<report-file> [<-appes>]]]");
    inf.init(argv[1], _input);
    tout.open(argv[2], std::ios_base::out);
    if (!tout.is_open()) quit(_fail, std::string("Can not write to the test-output-file '") + argv[2] + "'");
    ouf.initInteractive(0);
    if (argc > 3) ans.init(argv[3], _answer);
}

inline void registerTestlib(int argc, ...) {
    std::vector<char*> argv(1, const_cast<char*>("checker"));
    va_list ap;
    va_start(ap, argc);
    for (int i = 0; i < argc; ++i) argv.push_back(va_arg(ap, char*));
    va_end(ap);
    registerTestlibCmd(int(argv.size()), argv.data());
}

inline void registerValidation() {
    cf_testlib::start(_validator);
    inf.init(stdin, _input);
    inf.strict = true;
}

inline void registerValidation(int argc, char* argv[]) {
    registerValidation();
    validator.initialized = true;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        bool takes_value = a == "--testset" || a == "--group" || a == "--testOverviewLogFileName" ||
                           a == "--testMarkupFileName" || a == "--testCase" || a == "--testCaseFileName";
        if (!takes_value) continue;
        if (i + 1 >= argc) quit(_fail, "Validator must be run with the following arguments: [--testset testset] [--group group]");
        if (a == "--testset") validator.setTestset(argv[i + 1]);
        if (a == "--group") validator.setGroup(argv[i + 1]);
        ++i;
    }
}

inline void registerGen(int argc, char* argv[], int randomGeneratorVersion) {
    if (randomGeneratorVersion < 0 || randomGeneratorVersion > 1) quitf(_fail, "Random generator version is expected to be 0 or 1.");
    random_t::version = randomGeneratorVersion;
    cf_testlib::start(_generator);
    rnd.setSeed(argc, argv);
    cf_testlib::prepare_opts(argc, argv);
}

inline void registerGen(int argc, char* argv[]) { registerGen(argc, argv, 0); }

// A generator's test number `test` goes to the file named by that number (testlib's multigen).
inline void startTest(int test) {
    std::string name = vtos(test);
    if (std::freopen(name.c_str(), "wt", stdout) == nullptr) cf_testlib::fail("Unable to write file '" + name + "'");
}

// testlib's stable shuffle: each position swapped with a random one at or before it.
template <typename RandomAccessIter>
void shuffle(RandomAccessIter first, RandomAccessIter last) {
    if (first == last) return;
    for (RandomAccessIter i = first + 1; i != last; ++i) std::iter_swap(i, first + rnd.next(int(i - first) + 1));
}

// ------------------------------------------------------------------------------------- println, opts

namespace cf_testlib {

template <typename T, typename = void>
struct iterable : std::false_type {};
template <typename T>
struct iterable<T, decltype(void(std::declval<const T&>().begin()), void(std::declval<const T&>().end()))>
    : std::true_type {};

template <typename T>
void print_one(const T& x) {
    if constexpr (iterable<T>::value && !std::is_same<T, std::string>::value) {
        bool first = true;
        for (const auto& item : x) {
            if (!first) std::cout << ' ';
            first = false;
            std::cout << item;
        }
    } else {
        std::cout << x;
    }
}

template <typename T, typename = void>
struct iterator_like : std::false_type {};
template <typename T>
struct iterator_like<T, decltype(void(*std::declval<T&>()), void(++std::declval<T&>()))>
    : std::integral_constant<bool, !std::is_array<T>::value && !std::is_same<T, const char*>::value &&
                                       !std::is_same<T, char*>::value && !iterable<T>::value> {};

}  // namespace cf_testlib

// Each argument (a collection as its items) separated by spaces, then a newline; println(begin, end)
// prints a range.
template <typename A, typename... Rest>
void println(const A& a, const Rest&... rest) {
    if constexpr (sizeof...(Rest) == 1 && cf_testlib::iterator_like<A>::value) {
        auto last = std::get<0>(std::tie(rest...));
        bool first = true;
        for (A i = a; i != last; ++i) {
            if (!first) std::cout << ' ';
            first = false;
            cf_testlib::print_one(*i);
        }
    } else {
        cf_testlib::print_one(a);
        ((std::cout << ' ', cf_testlib::print_one(rest)), ...);
    }
    std::cout << std::endl;
}

namespace cf_testlib {

inline std::vector<std::string>& opt_argv() {
    static std::vector<std::string> v;
    return v;
}

inline std::map<std::string, std::string>& opts() {
    static std::map<std::string, std::string> m;
    return m;
}

// 1 for "-key", 2 for "--key" (a key starts with a letter), 0 for anything else
inline size_t opt_type(const char* s) {
    if (s == nullptr || std::strlen(s) <= 1 || s[0] != '-') return 0;
    if (std::isalpha((unsigned char)s[1])) return 1;
    if (s[1] == '-' && std::isalpha((unsigned char)s[2])) return 2;
    return 0;
}

// testlib's forms: -key=value, -key value, -kNUMBER (a one-letter key), -flag (true)
inline void prepare_opts(int argc, char* argv[]) {
    opts().clear();
    opt_argv().assign(argv, argv + argc);
    for (int i = 1; i < argc;) {
        size_t type = opt_type(argv[i]);
        if (type == 0) {
            ++i;
            continue;
        }
        std::string key(argv[i] + type), value;
        size_t eq = key.find('=');
        int used = 1;
        if (eq != std::string::npos) {
            value = key.substr(eq + 1);
            key = key.substr(0, eq);
        } else if (i + 1 < argc && opt_type(argv[i + 1]) == 0) {
            value = argv[i + 1];
            used = 2;
        } else if (key.size() > 1 && std::isdigit((unsigned char)key[1])) {
            value = key.substr(1);
            key = key.substr(0, 1);
        } else {
            value = "true";
        }
        opts()[key] = value;
        i += used;
    }
}

// "1e5" -> "100000", "2.5e-1" -> "0.25": the decimal point moved, testlib's exponent form for opts
inline std::string expand_exponent(const std::string& s) {
    size_t e = s.find_first_of("eE");
    if (e == std::string::npos) return s;
    if (s.find_first_of("eE", e + 1) != std::string::npos) fail("Opts: expected typical exponential notation but '" + compress(s) + "' found");
    std::string mantissa = s.substr(0, e), exponent = s.substr(e + 1);
    if (!exponent.empty() && exponent[0] == '+') exponent.erase(0, 1);
    if (!mantissa.empty() && mantissa[0] == '+') mantissa.erase(0, 1);
    bool minus = !mantissa.empty() && mantissa[0] == '-';
    if (minus) mantissa.erase(0, 1);
    bool exponent_ok = !exponent.empty() && exponent.size() <= 20 &&
                       exponent.find_first_not_of("0123456789", exponent[0] == '-' ? 1 : 0) == std::string::npos &&
                       exponent != "-";
    bool mantissa_ok = !mantissa.empty() && mantissa.size() <= 20 && mantissa.find_first_not_of("0123456789.") == std::string::npos &&
                       std::count(mantissa.begin(), mantissa.end(), '.') <= 1 && mantissa != ".";
    if (!exponent_ok || !mantissa_ok) fail("Opts: expected typical exponential notation but '" + compress(s) + "' found");
    long shift = std::atol(exponent.c_str());
    size_t point = mantissa.find('.');
    std::string digits = mantissa;
    long at = long(point == std::string::npos ? mantissa.size() : point);
    if (point != std::string::npos) digits.erase(point, 1);
    at += shift;
    if (at < 0) digits.insert(0, size_t(-at), '0'), at = 0;
    if (at > long(digits.size())) digits.append(size_t(at - long(digits.size())), '0');
    std::string whole = digits.substr(0, size_t(at)), fraction = digits.substr(size_t(at));
    whole.erase(0, std::min(whole.find_first_not_of('0'), whole.size()));
    while (!fraction.empty() && fraction.back() == '0') fraction.pop_back();
    if (whole.empty()) whole = "0";
    return (minus ? "-" : "") + whole + (fraction.empty() ? "" : "." + fraction);
}

template <typename T>
T opt_integral(const std::string& raw) {
    std::string s = expand_exponent(raw);
    bool minus = !s.empty() && s[0] == '-';
    std::string digits = minus ? s.substr(1) : s;
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos)
        fail("Opts: expected integer but '" + compress(raw) + "' found");
    if (minus && std::is_unsigned<T>::value) fail("Opts: expected non-negative integer but '" + compress(raw) + "' found");
    long double about = 0;
    T value = 0;
    for (char c : digits) {
        value = T(value * 10 + (c - '0'));
        about = about * 10 + (c - '0');
    }
    if (minus) value = T(0 - value), about = -about;
    if (std::fabs((long double)value - about) > 0.1) fail("Opts: integer overflow: expected integer but '" + compress(raw) + "' found");
    return value;
}

inline long double opt_floating(const std::string& raw) {
    std::string s = expand_exponent(raw);
    std::string body = !s.empty() && s[0] == '-' ? s.substr(1) : s;
    if (body.empty() || body.find_first_not_of("0123456789.") != std::string::npos ||
        std::count(body.begin(), body.end(), '.') > 1)
        fail("Opts: expected float number but '" + compress(raw) + "' found");
    return std::strtold(s.c_str(), nullptr);
}

template <typename T>
T opt_parse(const std::string& raw, const std::string& what) {
    if constexpr (std::is_same<T, bool>::value) {
        if (raw == "true" || raw == "1") return true;
        if (raw == "false" || raw == "0") return false;
        fail("Opts: " + what + ": expected bool true/false or 0/1 but '" + compress(raw) + "' found");
    } else if constexpr (std::is_integral<T>::value) {
        return opt_integral<T>(raw);
    } else if constexpr (std::is_floating_point<T>::value) {
        return T(opt_floating(raw));
    } else {
        return T(raw);
    }
}

}  // namespace cf_testlib

inline void prepareOpts(int argc, char* argv[]) { cf_testlib::prepare_opts(argc, argv); }

inline bool has_opt(const std::string& key) { return cf_testlib::opts().count(key) != 0; }

inline void suppressEnsureNoUnusedOpts() {}

template <typename T>
T opt(int index) {
    const std::vector<std::string>& argv = cf_testlib::opt_argv();
    if (index < 0 || index >= int(argv.size()))
        cf_testlib::fail("Opts: index '" + toString(index) + "' is out of range [0," + toString(argv.size()) + ")");
    return cf_testlib::opt_parse<T>(argv[size_t(index)], "opt by index '" + toString(index) + "'");
}

template <typename T>
T opt(int index, const T& default_value) {
    return index >= int(cf_testlib::opt_argv().size()) ? default_value : opt<T>(index);
}

template <typename T>
T opt(const std::string& key) {
    auto it = cf_testlib::opts().find(key);
    if (it == cf_testlib::opts().end()) {
        if constexpr (std::is_same<T, bool>::value) return false;
        cf_testlib::fail("Opts: unknown key '" + compress(key) + "'");
    }
    return cf_testlib::opt_parse<T>(it->second, "key '" + compress(key) + "'");
}

template <typename T>
T opt(const std::string& key, const T& default_value) {
    return has_opt(key) ? opt<T>(key) : default_value;
}

inline std::string opt(int index) { return opt<std::string>(index); }
inline std::string opt(int index, const std::string& default_value) { return opt<std::string>(index, default_value); }
inline std::string opt(const std::string& key) { return opt<std::string>(key); }
inline std::string opt(const std::string& key, const std::string& default_value) {
    return opt<std::string>(key, default_value);
}
inline std::string opt(const char* key) { return opt<std::string>(std::string(key)); }

#endif  // CODEFRONTIER_TESTLIB_H
