"""The engine end to end on real problems: checkers, functional problems, modes, judge errors."""

from __future__ import annotations

import json
import os

import pytest

from services.judge.core.models import Submission
from services.judge.core.verdicts import Outcome, Verdict
from services.problems.spec import ProblemSpec
from services.problems.store import build_problem
from tests.support.problems import make_problem, sub


def test_full_mode_runs_every_test(engine, store):
    b, c = "2" * 20 + "\n", "3" * 200 + "\n"
    p = make_problem(store, [("a", "1\n", "1\n"), ("b", b, b), ("c", c, c)], pid="echo")
    code = "x=input()\nprint(x if len(x)!=20 else 0)"
    first = engine.judge(p, sub(code, problem_id="echo"))
    full = engine.judge(p, sub(code, problem_id="echo"), mode="full")
    assert [t.verdict for t in first.tests] == [Verdict.AC, Verdict.WA, Verdict.SKIPPED]
    assert [t.verdict for t in full.tests] == [Verdict.AC, Verdict.WA, Verdict.AC]
    # the first failure already decides every reward and the class
    assert first.rewards == full.rewards == {"R_1": 1, "R_2": 0, "R_3": 0, "R_inf": 0}
    assert first.outcome == full.outcome == Outcome.CORRECTNESS_FAILURE
    assert full.first_failure.test == "b"


def test_ks_can_be_requested(engine, store):
    p = make_problem(store, [("a", "1\n", "1\n")], pid="one")
    r = engine.judge(p, sub("print(1)", problem_id="one"), ks=[1, 3])
    assert r.rewards == {"R_1": 1, "R_3": 1, "R_inf": 1}
    assert r.in_scope == {"R_1": 1, "R_3": 1, "R_inf": 1}


def test_tokens_and_float_checkers(engine, store):
    tok = make_problem(store, [("a", "x\n", "1 2\n3\n")], pid="tok", checker={"type": "tokens"})
    assert engine.judge(tok, sub("print('1\\n 2   3')", problem_id="tok")).outcome == Outcome.CORRECT
    exact = make_problem(store, [("a", "x\n", "1 2\n3\n")], pid="exa")
    assert engine.judge(exact, sub("print('1 2  \\n3\\n\\n')", problem_id="exa")).outcome == Outcome.CORRECT
    assert (
        engine.judge(exact, sub("print('1  2\\n3')", problem_id="exa")).outcome == Outcome.CORRECTNESS_FAILURE
    )
    flt = make_problem(
        store,
        [("a", "x\n", "0.3333333 yes\n")],
        pid="flt",
        checker={"type": "float", "abs_tol": 1e-6, "rel_tol": 1e-6},
    )
    assert engine.judge(flt, sub("print(1/3, 'yes')", problem_id="flt")).outcome == Outcome.CORRECT
    assert (
        engine.judge(flt, sub("print(0.334, 'yes')", problem_id="flt")).outcome == Outcome.CORRECTNESS_FAILURE
    )
    assert engine.judge(flt, sub("print(1/3, 'no')", problem_id="flt")).outcome == Outcome.CORRECTNESS_FAILURE


CHECKER = """
import sys
inp, exp, ans = (open(p).read().split() for p in sys.argv[1:4])
n = int(inp[0])
# any two numbers that sum to n are accepted
a = list(map(int, ans))
sys.exit(0 if len(a) == 2 and sum(a) == n else 1)
"""


def test_program_checker(engine, store):
    p = make_problem(
        store,
        [("a", "10\n", "5 5\n")],
        pid="anysum",
        checker={"type": "program", "source": CHECKER},
        checker_source=CHECKER,
    )
    assert engine.judge(p, sub("print(3, 7)", problem_id="anysum")).outcome == Outcome.CORRECT
    assert engine.judge(p, sub("print(3, 8)", problem_id="anysum")).outcome == Outcome.CORRECTNESS_FAILURE


def test_a_crashing_checker_is_a_judge_error_not_a_verdict(engine, store):
    bad = "raise SystemExit(7)"
    p = make_problem(
        store,
        [("a", "10\n", "5 5\n")],
        pid="badcheck",
        checker={"type": "program", "source": bad},
        checker_source=bad,
    )
    r = engine.judge(p, sub("print(3, 7)", problem_id="badcheck"))
    assert r.status == "judge_error"
    assert r.rewards is None and r.outcome is None
    assert "checker" in r.message


# fails (testlib's "fail", exit 3) only on the second test, after saying why on stderr
FAILING_CHECKER = """
import sys
inp = open(sys.argv[1]).read().split()
if inp[0] == "20":
    print("checker: cannot parse the jury answer", file=sys.stderr)
    sys.exit(3)
sys.exit(0)
"""


