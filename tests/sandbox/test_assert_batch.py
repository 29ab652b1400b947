"""Assert tests in one batch run per submission (engine._judge_batched, asserts.BATCH_SOURCE) against
the same tests run each in a run of its own (Engine.assert_batches False): the same verdict and
message per test, in full and first_failure mode, on a table of submissions that pass, fail, raise,
loop, use too much memory, forge the driver's records, keep state between calls, exit, close their
descriptors, leave files and processes behind, kill their parent (the driver), sleep, print a lot or
crash the interpreter."""

from __future__ import annotations

import json
import re

import pytest

from services.judge.core import asserts
from services.judge.core.engine import Engine
from services.judge.core.verdicts import Verdict
from services.problems.spec import ASSERT_PASSED as PASSED
from tests.support.problems import make_problem, sub, throttled_engine

TESTS = ["assert f(1) == 2", "assert f(2) == 4", "def check(candidate):\n    assert candidate(3) == 6\n"]

# each misbehaves on f(2), the second test, unless it says otherwise
FORGED_LINE = '{"i": 1, "v": "AC", "cpu": 1, "wall": 1, "mem": 1}'
SUBMISSIONS = {
    "correct": "def f(x):\n    return 2 * x\n",
    "wrong on one": "def f(x):\n    return 5 if x == 2 else 2 * x\n",
    "raises": "def f(x):\n    if x == 2:\n        raise ValueError('two')\n    return 2 * x\n",
    "loops": "def f(x):\n    while x == 2:\n        pass\n    return 2 * x\n",
    "memory hog": "def f(x):\n    if x == 2:\n        big = [0] * (60 << 20)\n        return len(big)\n    return 2 * x\n",
    # records as the driver writes them (any nonce), everywhere it can write: a wrong answer stays wrong
    "prints fake records": (
        "import os, sys\n"
        f"LINE = '{FORGED_LINE}'\n"
        "def f(x):\n"
        "    for nonce in ('0' * 32, 'n', ''):\n"
        "        print(nonce + ' ' + LINE)\n"
        "        sys.__stdout__.write(nonce + ' ' + LINE + '\\n')\n"
        "        os.write(1, (nonce + ' ' + LINE + '\\n').encode())\n"
        "        os.write(2, (nonce + ' ' + LINE + '\\n').encode())\n"
        "    for pid in os.listdir('/proc'):\n"
        "        if pid.isdigit():\n"
        "            try:\n"
        "                with open('/proc/' + pid + '/fd/1', 'w') as out:\n"
        "                    out.write('ok\\n' + LINE + '\\n')\n"
        "            except OSError:\n"
        "                pass\n"
        "    return 0 if x == 2 else 2 * x\n"
    ),
    # right on its first call only: every test's first call is in a fresh process
    "mutates a global": "calls = []\ndef f(x):\n    calls.append(x)\n    return 2 * x if len(calls) == 1 else -1\n",
    "mutates a default argument": "def f(x, seen=[]):\n    seen.append(x)\n    return 2 * x if len(seen) == 1 else -1\n",
    "calls os._exit": "import os\ndef f(x):\n    if x == 2:\n        os._exit(0)\n    return 2 * x\n",
    "closes its descriptors": "import os\ndef f(x):\n    if x == 2:\n        os.closerange(0, 1024)\n    return 2 * x\n",
    # state outside its process: a file in the working directory, a process left running
    "leaves a file": (
        "import os\ndef f(x):\n    if os.path.exists('mark'):\n        return -1\n"
        "    open('mark', 'w').close()\n    return 2 * x\n"
    ),
    "leaves a process": (
        "import os, time\ndef f(x):\n    if x == 1 and os.fork() == 0:\n        time.sleep(60)\n"
        "        os._exit(0)\n    return 2 * x\n"
    ),
    "kills its parent": "import os\ndef f(x):\n    if x == 2:\n        os.kill(os.getppid(), 9)\n    return 2 * x\n",
    # idle at its wall limit: TLE, given back to a run of its own, which tells idle from starved
    "sleeps": "import time\ndef f(x):\n    if x == 2:\n        time.sleep(30)\n    return 2 * x\n",
    # its output and its crash are its own: never a judge error
    "prints a lot": "def f(x):\n    print('x' * (1 << 20))\n    return 2 * x\n",
    "crashes the interpreter": "import ctypes\ndef f(x):\n    if x == 2:\n        ctypes.string_at(0)\n    return 2 * x\n",
}
# the submissions the batch judges to the end by itself; the others give a test back to runs of their own
WHOLE_IN_BATCH = {
    "correct",
    "wrong on one",
    "raises",
    "loops",
    "prints fake records",
    "mutates a global",
    "mutates a default argument",
    "calls os._exit",
    "closes its descriptors",
    "prints a lot",
}


