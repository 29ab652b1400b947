"""testlib checkers (SPEC section 2.4): our testlib.h, compiled and run in the sandbox like real ones.

Each checker below is written here in the style of contest checkers (token compare, float tolerance,
yes/no, "any valid answer", optimum against the jury's answer, strict format, line compare); each case
judges a program's output through the real engine and names the rule it checks.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import httpx
import pytest

from services.judge.core import testlib
from services.judge.core.runners import RUNNERS
from services.judge.core.verdicts import Outcome, Verdict
from tests.support import FIXTURES, ROOT
from tests.support.problems import make_problem, sub
from tests.support.redis import claim_redis_db
from tests.support.stack import judge_stack

FIXTURE = FIXTURES / "ccplus_testlib.jsonl"

CHECKERS = {
    # wcmp-style: the same sequence of tokens
    "tokens": r"""#include "testlib.h"
int main(int argc, char* argv[]) {
    setName("compare sequences of tokens");
    registerTestlibCmd(argc, argv);
    int n = 0;
    while (!ans.seekEof() && !ouf.seekEof()) {
        n++;
        std::string j = ans.readWord(), p = ouf.readWord();
        if (j != p)
            quitf(_wa, "%d%s words differ - expected: '%s', found: '%s'", n, englishEnding(n).c_str(),
                  compress(j).c_str(), compress(p).c_str());
    }
    if (!ans.seekEof()) quitf(_wa, "answer has more tokens than the output (%d read)", n);
    if (!ouf.seekEof()) quitf(_wa, "output has more tokens than the answer (%d read)", n);
    quitf(_ok, "%d tokens", n);
}
""",
    # rcmp6-style: every number within 1e-6, absolute or relative
    "float": r"""#include "testlib.h"
#include <cstdio>
const double EPS = 1E-6;
int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    int n = 0;
    while (!ans.seekEof()) {
        n++;
        double j = ans.readDouble();
        double p = ouf.readDouble();
        if (!doubleCompare(j, p, EPS))
            quitf(_wa, "%d%s numbers differ - expected: '%.7f', found: '%.7f', error = '%.7f'",
                  n, englishEnding(n).c_str(), j, p, doubleDelta(j, p));
    }
    quitf(_ok, "%d numbers", n);
}
""",
    # yesno-style: case-insensitive, anything else is a presentation error
    "yesno": r"""#include "testlib.h"
#include <string>
using namespace std;
int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    string j = upperCase(ans.readToken());
    string p = upperCase(ouf.readToken());
    if (p != "YES" && p != "NO") quitf(_pe, "YES or NO expected, but %s found", compress(p).c_str());
    if (j != p) quitf(_wa, "expected %s, found %s", j.c_str(), p.c_str());
    quitf(_ok, "answer is %s", j.c_str());
}
""",
    # any valid answer: a divisor of n other than 1 and n, or -1 when n is prime (the jury knows which)
    "divisor": r"""#include "testlib.h"
int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    long long n = inf.readLong(2, 1000000000000LL, "n");
    long long jury = ans.readLong(-1, n, "jury");
    long long d = ouf.readLong(-1, n, "d");
    if (d == -1) {
        if (jury != -1) quitf(_wa, "n = %lld has a divisor, the participant says none", n);
        quitf(_ok, "n is prime");
    }
    if (d <= 1 || d == n || n % d != 0) quitf(_wa, "%lld is not a proper divisor of %lld", d, n);
    if (jury == -1) quitf(_fail, "the participant found a divisor of %lld, the jury none", n);
    quitf(_ok, "%lld divides %lld", d, n);
}
""",
    # optimum: the fewest coins (1, 3, 4) summing to n; verify the construction, compare the count
    "coins": r"""#include "testlib.h"
#include <vector>
int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    int n = inf.readInt(1, 1000, "n");
    int best = ans.readInt(1, n, "k");
    int k = ouf.readInt(1, n, "k");
    std::vector<int> coins = ouf.readInts(k, 1, 4, "coin");
    long long sum = 0;
    for (int c : coins) {
        ouf.ensuref(c != 2, "there is no coin 2");
        sum += c;
    }
    if (sum != n) quitf(_wa, "the coins sum to %lld, not %d", sum, n);
    if (k > best) quitf(_wa, "%d coins, the optimum is %d", k, best);
    if (k < best) quitf(_fail, "the participant used %d coins, fewer than the jury's %d", k, best);
    quitf(_ok, "%d coins", k);
}
""",
    # the common shape of "any valid answer" checkers: one reader validates the jury's answer and the
    # participant's alike, and stream.quitf blames whichever stream it was given
    "pair": r"""#include "testlib.h"
