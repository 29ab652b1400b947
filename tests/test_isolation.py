"""Isolation between runs (issue 17): what one test or submission leaves behind, no later one can use.

Each case is built like the attack it closes: a hostile program that, when it escapes, gets AC on
data it could not compute (or makes an honest program fail), judged on one slot after the runs it
attacks, as a long-lived worker judges them. The tests assert the attack fails.
"""

from __future__ import annotations

import hashlib
import secrets
import textwrap

import pytest

from services.judge.engine import Engine
from services.judge.verdicts import Verdict
from services.settings import Settings
from tests.conftest import make_problem, sub

# accepts when every token of the expected output appears in the answer: a program that prints
# everything it could find is accepted as soon as it found the secret
SUPERSET_CHECKER = """
import sys
expected = open(sys.argv[2]).read().split()
answer = set(open(sys.argv[3]).read().split())
sys.exit(0 if expected and all(t in answer for t in expected) else 1)
"""


@pytest.fixture(scope="module")
def engine1(tmp_path_factory):
    """One slot: every run of the module happens in the same sandbox, one after the other."""
    eng = Engine(Settings(state_dir=tmp_path_factory.mktemp("isolation"), slots=1))
    yield eng
    eng.close()


def token() -> str:
    return "TKN" + secrets.token_hex(16)


# -- 3. the warm interpreter's memory -------------------------------------------------------------
# scans every writable mapping of its own process (a fork of the keeper) for earlier runs' secrets
MEMORY_SCAN = textwrap.dedent(
    r"""
    import ctypes, re
    pattern = re.compile(rb"TK" rb"N[0-9a-f]{32}|/data/[0-9a-f]{2}/([0-9a-f]{64})")
    found = set()
    for line in open("/proc/self/maps"):
        span, perms = line.split()[:2]
        if not perms.startswith("rw"):
            continue
        lo, hi = (int(x, 16) for x in span.split("-"))
        if hi - lo > 1 << 28:
            continue
        for m in pattern.finditer(ctypes.string_at(lo, hi - lo)):
            found.add((m.group(1) or m.group(0)).decode())
    print("\n".join(sorted(found)) or "nothing")
    """
)


def test_no_submission_data_survives_in_the_warm_interpreter(engine1):
    store = engine1.store
    # an earlier submission, whose source holds a secret
    earlier = token()
    p1 = make_problem(store, [("a", "1\n", "1\n")], pid="mem-earlier")
    code = f"# {earlier}\nprint(input())\n" + "".join(f"# {earlier} padding {i}\n" for i in range(64))
    assert engine1.judge(p1, sub(code, problem_id="mem-earlier")).tests[0].verdict == Verdict.AC
    # an earlier problem whose checker's source holds a secret, and whose expected output is named
    # by its content hash in the checker's request
    in_checker = token()
    expected = token().encode() + b"\n"
    checker = SUPERSET_CHECKER + f"# {in_checker}\n"
    p2 = make_problem(
        store,
        [("a", "2\n", expected)],
        pid="mem-checker",
        checker={"type": "program", "source": checker},
        checker_source=checker,
    )
    assert engine1.judge(p2, sub("print('no idea')", problem_id="mem-checker")).tests[0].verdict == Verdict.WA
    # the attacker: each test's answer is one of those secrets, never in its input
    leak = make_problem(
        store,
        [
            ("source", "1\n", earlier + "\n"),
            ("checker", "2\n", in_checker + "\n"),
            ("hash", "3\n", hashlib.sha256(expected).hexdigest() + "\n"),
        ],
        pid="mem-leak",
        checker={"type": "program", "source": SUPERSET_CHECKER},
        checker_source=SUPERSET_CHECKER,
    )
    r = engine1.judge(leak, sub(MEMORY_SCAN, problem_id="mem-leak"), mode="full")
    assert r.status == "ok", r.message
    assert [t.verdict for t in r.tests] == [Verdict.WA] * 3, r.tests
