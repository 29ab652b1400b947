"""A program's output is never a judge error (issue 28 item 2), for program checkers on the real
engine: an answer near the output limit reaches the checker (by descriptor, no copy to fail), a
checker's message quoting a 2 MB token is cut, not fatal, and a Python checker run between a
submission's tests starts in a fresh interpreter that never held the submission's source."""

from __future__ import annotations

import pytest

from services.judge.core.verdicts import Outcome, Verdict
from tests.support.problems import make_problem, sub

# accepts an answer whose first token is "ok" and whose size is the input's number; on a wrong answer
# it quotes the answer's whole first line in its message (megabytes, for a long token)
SIZE_CHECKER = r"""
import os, sys
inp, exp, ans = sys.argv[1:4]
want = int(open(inp).read())
with open(ans, "rb") as f:
    head = f.read(2)
    size = os.fstat(f.fileno()).st_size
if head == b"ok" and size == want:
    sys.exit(0)
with open(ans, "rb") as f:
    line = f.readline()
print("wrong answer: got", line.decode("utf-8", "replace"), "of", size, "bytes")
sys.exit(1)
"""

SIZES = ("big-ok", "big-wrong", "token")


@pytest.fixture(scope="module")
def size_problem(store):
    mb = 1 << 20
    tests = [("big-ok", f"{60 * mb}\n", "-\n"), ("big-wrong", f"{60 * mb}\n", "-\n"), ("token", "3\n", "-\n")]
    return make_problem(
        store,
        tests,
        pid="answer-size",
        checker={"type": "program", "source": SIZE_CHECKER},
        checker_source=SIZE_CHECKER,
    )


PROGRAM = r"""
import sys
n = int(sys.stdin.read())
if n == 3:  # a 2 MB token: the checker's message quotes it
    sys.stdout.write("x" * (2 << 20))
elif WRONG:
    sys.stdout.write("no" + "y" * (n - 2))
else:
    sys.stdout.write("ok" + "z" * (n - 2))
"""


@pytest.mark.parametrize("wrong", [False, True])
def test_an_answer_near_the_output_limit_reaches_the_checker(engine, size_problem, wrong):
    code = PROGRAM.replace("WRONG", str(wrong))
    r = engine.judge(size_problem, sub(code, problem_id="answer-size"), mode="full")
    assert r.status == "ok", r
    verdicts = {t.name: t.verdict for t in r.tests}
    assert verdicts["big-ok"] == (Verdict.WA if wrong else Verdict.AC), r.tests
    assert verdicts["big-wrong"] == (Verdict.WA if wrong else Verdict.AC), r.tests
    # the checker printed more than 2 MB: its verdict stands, its message is cut
    token = next(t for t in r.tests if t.name == "token")
    assert token.verdict == Verdict.WA, token
    assert token.message and token.message.startswith("wrong answer: got xxx") and len(token.message) <= 1000


# finds the submission's request in its own process, if it was forked from the submission's zygote:
# the keeper's globals are on its stack (its ZYGOTE holds the request and the compiled code)
SNOOP = r"""
import sys
needle = "".join(["MARK", "-", "7f3a"])
found = False
frame = sys._getframe()
while frame is not None:
    session = frame.f_globals.get("ZYGOTE")
    if isinstance(session, dict) and needle in str(session.get("req")):
        found = True
    frame = frame.f_back
sys.exit(1 if found else 0)
"""


def test_a_python_checker_never_holds_the_submission(engine, store):
    tests = [(n, "1\n", "1\n") for n in ("a", "b", "c")]
    p = make_problem(
        store, tests, pid="snoop", checker={"type": "program", "source": SNOOP}, checker_source=SNOOP
    )
    code = "# MARK-7f3a: the submission's secret\nprint(input())\n"
    for isolation in ("test", "submission"):
        r = engine.judge(p, sub(code, problem_id="snoop"), mode="full", isolation=isolation)
        assert r.outcome == Outcome.CORRECT, (isolation, r.tests)


def test_a_python_checker_with_a_syntax_error_is_still_a_judge_error(engine, store):
    bad = "import sys\nsys.exit(0 if True else\n"
    p = make_problem(
        store,
        [("a", "1\n", "1\n"), ("b", "2\n", "2\n")],
        pid="bad-checker",
        checker={"type": "program", "source": bad},
        checker_source=bad,
    )
    r = engine.judge(p, sub("print(input())", problem_id="bad-checker"))
    assert r.status != "ok" or r.outcome != Outcome.CORRECT, r
    assert "checker does not compile" in str(r), r


def test_test_data_past_the_sandbox_tmp_reaches_the_checker(engine, store):
    """The input and the expected output go by descriptor too: together they outgrow /tmp (64 MB)."""
    checker = (
        "import os, sys\n"
        "sizes = [os.path.getsize(p) for p in sys.argv[1:4]]\n"
        "sys.exit(0 if sizes[0] == sizes[1] == 40 << 20 and open(sys.argv[3]).read() == 'x' else 1)\n"
    )
    data = b"7" * (40 << 20)
    p = make_problem(
        store,
        [("a", data, data), ("b", data, data)],
        pid="big-data",
        checker={"type": "program", "source": checker},
        checker_source=checker,
    )
    r = engine.judge(p, sub("import sys\nsys.stdin.read()\nprint('x', end='')", problem_id="big-data"))
    assert r.status == "ok" and r.outcome == Outcome.CORRECT, r