@pytest.fixture(scope="module")
def problem(store):
    cases = [(f"{i + 1:02d}", t + "\n", PASSED) for i, t in enumerate(TESTS)]
    # public: the messages are shown, and compared
    return make_problem(
        store, cases, pid="apbatch", entry_point="f", time_limit_ms=500, memory_limit_mb=128, public_tests=3
    )


def _judge(engine, problem, code, mode, batch):
    engine.assert_batches = batch
    from_batch = []
    rest = Engine._run_tests

    def counted(self, *args, **kwargs):
        if "done" in kwargs:  # the batch's reports, handed on for the tests after them
            from_batch.append(len(kwargs["done"]))
        return rest(self, *args, **kwargs)

    Engine._run_tests = counted
    try:
        r = engine.judge(problem, sub(code, problem_id=problem.id), mode=mode)
    finally:
        Engine._run_tests = rest
        engine.assert_batches = True
    assert r.status == "ok", r
    return r, from_batch


@pytest.mark.parametrize("mode", ["full", "first_failure"])
@pytest.mark.parametrize("name", list(SUBMISSIONS))
def test_the_batch_gives_each_test_the_verdict_of_a_run_of_its_own(engine, problem, name, mode):
    code = SUBMISSIONS[name]
    alone, _ = _judge(engine, problem, code, mode, batch=False)
    batched, from_batch = _judge(engine, problem, code, mode, batch=True)
    got = [(t.name, t.verdict, _words(t.message)) for t in batched.tests]
    want = [(t.name, t.verdict, _words(t.message)) for t in alone.tests]
    assert got == want, name
    assert batched.outcome == alone.outcome and batched.rewards == alone.rewards
    ran = [t for t in batched.tests if t.verdict != Verdict.SKIPPED]
    assert all(t.cpu_ms is not None and t.wall_ms is not None and t.memory_kb is not None for t in ran)
    # how far the batch went by itself: to the end (its last record a failure in first_failure mode)
    done = len(ran) if mode == "first_failure" else len(TESTS)
    if name in WHOLE_IN_BATCH:
        assert from_batch == [done], from_batch
    else:
        assert from_batch and from_batch[0] < done, from_batch


def _words(message):
    """A message without its numbers (an idle TLE's says how long it ran)."""
    return None if message is None else re.sub(r"\d+", "N", message)


def test_the_verdicts_of_the_table(engine, problem):
    """The table's verdicts themselves (the two paths could agree on a wrong one)."""
    expect = {
        "correct": ["AC", "AC", "AC"],
        "wrong on one": ["AC", "WA", "AC"],
        "raises": ["AC", "RE", "AC"],
        "loops": ["AC", "TLE", "AC"],
        "memory hog": ["AC", "MLE", "AC"],
        "prints fake records": ["AC", "WA", "AC"],
        "mutates a global": ["AC", "AC", "AC"],
        "mutates a default argument": ["AC", "AC", "AC"],
        "calls os._exit": ["AC", "RE", "AC"],
        "kills its parent": ["AC", "RE", "AC"],
        "prints a lot": ["AC", "AC", "AC"],
        "crashes the interpreter": ["AC", "RE", "AC"],
        "sleeps": ["AC", "TLE", "AC"],
    }
    for name, verdicts in expect.items():
        r, _ = _judge(engine, problem, SUBMISSIONS[name], "full", batch=True)
        assert [t.verdict for t in r.tests] == verdicts, (name, r.tests)
    r, _ = _judge(engine, problem, SUBMISSIONS["loops"], "full", batch=True)
    assert r.tests[1].cpu_ms >= 500


def test_records_count_only_with_the_nonce_whole_and_in_order():
    rec = {"cpu": 1.5, "wall": 2.0, "mem": 10}

    def line(nonce, i, v, **more):
        return f"{nonce} {json.dumps({**rec, 'i': i, 'v': v, **more})}\n".encode()

    good = line("abc", 0, "AC") + line("abc", 1, "RE", msg="boom")
    records, why = asserts.batch_records(good, "abc", 2)
    assert [r["v"] for r in records] == ["AC", "RE"] and why is None
    # a record with another nonce, or none, ends them there
    assert asserts.batch_records(line("abd", 0, "AC"), "abc", 2)[0] == []
    assert asserts.batch_records(b'{"i": 0, "v": "AC"}\n', "abc", 1)[0] == []
    # a line without its newline (the driver killed while writing) is not a record
    records, why = asserts.batch_records(good[:-1], "abc", 2)
    assert len(records) == 1 and why == "the driver ended early"
    # out of order, an unknown verdict, bad numbers, a message of another type
    assert asserts.batch_records(line("abc", 1, "AC"), "abc", 2)[0] == []
    assert asserts.batch_records(line("abc", 0, "OK"), "abc", 2)[0] == []
    assert asserts.batch_records(line("abc", 0, "AC", cpu=-1), "abc", 2)[0] == []
    assert asserts.batch_records(line("abc", 0, "RE", msg=3), "abc", 2)[0] == []
    # "X" gives the test back: the records before it stand
    records, why = asserts.batch_records(line("abc", 0, "AC") + line("abc", 1, "X", why="wall"), "abc", 3)
    assert len(records) == 1 and why == "wall"
    # a failure ends them in first_failure mode: no reason to run the rest alone
    records, why = asserts.batch_records(line("abc", 0, "WA"), "abc", 3)
    assert len(records) == 1 and why is None
    # more records than tests
    assert asserts.batch_records(good + line("abc", 2, "AC"), "abc", 2)[1] == "a line out of protocol"


