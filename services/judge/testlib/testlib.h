// codefrontier's testlib-compatible checker runtime, written for this project.
//
// It implements the part of testlib's public interface that contest *checkers* use, so that an
// unmodified checker (`#include "testlib.h"`) compiles and runs under the judge:
//
//   registerTestlibCmd(argc, argv)      checker <input> <participant output> <answer>
//   InStream inf, ouf, ans              the test's input, the program's output, the jury's answer
//   quit / quitf / quitif with _ok, _wa, _pe, _fail (and _dirt, _unexpected_eof)
//   ensure / ensuref, doubleCompare, doubleDelta, compareRemainingLines, compareTokens
//   format, vtos, toString, englishEnding, upperCase, lowerCase, compress, setName
//
// Exit codes: 0 ok, 1 wrong answer, 2 presentation error, 3 failure of the checker itself.
// A read error on `ouf` (the program's output) is the program's fault: wrong answer. A read error on
// `inf` or `ans` (test data) is the checker's failure: exit 3. A verdict `_ok` with anything but
// whitespace left in `ouf` becomes a presentation error, as in testlib.
//
// Anything else of testlib (generators, validators, interactors, `rnd`, patterns, `quitp`) is not
// here: a checker that uses it does not compile, and the compiler's message names the call.
#ifndef CODEFRONTIER_TESTLIB_H
#define CODEFRONTIER_TESTLIB_H

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

enum TResult { _ok = 0, _wa = 1, _pe = 2, _fail = 3, _dirt = 4, _unexpected_eof = 8 };
enum TMode { _input, _output, _answer };

namespace cf_testlib {

inline int exit_code(TResult r) {
    switch (r) {
        case _ok: return 0;
        case _wa: return 1;
        case _unexpected_eof: return 1;  // the output ended early: a wrong answer here
        case _pe: return 2;
        case _dirt: return 2;
        default: return 3;
    }
}

inline const char* verdict_word(TResult r) {
    switch (r) {
        case _ok: return "ok";
        case _wa: return "wrong answer";
        case _unexpected_eof: return "wrong answer (unexpected end of file)";
        case _pe: return "wrong output format";
        case _dirt: return "wrong output format";
        default: return "FAIL";
    }
}

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

inline bool& registered() {
    static bool value = false;
    return value;
}

inline bool& finished() {
    static bool value = false;
    return value;
}

inline std::string& checker_name() {
    static std::string value;
    return value;
}

inline void on_exit_without_verdict() {
    if (registered() && !finished()) {
        std::fputs("FAIL the checker ended without a verdict (no quit/quitf)\n", stderr);
        std::fflush(stderr);
        std::_Exit(3);
    }
}

}  // namespace cf_testlib

void quit(TResult result, const std::string& message);
void quit(TResult result, const char* message);

inline std::string format(const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    std::string s = cf_testlib::vformat(fmt, ap);
    va_end(ap);
    return s;
}

inline std::string format(const std::string& s) { return s; }

template <typename T>
std::string vtos(const T& value) {
    std::ostringstream out;
    out << value;
    return out.str();
}

template <typename T>
std::string toString(const T& value) {
    return vtos(value);
}

inline std::string compress(const std::string& s) {
    return s.size() <= 64 ? s : s.substr(0, 30) + "..." + s.substr(s.size() - 31);
}

inline std::string englishEnding(int x) {
    x %= 100;
    if (x / 10 == 1) return "th";
    if (x % 10 == 1) return "st";
    if (x % 10 == 2) return "nd";
    if (x % 10 == 3) return "rd";
    return "th";
}