#include <utility>
int n;
std::pair<int, int> readAns(InStream& stream) {
    int a = stream.readInt(1, n, "a");
    int b = stream.readInt(1, n, "b");
    if (a + b != n) stream.quitf(_wa, "%d + %d is not %d", a, b, n);
    return {a, b};
}
int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    n = inf.readInt(2, 1000000, "n");
    readAns(ans);
    std::pair<int, int> p = readAns(ouf);
    quitf(_ok, "%d = %d + %d", n, p.first, p.second);
}
""",
    # strict format: two integers separated by one space, then end of line, then nothing
    "strict": r"""#include "testlib.h"
int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    int a = ouf.readInt(-1000, 1000, "a");
    ouf.readSpace();
    int b = ouf.readInt(-1000, 1000, "b");
    ouf.readEoln();
    ouf.readEof();
    int s = ans.readInt();
    if (a + b != s) quitf(_wa, "%d + %d != %d", a, b, s);
    quitf(_ok, "sum %d", s);
}
""",
    # lines: the rest compared line by line
    "lines": r"""#include "testlib.h"
int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    std::string title = ouf.readLine();
    if (title != ans.readLine()) quitf(_wa, "the first line differs");
    for (int n = 2; !ans.eof(); ++n) {
        std::string j = ans.readLine();
        if (j.empty() && ans.eof()) break;
        std::string p = ouf.readLine();
        if (j != p) quitf(_wa, "%d%s lines differ", n, englishEnding(n).c_str());
    }
    quitf(_ok, "lines equal");
}
""",
    # the checker's own failure: ensure on the jury's data
    "ensure": r"""#include "testlib.h"
int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    int n = inf.readInt();
    ensure(n > 0);
    quitf(ouf.readInt() == n ? _ok : _wa, "echo");
}
""",
    # a checker that crashes
    "crash": r"""#include "testlib.h"
#include <cstdlib>
int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    if (ouf.readInt() == 13) std::abort();
    quitf(_ok, "fine");
}
""",
    # a checker that forgets to give a verdict
    "silent": r"""#include "testlib.h"
int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    ouf.readInt();
    return 0;
}
""",
    # uses a part of testlib we do not provide (scorers)
    "scorer": r"""#include "testlib.h"
int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    registerScorer(argc, argv, nullptr);
}
""",
    # testlib's own exit code 8 for a premature end of the answer, when the checker asks for it
    "eof8": r"""#define ENABLE_UNEXPECTED_EOF
#include "testlib.h"
int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    quitf(ouf.readInt() == ans.readInt() ? _ok : _wa, "compared");
}
""",
    # testlib's points: the fraction of the test the output earns, the first number of the answer
    "points": r"""#include "testlib.h"