@pytest.mark.parametrize("mode", ["first_failure", "full"])
def test_a_checker_failure_lists_what_ran_and_the_test_it_broke_on(engine, store, mode):
    p = make_problem(
        store,
        [("a", "10\n", "x\n"), ("b", "20\n", "x\n"), ("c", "30\n", "x\n")],
        pid="check3",
        checker={"type": "program", "source": FAILING_CHECKER},
        checker_source=FAILING_CHECKER,
    )
    r = engine.judge(p, sub("print(1)", problem_id="check3"), mode=mode)
    assert r.status == "judge_error"
    assert r.rewards is None and r.outcome is None
    assert [(t.name, t.verdict) for t in r.tests] == [("a", Verdict.AC), ("b", Verdict.CHECKER_ERROR)]
    broke = r.tests[1]
    assert "exit code 3" in broke.message and "cannot parse the jury answer" in broke.message
    assert broke.cpu_ms is not None and broke.memory_kb is not None
    assert "test b" in r.message


def test_a_checker_killed_by_a_signal_names_the_signal(engine, store):
    bad = "import os, signal\nos.kill(os.getpid(), signal.SIGABRT)"
    p = make_problem(
        store,
        [("a", "10\n", "x\n")],
        pid="checksig",
        checker={"type": "program", "source": bad},
        checker_source=bad,
    )
    r = engine.judge(p, sub("print(1)", problem_id="checksig"))
    assert r.status == "judge_error" and r.rewards is None
    assert [t.verdict for t in r.tests] == [Verdict.CHECKER_ERROR]
    assert "signal 6" in r.tests[0].message


def test_checker_cannot_be_reached_by_the_program(engine, store):
    # the checker runs after every process of the program is gone, as another uid
    p = make_problem(
        store,
        [("a", "10\n", "5 5\n")],
        pid="anysum2",
        checker={"type": "program", "source": CHECKER},
        checker_source=CHECKER,
    )
    code = "import os\nif os.fork()==0:\n  import time; time.sleep(30)\nprint(3, 7)"
    r = engine.judge(p, sub(code, problem_id="anysum2"))
    assert r.outcome == Outcome.CORRECT
    assert r.tests[0].wall_ms < 5000


FUNCTIONAL = """
class Solution:
    def twoSum(self, nums: List[int], target: int) -> List[int]:
        seen = {}
        for i, x in enumerate(nums):
            if target - x in seen:
                return [seen[target - x], i]
            seen[x] = i
"""


def test_functional_problem(engine, store):
    tests = [("a", "[2,7,11,15]\n9\n", "[0,1]"), ("b", "[3,2,4]\n6\n", "[1,2]")]
    p = make_problem(store, tests, pid="two_sum", function="twoSum")
    r = engine.judge(p, sub(FUNCTIONAL, problem_id="two_sum"))
    assert r.outcome == Outcome.CORRECT, r.tests
    # prints of the program cannot corrupt the answer
    noisy = FUNCTIONAL.replace("seen = {}", "seen = {}\n        print('debug')")
    assert engine.judge(p, sub(noisy, problem_id="two_sum")).outcome == Outcome.CORRECT
    wrong = FUNCTIONAL.replace("[seen[target - x], i]", "[i, seen[target - x]]")
    assert engine.judge(p, sub(wrong, problem_id="two_sum")).tests[0].verdict == Verdict.WA
    crash = "class Solution:\n    def twoSum(self, nums, target):\n        return nums[99]"
    assert engine.judge(p, sub(crash, problem_id="two_sum")).tests[0].verdict == Verdict.RE
    missing = "class Other: pass"
    assert engine.judge(p, sub(missing, problem_id="two_sum")).tests[0].verdict == Verdict.RE
    cpp = engine.judge(p, sub("int main(){}", language="cpp", problem_id="two_sum"))
    assert cpp.tests[0].verdict == Verdict.CE


def test_completion_extraction_and_format_error(engine, store):
    p = make_problem(store, [("a", "1\n", "1\n")], pid="ext")
    good = Submission(
        id="c1",
        problem_id="ext",
        completion="Here:\n```python\nprint(2)\n```\nFixed:\n```python\nprint(input())\n```",
    )
    assert engine.judge(p, good).outcome == Outcome.CORRECT
    none = engine.judge(p, Submission(id="c2", problem_id="ext", completion="I cannot solve this."))
    assert none.status == "ok" and none.outcome == Outcome.FORMAT_ERROR
    assert none.first_failure is None and set(none.rewards.values()) == {0} and none.tests == []


def test_missing_test_data_is_a_judge_error(engine, tmp_path):
    from services.problems.store import TestStore

    other = TestStore(tmp_path / "elsewhere")
    spec = ProblemSpec(id="ghost", time_limit_ms=1000, memory_limit_mb=64)
    p = build_problem(spec, [("a", b"never stored in the engine's store " + os.urandom(8), b"x")], other)
    r = engine.judge(p, sub("print(1)", problem_id="ghost"))
    assert r.status == "judge_error" and r.rewards is None
    assert "missing" in r.message