inline std::string upperCase(std::string s) {
    for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

inline std::string lowerCase(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

inline void setName(const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    cf_testlib::checker_name() = cf_testlib::vformat(fmt, ap);
    va_end(ap);
}

class InStream {
  public:
    std::string name;
    TMode mode = _input;

    InStream() = default;
    InStream(const InStream&) = delete;
    InStream& operator=(const InStream&) = delete;

    void open(const char* path, TMode stream_mode, const char* stream_name) {
        mode = stream_mode;
        name = stream_name;
        std::FILE* f = std::fopen(path, "rb");
        if (!f) {
            // even the program's output file is provided by the judge: a missing one is a failure
            ::quit(_fail, std::string("cannot open ") + stream_name + " file " + path);
        }
        char buf[1 << 16];
        size_t n;
        while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) data_.append(buf, n);
        std::fclose(f);
        pos_ = 0;
        opened_ = true;
    }

    bool opened() const { return opened_; }

    // -- verdicts on behalf of this stream: the program's fault for ouf, the checker's otherwise ------
    [[noreturn]] void quit(TResult result, const std::string& message) {
        if (mode != _output && result != _ok && result != _fail) {
            ::quit(_fail, message + " (in " + name + ")");
        }
        ::quit(result, message);
        std::abort();
    }

    [[noreturn]] void quit(TResult result, const char* message) { quit(result, std::string(message)); }

    [[noreturn]] void quitf(TResult result, const char* fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        std::string message = cf_testlib::vformat(fmt, ap);
        va_end(ap);
        quit(result, message);
    }

    void ensuref(bool condition, const char* fmt, ...) {
        if (condition) return;
        va_list ap;
        va_start(ap, fmt);
        std::string message = cf_testlib::vformat(fmt, ap);
        va_end(ap);
        quit(_wa, message);
    }

    // -- characters ---------------------------------------------------------------------------------
    bool eof() const { return pos_ >= data_.size(); }

    char curChar() const { return eof() ? static_cast<char>(EOF) : data_[pos_]; }

    char nextChar() {
        if (eof()) return static_cast<char>(EOF);
        return data_[pos_++];
    }

    void skipChar() {
        if (!eof()) ++pos_;
    }

    void unreadChar(char) {
        if (pos_ > 0) --pos_;
    }

    char readChar() {
        if (eof()) fail_read(_unexpected_eof, "unexpected end of file: a character expected");
        return data_[pos_++];
    }

    char readChar(char expected) {
        char c = readChar();
        if (c != expected) {
            --pos_;
            fail_read(_pe, "expected " + describe(expected) + ", found " + describe(c));
        }
        return c;
    }

    void readSpace() { readChar(' '); }

    void skipBlanks() {
        while (!eof() && is_blank(data_[pos_])) ++pos_;
    }

    bool seekEof() {
        skipBlanks();
        return eof();
    }

    bool eoln() const {
        if (eof()) return true;
        char c = data_[pos_];
        return c == '\n' || (c == '\r' && pos_ + 1 < data_.size() && data_[pos_ + 1] == '\n');
    }

    bool seekEoln() {
        while (!eof() && (data_[pos_] == ' ' || data_[pos_] == '\t')) ++pos_;
        return eoln();
    }

    void nextLine() {
        while (!eof() && data_[pos_] != '\n') ++pos_;
        if (!eof()) ++pos_;
    }

    void readEoln() {
        if (!eof() && data_[pos_] == '\r') ++pos_;
        if (eof() || data_[pos_] != '\n') {
            fail_read(eof() ? _unexpected_eof : _pe, "expected end of line, found " + describe(curChar()));
        }
        ++pos_;
    }

    void readEof() {
        if (!seekEof()) fail_read(_pe, "expected end of file, found " + describe(curChar()));
    }

    // -- tokens and lines ---------------------------------------------------------------------------
    std::string readToken() {
        skipBlanks();
        if (eof()) fail_read(_unexpected_eof, "unexpected end of file: a token expected");
        size_t start = pos_;
        while (!eof() && !is_blank(data_[pos_])) ++pos_;
        return data_.substr(start, pos_ - start);
    }

    std::string readWord() { return readToken(); }

    std::vector<std::string> readTokens(int count, int indexBase = 1) {
        (void)indexBase;
        std::vector<std::string> out;
        for (int i = 0; i < count; ++i) out.push_back(readToken());
        return out;
    }

    std::vector<std::string> readWords(int count, int indexBase = 1) { return readTokens(count, indexBase); }

    std::string readLine() {
        if (eof()) fail_read(_unexpected_eof, "unexpected end of file: a line expected");
        size_t start = pos_;
        while (!eof() && data_[pos_] != '\n') ++pos_;
        size_t end = pos_;
        if (!eof()) ++pos_;
        if (end > start && data_[end - 1] == '\r') --end;
        return data_.substr(start, end - start);
    }

    std::string readString() { return readLine(); }

    // -- numbers ------------------------------------------------------------------------------------
    long long readLong() { return to_long(readToken(), std::string()); }

    long long readLong(long long lo, long long hi, const std::string& var = std::string()) {
        long long v = to_long(readToken(), var);
        if (v < lo || v > hi) out_of_range(vtos(v), vtos(lo), vtos(hi), var);
        return v;
    }

    int readInt() { return readInt(std::numeric_limits<int>::min(), std::numeric_limits<int>::max()); }

    int readInt(int lo, int hi, const std::string& var = std::string()) {
        long long v = to_long(readToken(), var);
        if (v < lo || v > hi) {
            if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()) {
                fail_read(_pe, "expected a 32-bit integer" + var_part(var) + ", found \"" + vtos(v) + "\"");
            }
            out_of_range(vtos(v), vtos(lo), vtos(hi), var);
        }
        return static_cast<int>(v);
    }

    int readInteger() { return readInt(); }
    int readInteger(int lo, int hi, const std::string& var = std::string()) { return readInt(lo, hi, var); }

    std::vector<int> readInts(int count, int lo, int hi, const std::string& var = std::string(), int indexBase = 1) {
        (void)indexBase;
        std::vector<int> out;
        for (int i = 0; i < count; ++i) out.push_back(readInt(lo, hi, var));
        return out;
    }

    std::vector<long long> readLongs(int count, long long lo, long long hi, const std::string& var = std::string(),
                                     int indexBase = 1) {
        (void)indexBase;
        std::vector<long long> out;
        for (int i = 0; i < count; ++i) out.push_back(readLong(lo, hi, var));
        return out;
    }

    double readDouble() { return to_double(readToken(), std::string()); }

    double readDouble(double lo, double hi, const std::string& var = std::string()) {
        double v = to_double(readToken(), var);
        if (v < lo || v > hi) out_of_range(vtos(v), vtos(lo), vtos(hi), var);
        return v;
    }

    double readReal() { return readDouble(); }
    double readReal(double lo, double hi, const std::string& var = std::string()) { return readDouble(lo, hi, var); }

    std::vector<double> readDoubles(int count, double lo, double hi, const std::string& var = std::string(),
                                    int indexBase = 1) {
        (void)indexBase;
        std::vector<double> out;
        for (int i = 0; i < count; ++i) out.push_back(readDouble(lo, hi, var));
        return out;
    }

    std::vector<double> readReals(int count, double lo, double hi, const std::string& var = std::string(),
                                  int indexBase = 1) {
        return readDoubles(count, lo, hi, var, indexBase);
    }

    // A number written with between minDigits and maxDigits digits after a decimal point.
    double readStrictDouble(double lo, double hi, int minDigits, int maxDigits, const std::string& var = std::string()) {
        std::string tok = readToken();
        size_t dot = tok.find('.');
        int digits = dot == std::string::npos ? 0 : static_cast<int>(tok.size() - dot - 1);
        bool plain = !tok.empty() && tok.find_first_not_of("-0123456789.") == std::string::npos;
        if (!plain || digits < minDigits || digits > maxDigits) {
            fail_read(_pe, "expected a number with " + vtos(minDigits) + ".." + vtos(maxDigits) +
                               " digits after the point" + var_part(var) + ", found \"" + compress(tok) + "\"");
        }
        double v = to_double(tok, var);
        if (v < lo || v > hi) out_of_range(vtos(v), vtos(lo), vtos(hi), var);
        return v;
    }

    double readStrictReal(double lo, double hi, int minDigits, int maxDigits, const std::string& var = std::string()) {
        return readStrictDouble(lo, hi, minDigits, maxDigits, var);
    }

  private:
    std::string data_;
    size_t pos_ = 0;
    bool opened_ = false;

    static bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

    static std::string describe(char c) {
        if (c == static_cast<char>(EOF)) return "end of file";
        if (c == '\n') return "end of line";
        if (c == ' ') return "space";
        if (c == '\r') return "'\\r'";
        if (c == '\t') return "tab";
        if (std::isprint(static_cast<unsigned char>(c))) return std::string("'") + c + "'";
        return "byte " + vtos(static_cast<int>(static_cast<unsigned char>(c)));
    }

    static std::string var_part(const std::string& var) { return var.empty() ? "" : " (" + var + ")"; }

    [[noreturn]] void fail_read(TResult result, const std::string& message) { quit(result, message); }

    [[noreturn]] void out_of_range(const std::string& v, const std::string& lo, const std::string& hi,
                                   const std::string& var) {
        quit(_wa, (var.empty() ? std::string("value") : var) + " = " + v + " violates the range [" + lo + ", " + hi +
                      "]");
    }

    long long to_long(const std::string& tok, const std::string& var) {
        size_t i = tok[0] == '-' ? 1 : 0;
        bool digits = i < tok.size() && tok.find_first_not_of("0123456789", i) == std::string::npos;
        if (!digits || tok.size() - i > 19) {
            fail_read(_pe, "expected an integer" + var_part(var) + ", found \"" + compress(tok) + "\"");
        }
        errno = 0;
        long long v = std::strtoll(tok.c_str(), nullptr, 10);
        if (errno == ERANGE) fail_read(_pe, "integer" + var_part(var) + " \"" + compress(tok) + "\" overflows 64 bits");
        return v;
    }

    double to_double(const std::string& tok, const std::string& var) {
        // decimal notation only: [-+]digits[.digits][e[-+]digits]; no nan, inf or hexadecimal
        size_t i = 0, n = tok.size();
        if (i < n && (tok[i] == '-' || tok[i] == '+')) ++i;
        size_t mantissa = 0;
        while (i < n && std::isdigit(static_cast<unsigned char>(tok[i]))) ++i, ++mantissa;
        if (i < n && tok[i] == '.') {
            ++i;
            while (i < n && std::isdigit(static_cast<unsigned char>(tok[i]))) ++i, ++mantissa;
        }
        bool ok = mantissa > 0;
        if (ok && i < n && (tok[i] == 'e' || tok[i] == 'E')) {
            ++i;
            if (i < n && (tok[i] == '-' || tok[i] == '+')) ++i;
            size_t exp_digits = 0;
            while (i < n && std::isdigit(static_cast<unsigned char>(tok[i]))) ++i, ++exp_digits;
            ok = exp_digits > 0;
        }
        if (!ok || i != n) fail_read(_pe, "expected a number" + var_part(var) + ", found \"" + compress(tok) + "\"");
        double v = std::strtod(tok.c_str(), nullptr);
        if (!std::isfinite(v)) fail_read(_pe, "number" + var_part(var) + " \"" + compress(tok) + "\" is not finite");
        return v;
    }
};

