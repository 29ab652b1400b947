"""A program's output is never a judge error (issue 28 item 2): a property test over every checker
type (exact, tokens, float, functional, Python and C++ program checkers, testlib) on the real engine.

Whatever bytes a program writes (drawn by hypothesis from adversarial pieces: huge integers, numbers
past a float's range, NaN spellings, deep JSON, invalid UTF-8, U+2028, runs of whitespace with no
newline, a long token), the result is a verdict of the program (AC, WA, ...), never a judge error.
The in-process checkers are also held against plain reference definitions over many more examples
and chunk sizes, so the streaming code agrees with what the spec says.
"""

from __future__ import annotations

import io

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.judge.core import checkers
from services.judge.core.verdicts import Outcome
from tests.support.problems import make_problem, sub

PIECES = [
    b"1",
    b"-0",
    b"007",
    b"9" * 5000,  # past the int digit limit
    b"1" + b"0" * 400,
    b"1e400",  # past a float's range
    b"-1e-400",
    b"nan",
    b"NaN",
    b"Infinity",
    b"inf",
    b"1_000",
    b"0x10",
    b"3.0000001",
    b"\xef\xbc\x91",  # a fullwidth digit: float() of str takes it
    b"[" * 3000 + b"]" * 3000,  # nesting deeper than the parser's recursion
    b'{"a": [1, 2.5, true, null, "x"]}',
    b"\xff\xfe\x00",  # not UTF-8
    "a\u2028b\u0085".encode(),
    b" " * 70000,  # a run of spaces longer than a chunk
    b"\t\r\x0b\x0c",
    b"\n",
    b"\r\n",
    b"x" * 300_000,  # one long token
    b"\x00",
]
OUTPUTS = st.lists(st.sampled_from(PIECES) | st.binary(max_size=64), max_size=12).map(b"".join)

PY_CHECKER = r"""
import sys
inp, exp, ans = sys.argv[1:4]
got = open(ans, "rb").read().split()
want = open(exp, "rb").read().split()
if got == want:
    sys.exit(0)
print("expected", want[:3], "got", got[:3])
sys.exit(1)
"""
CPP_CHECKER = r"""#include <fstream>
#include <iostream>
#include <string>
int main(int argc, char** argv) {
    std::ifstream exp(argv[2]), ans(argv[3]);
    std::string e, a;
    while (true) {
        bool he = static_cast<bool>(exp >> e), ha = static_cast<bool>(ans >> a);
        if (!he && !ha) return 0;
        if (he != ha || e != a) { std::cout << "differs at " << a << "\n"; return 1; }
    }
}
"""
TESTLIB_CHECKER = r"""#include "testlib.h"
int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    int n = 0;
    while (!ans.seekEof() && !ouf.seekEof()) {
        n++;
        std::string a = ans.readWord(), o = ouf.readWord();
        if (a != o)
            quitf(_wa, "%d%s words differ - expected: '%s', found: '%s'", n, englishEnding(n).c_str(),
                  compress(a).c_str(), compress(o).c_str());
    }
    if (!ans.seekEof()) quitf(_wa, "answer has more tokens (%d read)", n);
    if (!ouf.seekEof()) quitf(_wa, "output has more tokens (%d read)", n);
    quitf(_ok, "%d tokens", n);
}
"""
KINDS = {
    "exact": {},
    "tokens": {"checker": {"type": "tokens"}},
    "float": {"checker": {"type": "float", "abs_tol": 1e-6, "rel_tol": 1e-6}},
    "functional": {"function": "f"},
    "python": {"checker": {"type": "program", "source": PY_CHECKER}, "checker_source": PY_CHECKER},
    "cpp": {
        "checker": {"type": "program", "source": CPP_CHECKER, "language": "cpp"},
        "checker_source": CPP_CHECKER,
    },
    "testlib": {
        "checker": {"type": "program", "source": TESTLIB_CHECKER, "language": "cpp"},
        "checker_source": TESTLIB_CHECKER,
    },
}
EXPECTED = b"12345678901234567890123 1e400 2.5\n"


@pytest.fixture(scope="module")
def problems(store):
    made = {}
    for kind, spec in KINDS.items():
        expected = b'[1,"x"]\n' if kind == "functional" else EXPECTED
        made[kind] = make_problem(
            store, [("a", "1\n", expected), ("b", "2\n", expected)], pid=f"never-{kind}", **spec
        )
    return made


def _program(kind: str, output: bytes) -> str:
    write = f"__import__('sys').stdout.buffer.write({output!r})"
    if kind == "functional":  # the driver prints its return value: the program writes past it
        return f"class Solution:\n    def f(self, x):\n        {write}\n        __import__('os')._exit(0)\n"
    return write + "\n"


