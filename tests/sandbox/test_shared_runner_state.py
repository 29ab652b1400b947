"""Carried state under isolation "submission" (docs/spec.md 4.8, issue 28 item 6): a program that
keeps its work from one test to the next, on any object that outlives a test, must be judged as a
process per test judges it. Each attack below needs k units of work (100 ms of CPU each, counted by
the program's own CPU clock, so no CPU speed decides it) on the test whose input is k, unless an
earlier test left the units it did somewhere: alone, tests 1 and 2 pass their 250 ms limit and test
3 (300 ms) does not. A runner that let the work carry would pass all three.
"""

from __future__ import annotations

import textwrap

import pytest

from services.judge.core.engine import Engine
from services.judge.core.verdicts import Verdict
from services.settings import Settings
from tests.support.problems import make_problem, sub


@pytest.fixture(scope="module")
def engine1(tmp_path_factory):
    eng = Engine(Settings(state_dir=tmp_path_factory.mktemp("carry"), slots=1))
    yield eng
    eng.close()


# one unit of work: 100 ms of this process's CPU time (threads included)
UNIT = textwrap.dedent(
    """
    import time
    def unit(clock=time.process_time):  # needs no global: a later test may call it
        end = clock() + 0.1
        while clock() < end:
            pass
    k = int(input())
    """
)

# each: where the units done so far are read (`done`) and how they are kept after the test's own
ATTACKS = {
    "function __dict__": """
        import json
        done = json.dumps.__dict__.get("done", 0)
        for _ in range(done, k):
            unit()
        json.dumps.__dict__["done"] = max(done, k)
        """,
    "mutable default argument": """
        import copy
        nil = copy.deepcopy.__defaults__[-1]  # copy.deepcopy(x, memo=None, _nil=[])
        done = len(nil)
        for _ in range(done, k):
            unit()
            nil.append(None)
        """,
    "class attribute": """
        import json
        done = getattr(json.JSONEncoder, "done", 0)
        for _ in range(done, k):
            unit()
        json.JSONEncoder.done = max(done, k)
        """,
    "module global via a function's globals": """
        import statistics
        g = statistics.mean.__globals__  # an existing global replaced: the namespace keeps its size
        done = int(g["__doc__"]) if g["__doc__"].isdigit() else 0
        for _ in range(done, k):
            unit()
        g["__doc__"] = str(max(done, k))
        """,
    "lru_cache": """
        import functools, re
        def make(unit):
            @functools.lru_cache(maxsize=None)
            def work(i):
                if i:
                    work(i - 1)
                    unit()
                return i
            return work
        work = getattr(re._compile_repl, "work", None) or make(unit)  # on a module-level lru_cache'd function
        re._compile_repl.work = work
        work(k)
        """,
    "an imported module's namespace": """
        import json.decoder
        memo = json.decoder.BACKSLASH  # a dict the module holds: one more key, same module
        done = memo.get("done", 0)
        for _ in range(done, k):
            unit()
        memo["done"] = max(done, k)
        """,
    "sys.modules stash": """
        import sys, types
        memo = sys.modules.setdefault("frontier_memo", types.ModuleType("frontier_memo"))
        done = getattr(memo, "done", 0)
        for _ in range(done, k):
            unit()
        memo.done = max(done, k)
        """,
    "gc-reachable objects": """
        import gc
        class Memo:
            done = 0
        memo = next((o for o in gc.garbage if type(o).__name__ == "Memo"), None) or Memo()
        if memo not in gc.garbage:
            gc.garbage.append(memo)
        for _ in range(memo.done, k):
            unit()
        memo.done = max(memo.done, k)
        """,
    "a background thread that precomputes": """
        import gc, threading
        class Memo:
            done = 0
        memo = next((o for o in gc.get_objects() if type(o).__name__ == "Memo" and o.done), None)
        if memo is None:
            memo = Memo()
            memo.done = 1e-9  # found by the next test's search
            def ahead():
                while memo.done < 3:
                    unit()
                    memo.done = int(memo.done) + 1
            threading.Thread(target=ahead, daemon=True).start()
        while int(memo.done) < k:  # the thread's units count in this process's CPU clock
            time.sleep(0.001)
        """,
    "the working directory's times": """
        import os
        mtime = os.stat(".").st_mtime_ns
        done = mtime if mtime < 10 else 0
        for _ in range(done, k):
            unit()
        os.utime(".", ns=(max(done, k), max(done, k)))
        """,
    "an extended attribute": """
        import os
        done = int(os.getxattr(".", "user.done")) if "user.done" in os.listxattr(".") else 0
        for _ in range(done, k):
            unit()
        os.setxattr(".", "user.done", str(max(done, k)).encode())
        """,
}


@pytest.mark.parametrize("name", list(ATTACKS))
def test_work_carried_from_test_to_test_never_turns_a_time_out_into_a_pass(engine1, name):
    code = UNIT + textwrap.dedent(ATTACKS[name]) + "print(k)\n"
    p = make_problem(
        engine1.store, [(f"t{k}", f"{k}\n", f"{k}\n") for k in (1, 2, 3)], pid="carry", time_limit_ms=250
    )
    verdicts = {}
    for iso in ("test", "submission"):
        result = engine1.judge(p, sub(code, problem_id=p.id), mode="full", isolation=iso)
        assert result.status == "ok", result.message
        assert [t.name for t in result.tests] == ["t1", "t2", "t3"]
        verdicts[iso] = [t.verdict for t in result.tests]
    assert verdicts["test"] == [Verdict.AC, Verdict.AC, Verdict.TLE]
    assert verdicts["submission"] == verdicts["test"]


def test_a_functional_submission_carries_no_work_either(engine1):
    # LeetCode style: the driver calls Solution().solve(k) in each test's process; the work is kept
    # on a module-level lru_cache'd function, stashed on an existing function object
    code = textwrap.dedent(
        """
        import functools, json, time

        def unit(clock=time.process_time):
            end = clock() + 0.1
            while clock() < end:
                pass

        @functools.lru_cache(maxsize=None)
        def work(i, unit=unit, json=json):  # needs no global: a later test may call it
            if i:
                json.dumps.__dict__["work"](i - 1)
                unit()
            return i

        class Solution:
            def solve(self, k):
                return json.dumps.__dict__.setdefault("work", work)(k)
        """
    )
    p = make_problem(
        engine1.store,
        [(f"t{k}", f"{k}\n", f"{k}") for k in (1, 2, 3)],
        pid="carry-fn",
        time_limit_ms=250,
        function="solve",
    )
    verdicts = {}
    for iso in ("test", "submission"):
        result = engine1.judge(p, sub(code, problem_id=p.id), mode="full", isolation=iso)
        assert result.status == "ok", result.message
        verdicts[iso] = [t.verdict for t in result.tests]
    assert verdicts["test"] == [Verdict.AC, Verdict.AC, Verdict.TLE]
    assert verdicts["submission"] == verdicts["test"]