inline InStream inf;
inline InStream ouf;
inline InStream ans;

inline void quit(TResult result, const std::string& message) {
    if (cf_testlib::finished()) std::_Exit(cf_testlib::exit_code(result));
    if (result == _ok && ouf.opened() && !ouf.seekEof()) {
        result = _dirt;
        cf_testlib::finished() = true;
        std::fprintf(stderr, "%s extra information in the output file (after: %s)\n", cf_testlib::verdict_word(result),
                     compress(message).c_str());
    } else {
        cf_testlib::finished() = true;
        std::fprintf(stderr, "%s %s\n", cf_testlib::verdict_word(result), message.c_str());
    }
    std::fflush(stderr);
    std::fflush(stdout);
    std::_Exit(cf_testlib::exit_code(result));
}

inline void quit(TResult result, const char* message) { quit(result, std::string(message)); }

[[noreturn]] inline void quitf(TResult result, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    std::string message = cf_testlib::vformat(fmt, ap);
    va_end(ap);
    quit(result, message);
    std::abort();
}

inline void quitif(bool condition, TResult result, const char* fmt, ...) {
    if (!condition) return;
    va_list ap;
    va_start(ap, fmt);
    std::string message = cf_testlib::vformat(fmt, ap);
    va_end(ap);
    quit(result, message);
}