int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    double p = ouf.readDouble();
    if (p < 0) quitpi("no-score", "info only");
    quitp(p, "earned %.2f", p);
}
""",
}

AC, WA, CE = Verdict.AC, Verdict.WA, Verdict.CHECKER_ERROR

# (rule, checker, input, expected output, program output, verdict, a word of the message or None)
CASES = [
    ("tokens equal whatever the spacing", "tokens", "x\n", "a b c\n", "a  b\n\nc", AC, None),
    ("tokens: a different token is WA", "tokens", "x\n", "a b c\n", "a b d\n", WA, "3rd words differ"),
    ("tokens: a missing token is WA", "tokens", "x\n", "a b c\n", "a b\n", WA, "more tokens"),
    ("float: absolute error within 1e-6", "float", "x\n", "0.5 2\n", "0.5000009 2.0000000001\n", AC, None),
    ("float: relative error within 1e-6", "float", "x\n", "1000000000\n", "1000000900\n", AC, None),
    ("float: error beyond both is WA", "float", "x\n", "1.5\n", "1.5001\n", WA, "1st numbers differ"),
    ("float: a word for a number is WA (pe)", "float", "x\n", "1.5\n", "one\n", WA, "Expected double"),
    ("float: nan is no number", "float", "x\n", "1.5\n", "nan\n", WA, "Expected double"),
    # testlib reads a double with sscanf("%lf%s"): glibc's %lf takes a dangling exponent with it
    ("float: a dangling exponent is read as testlib reads it", "float", "x\n", "1.5\n", "1.5e\n", AC, None),
    ("float: a dangling signed exponent too", "float", "x\n", "1\n", "1e+\n", AC, None),
    ("float: two numbers in one token are no number", "float", "x\n", "1\n", "1-2\n", WA, "Expected double"),
    ("yesno ignores case", "yesno", "x\n", "YES\n", "yEs\n", AC, None),
    ("yesno: the other answer is WA", "yesno", "x\n", "YES\n", "no\n", WA, "expected YES"),
    ("yesno: neither word is pe, hence WA", "yesno", "x\n", "YES\n", "maybe\n", WA, "wrong output format"),
    ("any valid divisor is accepted", "divisor", "12\n", "2\n", "6\n", AC, None),
    ("the jury's own divisor is accepted", "divisor", "12\n", "2\n", "2\n", AC, None),
    ("a non-divisor is WA", "divisor", "12\n", "2\n", "5\n", WA, "not a proper divisor"),
    (
        "a divisor out of range in the output is WA",
        "divisor",
        "12\n",
        "2\n",
        "24\n",
        WA,
        "violates the range",
    ),
    ("no output at all is WA", "divisor", "12\n", "2\n", "", WA, "Unexpected end of file"),
    (
        "extra output after an accepted answer is pe, hence WA",
        "divisor",
        "12\n",
        "2\n",
        "6 7\n",
        WA,
        "Extra information",
    ),
    (
        "a better answer than the jury's is the checker's failure",
        "divisor",
        "9\n",
        "-1\n",
        "3\n",
        CE,
        "jury none",
    ),
    (
        "a jury answer out of range is the checker's failure",
        "divisor",
        "12\n",
        "99\n",
        "6\n",
        CE,
        "(expected)",
    ),
    ("an optimal construction is accepted", "coins", "6\n", "2\n3 3\n", "2\n3 3\n", AC, None),
    ("another optimal construction is accepted", "coins", "8\n", "2\n4 4\n", "2\n4 4\n", AC, None),
    ("a valid but worse construction is WA", "coins", "6\n", "2\n3 3\n", "3\n4 1 1\n", WA, "optimum is 2"),
    ("a construction that does not sum to n is WA", "coins", "6\n", "2\n3 3\n", "2\n3 4\n", WA, "sum to 7"),
    ("ouf.ensuref is the program's fault", "coins", "6\n", "2\n3 3\n", "3\n2 2 2\n", WA, "no coin 2"),
    ("too few numbers in the output is WA", "coins", "6\n", "2\n3 3\n", "2\n3\n", WA, "end of file"),
    ("pair: any pair summing to n is accepted", "pair", "10\n", "5 5\n", "1 9\n", AC, None),
    ("pair: a wrong pair is the participant's WA", "pair", "10\n", "5 5\n", "2 9\n", WA, "is not 10"),
    ("pair: a wrong jury pair is the checker's failure", "pair", "10\n", "4 5\n", "1 9\n", CE, "is not 10"),
    ("strict format accepted", "strict", "x\n", "3\n", "1 2\n", AC, None),
    (
        "strict: a tab for the space is pe, hence WA",
        "strict",
        "x\n",
        "3\n",
        "1\t2\n",
        WA,
        "Unexpected character '\t', but ' ' expected",
    ),
    # testlib's eoln() outside validators takes the end of the file for an end of line
    ("strict: the end of the file ends the line too", "strict", "x\n", "3\n", "1 2", AC, None),
    (
        "strict: a space for the end of line is pe, hence WA",
        "strict",
        "x\n",
        "3\n",
        "1 2 \n",
        WA,
        "Expected EOLN",
    ),
    ("strict: a third number is pe, hence WA", "strict", "x\n", "3\n", "1 2\n3\n", WA, "Expected EOF"),
    ("lines equal, CRLF or not", "lines", "x\n", "title\na b\nc\n", "title\r\na b\r\nc", AC, None),
    ("lines: inner spacing counts", "lines", "x\n", "title\na b\nc\n", "title\na  b\nc\n", WA, "2nd lines"),
    ("lines: an extra line is WA", "lines", "x\n", "title\na\n", "title\na\nb\n", WA, "Extra information"),
    ("ENABLE_UNEXPECTED_EOF: exit 8 is a wrong answer", "eof8", "x\n", "5\n", "", WA, "unexpected eof"),
    ("ENABLE_UNEXPECTED_EOF: a right answer", "eof8", "x\n", "5\n", "5\n", AC, None),
    ("ensure holding", "ensure", "5\n", "5\n", "5\n", AC, None),
    ("ensure failing is the checker's failure", "ensure", "-5\n", "5\n", "5\n", CE, "n > 0"),
    ("a checker that runs fine", "crash", "x\n", "1\n", "1\n", AC, None),
    ("a crashing checker is the checker's failure", "crash", "x\n", "1\n", "13\n", CE, "signal"),
    (
        "a checker without a verdict is the checker's failure",
        "silent",
        "x\n",
        "1\n",
        "1\n",
        CE,
        "Checker must end with quit or quitf call",
    ),
]


def _problem(store, checker: str, input_text: str, expected: str, pid: str):
    source = CHECKERS[checker]
    return make_problem(
        store,
        [("t", input_text, expected)],
        pid=pid,
        checker={"type": "program", "path": "checker.cpp", "language": "cpp"},
        checker_source=source,
    )


def _printer(text: str) -> str:
    return f"import sys\nsys.stdout.write({text!r})\n"


@pytest.mark.parametrize(
    "rule, checker, input_text, expected, output, verdict, word", CASES, ids=[c[0] for c in CASES]
)
def test_testlib_checker(engine, store, rule, checker, input_text, expected, output, verdict, word):
    pid = f"tl-{checker}"
    p = _problem(store, checker, input_text, expected, pid)
    r = engine.judge(p, sub(_printer(output), problem_id=pid))
    report = r.tests[0]
    assert report.verdict == verdict, (r.message, report.message)
    if verdict == CE:
        # never a verdict of the program: the whole result is a judge error, rewards null
        assert r.status == "judge_error" and r.rewards is None and r.outcome is None
        assert "checker" in r.message and "test t" in r.message
        assert word in r.message
    else:
        assert r.status == "ok"
        assert r.outcome == (Outcome.CORRECT if verdict == AC else Outcome.CORRECTNESS_FAILURE)
        if word is not None:
            assert word in (report.message or "")


def test_a_checker_using_what_is_not_provided_is_a_judge_error_naming_the_call(engine, store):
    p = _problem(store, "scorer", "x\n", "1\n", "tl-scorer")
    r = engine.judge(p, sub(_printer("1\n"), problem_id="tl-scorer"))
    assert r.status == "judge_error" and r.rewards is None
    assert r.tests[0].verdict == Verdict.CHECKER_ERROR
    assert "checker does not compile" in r.message
    assert "registerScorer" in r.message and "was not declared" in r.message
    # the compiler points at the checker's own line, not at a line of the inlined header
    assert "main.cpp:4:" in r.message


@pytest.mark.parametrize(
    "output, verdict, points",
    [
        ("1\n", Verdict.AC, 1.0),  # full points: the test passes
        ("0.25\n", Verdict.WA, 0.25),  # partial points: not passed, the fraction kept
        # testlib's points have no scale (pointscmp's are the participant's number): clamped to 0..1,
        # never a judge error
        ("1.5\n", Verdict.AC, 1.0),
        ("0\n", Verdict.WA, 0.0),
        ("0\n", Verdict.WA, 0.0),
    ],
)
def test_a_points_verdict_is_a_fraction_of_the_test(engine, store, output, verdict, points):
    p = _problem(store, "points", "x\n", "1\n", "tl-points")
    r = engine.judge(p, sub(_printer(output), problem_id="tl-points"), mode="full")
    report = r.tests[0]
    assert r.status == "ok" and report.verdict == verdict and report.points == points
    # R_k is strict: only a full score passes the test
    assert r.rewards["R_inf"] == (1 if points == 1.0 else 0)
    assert report.message.startswith("points ")


@pytest.mark.parametrize(
    "output, word",
    [
        ("-1\n", "points_info"),  # quitpi: information with no score
    ],
)
def test_points_the_judge_cannot_read_are_the_checkers_failure(engine, store, output, word):
    p = _problem(store, "points", "x\n", "1\n", "tl-points")
    r = engine.judge(p, sub(_printer(output), problem_id="tl-points"))
    assert r.status == "judge_error" and r.rewards is None
    assert r.tests[0].verdict == Verdict.CHECKER_ERROR and word in r.message


def test_a_points_verdict_with_extra_output_is_a_presentation_error(engine, store):
    p = _problem(store, "points", "x\n", "1\n", "tl-points")
    r = engine.judge(p, sub(_printer("1 junk\n"), problem_id="tl-points"))
    assert r.tests[0].verdict == Verdict.WA and r.tests[0].points is None
    assert "Extra information in the output file" in r.tests[0].message


def test_the_continuous_credit_counts_a_points_verdicts_fraction():
    from services.judge.core.credit import continuous_credit, discrete_credit
    from services.judge.core.models import JudgeResult

    tests = [
        {"name": "a", "input_bytes": 1, "verdict": "AC", "points": 1.0},
        {"name": "b", "input_bytes": 2, "verdict": "WA", "points": 0.5},
        {"name": "c", "input_bytes": 3, "verdict": "WA"},
        {"name": "d", "input_bytes": 4, "verdict": "AC"},
    ]
    rewards = {"R_1": 1, "R_inf": 0}
    r = JudgeResult(
        id="s", problem_id="p", status="ok", outcome="correctness_failure", rewards=rewards, tests=tests
    )
    assert continuous_credit(r) == (1 + 0.5 + 0 + 1) / 4
    assert discrete_credit(r) == 0.5  # R_k is strict: the half-scored test fails its scopes


@pytest.mark.parametrize(
    "stderr, verdict, points",
    [
        ("debug line\npoints 0.5 half\n", Verdict.WA, 0.5),
        ("points 1 all\n", Verdict.AC, 1.0),
        ("points 1.0\n", Verdict.AC, 1.0),
        ("points 0\n", Verdict.WA, 0.0),
        ("points 0.5 half\nprinted after the verdict\n", Verdict.CHECKER_ERROR, None),
        ("points nan\n", Verdict.CHECKER_ERROR, None),
        ("points 1e-3\n", Verdict.CHECKER_ERROR, None),  # never how testlib prints points
        # points outside 0..1 are clamped, never a judge error
        ("points -0.5\n", Verdict.WA, 0.0),
        ("points 2\n", Verdict.AC, 1.0),
        ("points 100000000000000000000 all and more\n", Verdict.AC, 1.0),
        ("points -3 less than nothing\n", Verdict.WA, 0.0),
        ("points points_info=x y\n", Verdict.CHECKER_ERROR, None),
        ("", Verdict.CHECKER_ERROR, None),
    ],
)
def test_a_points_verdict_is_read_from_the_last_line_only(stderr, verdict, points):
    read = testlib.points_verdict(stderr)
    assert read[0] == verdict
    assert (read[2] if len(read) > 2 else None) == points


def test_a_testlib_checker_is_compiled_once(engine, store):
    p = _problem(store, "tokens", "x\n", "a\n", "tl-once")
    source = testlib.with_header(CHECKERS["tokens"])
    digest = RUNNERS["cpp"].cache_key(RUNNERS["cpp"].compiler, "main.cpp", source)
    assert engine.judge(p, sub(_printer("a\n"), problem_id="tl-once")).outcome == Outcome.CORRECT
    binary = Path(engine._all[0].bin_dir) / digest
    inode = binary.stat().st_ino
    assert engine.judge(p, sub(_printer("b\n"), problem_id="tl-once")).tests[0].verdict == Verdict.WA
    assert binary.stat().st_ino == inode


@pytest.mark.parametrize(
    "source, uses",
    [
        ('#include "testlib.h"\nint main() {}\n', True),
        ("#include <testlib.h>\nint main() {}\n", True),
        ('  #  include "testlib.h"  // the checker library\n', True),
        ("#include <cstdio>\n// not testlib.h\nint main() {}\n", False),
        ('#include "testlib.hpp"\n', False),
    ],
)
def test_a_cpp_checker_is_a_testlib_checker_when_it_includes_testlib_h(source, uses):
    assert testlib.is_testlib_checker(source) is uses


def test_the_inlined_header_keeps_the_checkers_line_numbers():
    source = '// line 1\n#include "testlib.h"\nint x = __LINE__;\n'
    inlined = testlib.with_header(source)
    assert testlib.HEADER_PATH.read_text().strip() in inlined
    assert '#line 3 "main.cpp"\nint x = __LINE__;' in inlined


# ---------------------------------------------------------------- import, then judge, through the CLI

DIVISOR_SOLUTION = r"""#include <cstdio>
int main() {
    long long n; std::scanf("%lld", &n);
    for (long long d = n - 1; d > 1; d--) if (n % d == 0) { std::printf("%lld\n", d); return 0; }
    std::printf("-1\n");
}
"""
AREA_SOLUTION = "import math\nr = float(input())\nprint(f'{math.pi * r * r:.9f}')\n"
AREA_ROUGH = "import math\nr = float(input())\nprint(f'{math.pi * r * r:.2f}')\n"


def _frontier(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, FRONTIER_STATE_DIR=str(tmp_path / "state"), FRONTIER_SLOTS="1")
    return subprocess.run(
        [sys.executable, "-m", "services.cli", *args], cwd=ROOT, env=env, capture_output=True, text=True
    )


def test_codecontests_plus_records_import_and_judge_end_to_end(tmp_path):
    out = tmp_path / "problems"
    imported = _frontier(
        tmp_path, "problems", "import", "--format", "codecontests-plus", str(FIXTURE), str(out)
    )
    assert imported.returncode == 0, imported.stdout + imported.stderr
    assert sorted(p.name for p in out.iterdir()) == ["ccplus-9001_A", "ccplus-9002_B"]
    spec = json.loads((out / "ccplus-9001_A" / "problem.json").read_text())
    assert spec["checker"] == {"type": "program", "path": "checker.cpp", "language": "cpp"}
    assert spec["metadata"]["checker_protocol"] == "testlib"

    def judge(problem: str, code: str, name: str) -> dict:
        program = tmp_path / name
        program.write_text(code)
        run = _frontier(tmp_path, "judge", str(out / problem), str(program), "--json", "--mode", "full")
        result = json.loads(run.stdout)
        assert run.returncode == (0 if result["status"] == "ok" else 1), run.stderr
        return result

    # "any divisor": the largest proper divisor is not the jury's (smallest), and is accepted
    right = judge("ccplus-9001_A", DIVISOR_SOLUTION, "div.cpp")
    assert right["status"] == "ok" and right["outcome"] == "correct", right
    assert [t["verdict"] for t in right["tests"]] == ["AC", "AC", "AC"]
    wrong = judge("ccplus-9001_A", "print(1)\n", "one.py")
    assert wrong["outcome"] == "correctness_failure"
    assert {t["verdict"] for t in wrong["tests"]} == {"WA"}

    # float tolerance: 9 decimals pass; 2 decimals fail on the small circle only (an error of 1.6e-3
    # is beyond 1e-6 there, absolutely and relatively, but within 1e-6 relatively of 3141592.65...)
    area = judge("ccplus-9002_B", AREA_SOLUTION, "area.py")
    assert area["outcome"] == "correct", area
    rough = judge("ccplus-9002_B", AREA_ROUGH, "rough.py")
    assert [t["verdict"] for t in rough["tests"]] == ["WA", "AC"]
    assert "1st numbers differ" in rough["tests"][0]["message"]


# ------------------------------------------------------------------ the same problem through the service


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    """An API process and one worker on an empty database of the machine's Redis."""
    claim = claim_redis_db(range(15, 7, -1))
    redis_url = next(claim)
    s = judge_stack(tmp_path_factory.mktemp("testlib-stack"), redis_url=redis_url)
    yield s
    s.close()
    next(claim, None)  # flush and release the database


def test_an_imported_testlib_problem_judges_through_the_service(service, tmp_path):
    out = tmp_path / "problems"
    imported = _frontier(
        tmp_path, "problems", "import", "--format", "codecontests-plus", str(FIXTURE), str(out)
    )
    assert imported.returncode == 0, imported.stdout + imported.stderr
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        tar.add(out / "ccplus-9001_A", arcname="ccplus-9001_A")
    with httpx.Client(base_url=service.url, timeout=120) as http:
        put = http.put(
            "/problems/ccplus-9001_A", content=buf.getvalue(), headers={"content-type": "application/gzip"}
        )
        assert put.status_code == 201, put.text
        submissions = [
            {"id": "largest", "problem_id": "ccplus-9001_A", "language": "cpp", "code": DIVISOR_SOLUTION},
            {"id": "one", "problem_id": "ccplus-9001_A", "language": "python", "code": "print(1)\n"},
        ]
        results = http.post("/judge", json={"submissions": submissions}).json()["results"]
    assert [(r["id"], r["status"], r["outcome"]) for r in results] == [
        ("largest", "ok", "correct"),
        ("one", "ok", "correctness_failure"),
    ]
    assert "not a proper divisor" in results[1]["tests"][0]["message"]
