"""A problem's kind picks its grader once (services/judge/core/graders.py): one small class per kind,
and what each says of the runner a Python program's tests may share. Pure: no sandbox, no stack."""

from __future__ import annotations

import pytest

from services.judge.core.graders import (
    AssertGrader,
    FunctionGrader,
    ProgramGrader,
    StandardGrader,
    TestlibGrader,
    grader_for,
)
from services.problems.spec import ProblemSpec
from services.problems.store import Problem

TESTLIB_CHECKER = '#include "testlib.h"\nint main(int argc, char* argv[]) { registerTestlibCmd(argc, argv); quitf(_ok, "ok"); }\n'
PLAIN_CPP_CHECKER = "int main() { return 0; }\n"


def _problem(checker_source: str | None = None, **spec) -> Problem:
    fields = {"id": "p", "time_limit_ms": 1000, "memory_limit_mb": 128, **spec}
    return Problem(spec=ProblemSpec.model_validate(fields), tests=[], checker_source=checker_source)


@pytest.mark.parametrize(
    ("rule", "problem", "grader", "shares_runner"),
    [
        ("a built-in checker is the standard kind", _problem(), StandardGrader, True),
        ("a tokens checker too", _problem(checker={"type": "tokens"}), StandardGrader, True),
        ("class Solution is the function kind", _problem(function="solve"), FunctionGrader, True),
        ("entry_point is the assert kind", _problem(entry_point="f"), AssertGrader, False),
        (
            "a Python checker program is the program kind",
            _problem("print(1)", checker={"type": "program", "path": "checker.py"}),
            ProgramGrader,
            False,
        ),
        (
            "a C++ checker without testlib.h is the program kind",
            _problem(PLAIN_CPP_CHECKER, checker={"type": "program", "path": "checker.cpp"}),
            ProgramGrader,
            False,
        ),
        (
            "a C++ checker including testlib.h is the testlib kind",
            _problem(TESTLIB_CHECKER, checker={"type": "program", "path": "checker.cpp"}),
            TestlibGrader,
            False,
        ),
        (
            "a functional problem with a checker program is graded by the program",
            _problem("print(1)", function="solve", checker={"type": "program", "path": "checker.py"}),
            ProgramGrader,
            False,
        ),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_a_problem_kind_picks_its_grader(rule, problem, grader, shares_runner):
    chosen = grader_for(problem)
    assert type(chosen) is grader, rule
    assert chosen.shares_runner is shares_runner, rule


def test_testlib_keeps_testlibs_argument_order_and_exit_codes():
    assert ProgramGrader.args == ("input", "expected", "answer")
    assert TestlibGrader.args == ("input", "answer", "expected")
    assert ProgramGrader.wrong_codes == (1,) and set(TestlibGrader.wrong_codes) >= {1, 2}