inline void ensuref(bool condition, const char* fmt, ...) {
    if (condition) return;
    va_list ap;
    va_start(ap, fmt);
    std::string message = cf_testlib::vformat(fmt, ap);
    va_end(ap);
    quit(_fail, message);
}

inline void cf_testlib_ensure(bool condition, const char* text) {
    if (!condition) quit(_fail, std::string("condition failed: \"") + text + "\"");
}

#define ensure(cond) cf_testlib_ensure(static_cast<bool>(cond), #cond)

inline void registerTestlibCmd(int argc, char* argv[]) {
    cf_testlib::registered() = true;
    std::atexit(cf_testlib::on_exit_without_verdict);
    if (argc < 4) {
        quit(_fail, std::string("usage: ") + (argc > 0 ? argv[0] : "checker") +
                        " <input-file> <output-file> <answer-file>");
    }
    inf.open(argv[1], _input, "input");
    ouf.open(argv[2], _output, "output");
    ans.open(argv[3], _answer, "answer");
}

// |result - expected| within maxError, absolutely or relatively to |expected|.
inline bool doubleCompare(double expected, double result, double maxError) {
    if (std::isnan(expected)) return std::isnan(result);
    if (std::isinf(expected)) return result == expected;
    if (std::isnan(result) || std::isinf(result)) return false;
    double slack = 1e-15;
    if (std::fabs(result - expected) <= maxError + slack) return true;
    double lo = std::min(expected * (1.0 - maxError), expected * (1.0 + maxError));
    double hi = std::max(expected * (1.0 - maxError), expected * (1.0 + maxError));
    return result + slack >= lo && result <= hi + slack;
}