def test_result_matches_the_spec_shape(engine, store):
    p = make_problem(store, [("01", "1\n", "1\n"), ("02", "2" * 200 + "\n", "x\n")], pid="shape")
    r = json.loads(engine.judge(p, sub("print(input()[:1])", problem_id="shape")).model_dump_json())
    assert set(r) >= {
        "id",
        "problem_id",
        "status",
        "outcome",
        "rewards",
        "in_scope",
        "first_failure",
        "tests",
    }
    assert r["first_failure"] == {"test": "02", "input_bytes": 201, "verdict": "WA"}
    assert set(r["tests"][0]) >= {"name", "input_bytes", "verdict", "cpu_ms", "wall_ms", "memory_kb"}


def test_judge_many_keeps_order(engine, store):
    p = make_problem(store, [("a", "5\n", "5\n")], pid="order")
    subs = [
        Submission(id=f"s{i}", problem_id="order", code="print(input())" if i % 3 else "print(0)")
        for i in range(12)
    ]
    results = engine.judge_many([(p, s) for s in subs])
    assert [r.id for r in results] == [s.id for s in subs]
    assert [r.outcome == Outcome.CORRECT for r in results] == [bool(i % 3) for i in range(12)]


def test_borderline_results_are_rerun_and_flagged(engine, store):
    p = make_problem(store, [("a", "1\n", "1\n")], pid="edge", time_limit_ms=200)
    code = "import time\nt=time.process_time()\nwhile time.process_time()-t<0.2: pass\nprint(1)"
    r = engine.judge(p, sub(code, problem_id="edge"))
    assert r.tests[0].borderline is True


@pytest.mark.parametrize("mode", ["sometimes"])
def test_bad_mode_is_refused(engine, store, mode):
    p = make_problem(store, [("a", "1\n", "1\n")], pid="m")
    with pytest.raises(ValueError, match="mode"):
        engine.judge(p, sub("print(1)", problem_id="m"), mode=mode)


def test_exit_and_quit_work_as_in_a_normal_interpreter(engine, store):
    p = make_problem(store, [("a", "1\n", "1\n")], pid="exits")
    assert engine.judge(p, sub("print(1)\nexit()\nprint(2)", problem_id="exits")).outcome == Outcome.CORRECT
    r = engine.judge(p, sub("print(1)\nquit(4)", problem_id="exits"))
    assert r.tests[0].verdict == Verdict.RE


def test_a_slot_that_cannot_start_is_a_judge_error_not_a_hang(tmp_path, monkeypatch):
    from services.judge.core.engine import Engine
    from services.settings import Settings

    with Engine(Settings(state_dir=tmp_path, slots=1)) as eng:
        p = make_problem(eng.store, [("a", "1\n", "1\n")], pid="nostart")
        monkeypatch.setattr("services.judge.core.sandbox.slot.KEEPER", tmp_path / "no-such-keeper.py")
        for _ in range(3):  # every attempt fails cleanly; none waits for a slot that never came
            r = eng.judge(p, sub("print(1)", problem_id="nostart"))
            assert r.status == "judge_error" and "could not start" in r.message
        monkeypatch.undo()
        assert eng.judge(p, sub("print(1)", problem_id="nostart")).outcome == Outcome.CORRECT


def test_a_broken_slot_whose_replacement_cannot_start_leaves_the_engine_usable(tmp_path, monkeypatch):
    import signal

    from services.judge.core.engine import Engine
    from services.settings import Settings

    with Engine(Settings(state_dir=tmp_path, slots=1)) as eng:
        p = make_problem(eng.store, [("a", "1\n", "1\n")], pid="replace")
        assert eng.judge(p, sub("print(1)", problem_id="replace")).outcome == Outcome.CORRECT
        (slot,) = eng._all
        os.killpg(slot.proc.pid, signal.SIGKILL)  # the keeper dies between two submissions
        monkeypatch.setattr("services.judge.core.sandbox.slot.KEEPER", tmp_path / "no-such-keeper.py")
        r = eng.judge(p, sub("print(1)", problem_id="replace"))
        assert r.status == "judge_error"
        assert not slot.alive and slot not in eng._all
        # every further attempt is a judge error too (no closed slot comes back from the pool) ...
        r = eng.judge(p, sub("print(1)", problem_id="replace"))
        assert r.status == "judge_error" and "could not start" in r.message
        monkeypatch.undo()
        # ... and once slots can start again the engine judges, with one slot as configured
        assert eng.judge(p, sub("print(1)", problem_id="replace")).outcome == Outcome.CORRECT
        assert len(eng._all) == 1 and eng._all[0].alive