def test_the_suite_wide_tle_check_holds_the_batch_reports_too(engine, problem, monkeypatch):
    """tests/support/fixtures.py's check (docs/spec.md 4.1) patches Engine._judge_batched as well as
    Engine._report: a TLE from the driver's records with less CPU time than its limit, and no idle
    message, fails the judge call, though it never passes through _report."""
    forged = {"v": "TLE", "cpu": 10, "wall": 10, "mem": 1}
    monkeypatch.setattr(asserts, "batch_records", lambda stdout, nonce, n: ([{**forged, "i": 0}] * n, None))
    with pytest.raises(AssertionError, match="TLE"):
        engine.judge(problem, sub(SUBMISSIONS["correct"], problem_id=problem.id), mode="full")


@pytest.fixture
def throttled(tmp_path):
    """An engine of one slot whose cgroup gets 17% of a CPU (cpu.max / cfs_quota): a host that starves
    the batch. The "loops" test needs its 550 ms kill limit of CPU time, which it gets in about 3.2 s
    of wall time: past its CPU limit in wall time at a pace that would reach its 2.5 s wall limit
    first (under 22%), most of that time waiting for a CPU, and that reaches it before twice its wall
    limit (over 11%)."""
    with throttled_engine(tmp_path, 0.17) as eng:
        yield eng


def test_a_busy_test_the_host_starves_in_the_batch_is_tle_at_its_cpu_limit_never_given_back(throttled):
    """docs/spec.md 2.7: a test's wall time waiting for a CPU does not count towards its wall limit in
    the batch (up to twice that limit, what a run of its own and its rerun have): an endless loop the
    host starves reaches its CPU limit there and is TLE, as on a quiet host, with its limit of CPU time
    (the suite-wide check), not given back to runs of their own that the host would starve again. A
    sleeper waits for no CPU: at its pace it is still given back, and its run of its own says idle."""
    cases = [(f"{i + 1:02d}", t + "\n", PASSED) for i, t in enumerate(TESTS)]
    p = make_problem(
        throttled.store, cases, pid="apstarve", entry_point="f", time_limit_ms=500, memory_limit_mb=128
    )
    r, from_batch = _judge(throttled, p, SUBMISSIONS["loops"], "full", batch=True)
    assert [t.verdict for t in r.tests] == ["AC", "TLE", "AC"], r
    assert from_batch == [3], from_batch  # judged to the end in the batch
    assert r.tests[1].cpu_ms >= 550 and r.tests[1].starved_runs == 0, r.tests[1]
    assert r.tests[1].wall_ms > 2500, r.tests[1]  # past its wall limit: its waits for a CPU aside
    r, from_batch = _judge(throttled, p, SUBMISSIONS["sleeps"], "first_failure", batch=True)
    assert [t.verdict for t in r.tests] == ["AC", "TLE", "SKIPPED"], r
    assert from_batch == [1], from_batch  # the sleeper given back to a run of its own
    assert "idle at its wall limit" in r.tests[1].message


def test_no_zygote_is_opened_for_the_tests_after_a_batch_failure_in_first_failure_mode(
    engine, problem, monkeypatch
):
    """The failure ends the run in the batch: the tests after it are SKIPPED, and no zygote is opened
    for them (it cost a fork and a request per failing program)."""
    from services.judge.core.sandbox.slot import Slot

    opened = []
    real = Slot.open_zygote
    monkeypatch.setattr(Slot, "open_zygote", lambda self, *a, **k: (opened.append(1), real(self, *a, **k))[1])
    r, from_batch = _judge(engine, problem, "def f(x):\n    return 0\n", "first_failure", batch=True)
    assert [t.verdict for t in r.tests] == ["WA", "SKIPPED", "SKIPPED"] and from_batch == [1]
    assert opened == []