@pytest.mark.parametrize("kind", list(KINDS))
@settings(
    max_examples=8,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(output=OUTPUTS)
def test_any_output_is_a_verdict_never_a_judge_error(engine, problems, kind, output):
    r = engine.judge(problems[kind], sub(_program(kind, output), problem_id=f"never-{kind}"), mode="full")
    assert r.status == "ok", (kind, output[:200], r)
    assert r.outcome is not None


@pytest.mark.parametrize("kind", ["exact", "tokens", "float", "functional"])
def test_the_right_answer_with_adversarial_neighbours_is_ac(engine, problems, kind):
    """The property's other half: a right answer is AC for each built-in type (big integers exactly)."""
    answer = b'[1,"x"]' if kind == "functional" else EXPECTED
    if kind == "functional":
        code = "class Solution:\n    def f(self, x):\n        return [1, 'x']\n"
    else:
        code = f"__import__('sys').stdout.buffer.write({answer + b'   '!r})\n"
    r = engine.judge(problems[kind], sub(code, problem_id=f"never-{kind}"), mode="full")
    assert r.status == "ok" and r.outcome == Outcome.CORRECT, r


# -- the in-process checkers against their plain definitions ------------------------------------------
def _exact_reference(expected: bytes, actual: bytes) -> bool:
    def form(data: bytes) -> bytes:
        return b"\n".join(line.rstrip(b" \t\r\x0b\x0c") for line in data.split(b"\n")).rstrip(b"\n")

    return form(expected) == form(actual)


SMALL = st.lists(
    st.sampled_from([b"1", b"12", b" ", b"\t", b"\r", b"\n", b"\n\n", b"x", b" 1"]), max_size=14
).map(b"".join)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(expected=SMALL, actual=SMALL, chunk=st.integers(1, 9))
def test_exact_streams_as_its_definition(expected, actual, chunk):
    assert checkers.exact(expected, io.BytesIO(actual), chunk_bytes=chunk) is _exact_reference(
        expected, actual
    )


@settings(max_examples=300, deadline=None, derandomize=True)
@given(expected=SMALL, actual=SMALL, chunk=st.integers(1, 9))
def test_tokens_streams_as_its_definition(expected, actual, chunk):
    assert checkers.tokens(expected, io.BytesIO(actual), chunk_bytes=chunk) is (
        expected.split() == actual.split()
    )


@settings(max_examples=200, deadline=None, derandomize=True)
@given(expected=OUTPUTS, actual=OUTPUTS)
def test_builtin_checkers_never_raise(expected, actual):
    for check in (checkers.exact, checkers.tokens, checkers.float_tokens, checkers.json_value):
        assert check(expected, io.BytesIO(actual)) in (True, False)
        assert check(expected, io.BytesIO(expected)) in (True, False)


@pytest.mark.parametrize(
    "expected, actual, ok",
    [
        (str(10**400), str(10**400), True),
        (str(10**400), str(10**400 + 1), False),
        ("9" * 5000, "9" * 5000, True),
        ("9" * 5000, "9" * 4999 + "8", False),
        ("1000000", "1000001", False),  # integers exact even with a float checker's tolerance
        (str(2**60), str(2**60 + 1), False),
        ("-0", "0", True),
        ("007", "7", True),
        ("1e400", "1e400", True),
        ("1e400", "2e400", False),  # both overflow to inf as floats: compared as decimals
        ("1" + "0" * 400, "1e400", True),  # a float is involved: within tolerance (equal here)
        ("2.5", "2.5000001", True),
        ("1", "1_000", False),
        ("1", "\uff11", False),
        ("inf", "inf", True),
        ("nan", "NaN", True),
    ],
)
def test_numbers_equal(expected, actual, ok):
    assert bool(checkers.numbers_equal(expected, actual, 1e-6, 1e-6)) is ok  # None: not a number
    assert checkers.float_tokens(expected.encode(), io.BytesIO(actual.encode())) is ok


@pytest.mark.parametrize(
    "expected, actual, ok",
    [
        (str(10**400), str(10**400), True),
        (str(10**400), str(10**400 + 1), False),
        ("[1000000]", "[1000001]", False),
        (f"[{2**60}]", f"[{2**60 + 1}]", False),
        ("0.1", "0.1000000001", False),  # no tolerance by default
        ("1", "1.0", True),  # a float is involved: equal values
        ("true", "1", False),
        ("[" * 3000 + "]" * 3000, "[" * 3000 + "]" * 3000, False),  # past the parser's depth: WA, no crash
        ("[" * 500 + "]" * 500, "[" * 500 + "]" * 500, True),
        ('"a\u2028b"', '"a\u2028b"', True),
    ],
)
def test_json_values(expected, actual, ok):
    assert checkers.json_value(expected.encode(), io.BytesIO(actual.encode())) is ok