// The smaller of the absolute and the relative error of `result`.
inline double doubleDelta(double expected, double result) {
    double absolute = std::fabs(result - expected);
    if (std::fabs(expected) > 1e-9) return std::min(absolute, absolute / std::fabs(expected));
    return absolute;
}

// Compare two tokens; on a difference, a wrong answer that names the token's position.
inline void compareTokens(int tokenNo, const std::string& a, const std::string& b, char separator = ' ') {
    (void)separator;
    if (a != b) {
        quitf(_wa, "%d%s words differ - expected: '%s', found: '%s'", tokenNo, englishEnding(tokenNo).c_str(),
              compress(a).c_str(), compress(b).c_str());
    }
}

// The rest of `ans` and `ouf`, line by line: equal lines (trailing '\r' ignored), equal line counts
// (a final empty line ignored). Ends with a verdict, like testlib's: ok, or a wrong answer naming
// the first line that differs.
[[noreturn]] inline void compareRemainingLines(int lineNo = 1) {
    int first = lineNo;
    for (; !ans.eof(); ++lineNo) {
        std::string j = ans.readLine();
        if (ouf.eof()) {
            if (j.empty() && ans.eof()) break;
            quitf(_wa, "the output has %d line(s), the answer more", lineNo - first);
        }
        std::string p = ouf.readLine();
        if (j != p) {
            quitf(_wa, "%d%s lines differ - expected: '%s', found: '%s'", lineNo, englishEnding(lineNo).c_str(),
                  compress(j).c_str(), compress(p).c_str());
        }
    }
    while (!ouf.eof()) {
        std::string extra = ouf.readLine();
        if (!(extra.empty() && ouf.eof())) quitf(_wa, "the output has more lines than the answer");
    }
    quitf(_ok, "%d line(s)", lineNo - first);
}

#endif  // CODEFRONTIER_TESTLIB_H
