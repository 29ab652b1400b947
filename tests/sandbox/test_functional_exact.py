"""Functional answers and the functional driver (issue 28 item 2), on the real engine: integers
compare exactly at any size, no tolerance unless the problem asks for it, a syntax error is CE,
and input lines end at "\\n" only."""

from __future__ import annotations

import json
import sys

from services.judge.core.verdicts import Outcome, Verdict
from tests.support.problems import make_problem, sub

_limit = sys.get_int_max_str_digits()
sys.set_int_max_str_digits(0)
SEVEN = str(7**6000)  # 5,071 digits: past the int digit limit
sys.set_int_max_str_digits(_limit)
ECHO = "class Solution:\n    def f(self, x):\n        return x\n"


def test_big_integers_compare_exactly(engine, store):
    big = 10**400
    p = make_problem(
        store, [("a", "1\n", f"{big}\n"), ("b", "2\n", f"{SEVEN}\n")], pid="fx-big", function="f"
    )
    right = f"class Solution:\n    def f(self, x):\n        return {big} if x == 1 else 7**6000\n"
    r = engine.judge(p, sub(right, problem_id="fx-big"))
    assert r.outcome == Outcome.CORRECT, r.tests
    off = right.replace(f"return {big}", f"return {big + 1}").replace("else 7**6000", "else 7**6000 - 1")
    r = engine.judge(p, sub(off, problem_id="fx-big"), mode="full")
    assert [t.verdict for t in r.tests] == [Verdict.WA, Verdict.WA], r.tests
    as_float = right.replace(f"return {big}", "return 1e400")  # json writes Infinity: never an error
    assert engine.judge(p, sub(as_float, problem_id="fx-big")).tests[0].verdict == Verdict.WA


def test_no_tolerance_by_default(engine, store):
    p = make_problem(
        store, [("a", "1\n", "1000000\n"), ("b", "2\n", f"{2**60}\n")], pid="fx-int", function="f"
    )
    # off by one from 10^6 up, and past 2^53: both passed as floats before
    code = f"class Solution:\n    def f(self, x):\n        return 1000001 if x == 1 else {2**60 + 1}\n"
    r = engine.judge(p, sub(code, problem_id="fx-int"), mode="full")
    assert [t.verdict for t in r.tests] == [Verdict.WA, Verdict.WA], r.tests
    p = make_problem(store, [("a", "1\n", "0.1\n")], pid="fx-flt", function="f")
    near = "class Solution:\n    def f(self, x):\n        return 0.1000000001\n"
    assert engine.judge(p, sub(near, problem_id="fx-flt")).tests[0].verdict == Verdict.WA
    tol = {"type": "float", "abs_tol": 1e-6, "rel_tol": 1e-6}
    p = make_problem(
        store, [("a", "1\n", "0.1\n"), ("b", "2\n", "5\n")], pid="fx-tol", function="f", checker=tol
    )
    ok = "class Solution:\n    def f(self, x):\n        return 0.1000000001 if x == 1 else 5.0000001\n"
    assert engine.judge(p, sub(ok, problem_id="fx-tol")).outcome == Outcome.CORRECT
    # with a float checker, integers stay exact: tolerance only where a float is involved
    off = "class Solution:\n    def f(self, x):\n        return 0.1 if x == 1 else 6\n"
    assert engine.judge(p, sub(off, problem_id="fx-tol")).tests[1].verdict == Verdict.WA


def test_syntax_error_is_ce(engine, store):
    p = make_problem(store, [("a", "1\n", "1\n"), ("b", "2\n", "2\n")], pid="fx-ce", function="f")
    broken = "class Solution:\n    def f(self, x):\n        return (x\n"
    r = engine.judge(p, sub(broken, problem_id="fx-ce"), mode="full")
    assert [t.verdict for t in r.tests] == [Verdict.CE, Verdict.CE], r.tests
    assert r.compile_output and "was never closed" in r.compile_output
    assert "__fc_" not in r.compile_output, r.compile_output  # the solution's text, not the driver's
    # the driver itself never runs the appended text: a right answer is still AC, and exactly once
    assert engine.judge(p, sub(ECHO, problem_id="fx-ce")).outcome == Outcome.CORRECT


def test_input_lines_end_at_newline_only(engine, store):
    arg = "a\u2028b\u0085c\x1cd"
    line = json.dumps(arg, ensure_ascii=False)
    p = make_problem(store, [("a", line + "\n", line + "\n")], pid="fx-ls", function="f")
    r = engine.judge(p, sub(ECHO, problem_id="fx-ls"))
    assert r.outcome == Outcome.CORRECT, r.tests


def test_the_livecodebench_importer_keeps_big_integer_answers():
    from services.problems.importers import _functional_test, _LcbTest

    test = _LcbTest(input=f"{SEVEN}\n[1, 2]\n", output=SEVEN, testtype="functional")
    inp, out = _functional_test(test, "t")
    assert out == f"{SEVEN}\n".encode() and inp.startswith(SEVEN.encode())
    assert sys.get_int_max_str_digits() != 0  # the limit is back for everything else


def test_feedback_points_at_the_integer_that_differs():
    from services.judge.core.feedback import first_diff

    # as the checker compares: 1000001 is not 1000000 (it was "no difference" within 1e-6)
    assert first_diff(b"[5, 1000000]", b"[5, 1000001]", "json").column == 5
    assert first_diff(b"[5, 1000000]", b"[5, 1000000]", "json") is None
    assert first_diff(b"1 " + SEVEN.encode(), b"1 " + SEVEN[:-1].encode() + b"0", "float").column == 3
