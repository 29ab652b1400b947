"""Fan-out (docs/spec.md 4.10): one submission's tests spread over the engine's idle slots, each in its
own sandbox, give the records a serial run gives, in run order; under first_failure the tests past
the failure are not started or are stopped and discarded; announced units and waiting callers get
their slots first. No timed assertions: counts and records."""

from __future__ import annotations

import threading

import pytest

from services.judge.core.engine import FANOUT_USAGE, Engine, Stopped
from services.judge.core.verdicts import Verdict
from services.settings import Settings
from tests.support.problems import make_problem, sub

# the fields of a test's record that are the run's measurements, not its judgement
MEASURED = {"cpu_ms", "wall_ms", "memory_kb", "cpu_share"}

TESTS = [(f"t{i}", f"{i} {i + 1}\n", f"{2 * i + 1}\n") for i in range(6)]

PROGRAMS = {
    "ac": ("python", "a, b = map(int, input().split())\nprint(a + b)\n"),
    "wa_middle": ("python", "a, b = map(int, input().split())\nprint(a + b + (a == 2))\n"),
    "tle": ("python", "a, b = map(int, input().split())\nwhile a == 3:\n    pass\nprint(a + b)\n"),
    "re": ("python", "import sys\na, b = map(int, input().split())\nassert a != 1, 'boom'\nprint(a + b)\n"),
    "ce_python": ("python", "a, b = map(int, input().split()\nprint(a + b)\n"),
    "cpp_wa_middle": (
        "cpp",
        '#include <cstdio>\nint main(){long a,b;std::scanf("%ld %ld",&a,&b);'
        'std::printf("%ld\\n",a+b+(a==4));}\n',
    ),
    "ce_cpp": ("cpp", "int main( { return 0; }\n"),
}


@pytest.fixture(scope="module")
def fanned(tmp_path_factory):
    eng = Engine(Settings(state_dir=tmp_path_factory.mktemp("fanout"), slots=2, fanout=True))
    eng.warm_up()
    yield eng
    eng.close()


@pytest.fixture(scope="module")
def serial(tmp_path_factory):
    eng = Engine(Settings(state_dir=tmp_path_factory.mktemp("serial"), slots=2, fanout=False))
    yield eng
    eng.close()


def judge(engine, tests, code, pid, language="python", checker=None, **options):
    spec = {"checker": {"type": "program", "source": checker}, "checker_source": checker} if checker else {}
    problem = make_problem(engine.store, tests, pid=pid, time_limit_ms=options.pop("tl", 1000), **spec)
    usage = dict.fromkeys(FANOUT_USAGE, 0)
    result = engine.judge(problem, sub(code, language, problem_id=pid), usage=usage, **options)
    return result, usage


def judged(result) -> dict:
    """The result without what a run measures: what must be the same, serial or fanned out."""
    data = result.model_dump()
    data["tests"] = [{k: v for k, v in t.items() if k not in MEASURED} for t in data["tests"]]
    return data


@pytest.mark.parametrize("isolation", ["test", "submission"])
@pytest.mark.parametrize("mode", ["full", "first_failure"])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_fanned_out_records_equal_a_serial_runs(fanned, serial, name, mode, isolation):
    language, code = PROGRAMS[name]
    pid = f"fan-{name}-{mode}"
    tl = 300 if name == "tle" else 1000
    opts = {"mode": mode, "tl": tl, "isolation": isolation}
    theirs, serial_usage = judge(serial, TESTS, code, pid, language, **opts)
    ours, usage = judge(fanned, TESTS, code, pid, language, **opts)
    assert theirs.status == "ok", theirs.message
    assert judged(ours) == judged(theirs)
    assert [t.name for t in ours.tests] == [n for n, _, _ in TESTS]  # run order
    assert serial_usage["fanout_borrowed"] == 0
    if name == "ce_cpp":
        # nothing to fan out: the whole submission is one compile error
        assert usage["fanout_borrowed"] == 0 and ours.compile_output
    elif name != "ce_python":  # (a Python syntax error shows in the first test's run)
        # the other slot was idle: it ran some of the tests
        assert usage["fanout_borrowed"] >= 1, usage
    verdicts = [t.verdict for t in ours.tests]
    expected = {
        "ac": [Verdict.AC] * 6,
        "wa_middle": [Verdict.AC] * 2 + [Verdict.WA] + [Verdict.AC] * 3,
        "tle": [Verdict.AC] * 3 + [Verdict.TLE] + [Verdict.AC] * 2,
        "re": [Verdict.AC, Verdict.RE] + [Verdict.AC] * 4,
        "ce_python": [Verdict.CE] * 6,
        "cpp_wa_middle": [Verdict.AC] * 4 + [Verdict.WA, Verdict.AC],
        "ce_cpp": [Verdict.CE] * 6,
    }[name]
    if mode == "first_failure":
        bad = next((i for i, v in enumerate(expected) if v != Verdict.AC), len(expected))
        expected = expected[: bad + 1] + [Verdict.SKIPPED] * (len(expected) - bad - 1)
    assert verdicts == expected


# a checker that breaks on the test whose input starts with 3 (exit 7: neither AC nor WA)
CRASHING_CHECKER = """import sys
if open(sys.argv[1]).read().split()[0] == "3":
    sys.exit(7)
sys.exit(0 if open(sys.argv[2]).read().split() == open(sys.argv[3]).read().split() else 1)
"""


@pytest.mark.parametrize("mode", ["full", "first_failure"])
def test_a_checker_error_mid_way_is_a_judge_error_with_the_tests_before_it(fanned, serial, mode):
    code = PROGRAMS["ac"][1]
    theirs, _ = judge(serial, TESTS, code, f"fan-chk-{mode}", checker=CRASHING_CHECKER, mode=mode)
    ours, usage = judge(fanned, TESTS, code, f"fan-chk-{mode}", checker=CRASHING_CHECKER, mode=mode)
    assert ours.status == "judge_error" and ours.message.startswith("checker failed on test t3"), ours
    assert [t.verdict for t in ours.tests] == [Verdict.AC] * 3 + [Verdict.CHECKER_ERROR]
    assert judged(ours) == judged(theirs)
    assert usage["fanout_borrowed"] >= 1, usage


def test_an_early_failure_stops_the_slow_tests_after_it(fanned, serial):
    # a first test that fails fans nothing out: most failing samples fail there
    first, at_first = judge(fanned, TESTS, "print(0)\n", "fan-first")
    assert [t.verdict for t in first.tests] == [Verdict.WA] + [Verdict.SKIPPED] * 5
    assert at_first["fanout_borrowed"] == 0 and at_first["fanout_started"] == 1, at_first
    # test 0 passes, test 1 fails at once, each of the other 10 sleeps 2 s: they are not all started;
    # what started past the failure is stopped and discarded, reported SKIPPED as in a serial run
    tests = [(f"s{i:02}", f"{i}\n", f"{i}\n") for i in range(12)]
    code = "import time\na = int(input())\nif a > 1:\n    time.sleep(2)\nprint(a + (a == 1))\n"
    ours, usage = judge(fanned, tests, code, "fan-early", tl=1000)
    theirs, _ = judge(serial, tests, code, "fan-early")
    assert judged(ours) == judged(theirs)
    assert [t.verdict for t in ours.tests] == [Verdict.AC, Verdict.WA] + [Verdict.SKIPPED] * 10
    # the idle slot was borrowed once test 0 passed; of 12 tests, the two before the end and at most
    # one on the borrowed slot started
    assert usage["fanout_borrowed"] == 1, usage
    assert 2 <= usage["fanout_started"] <= 3, usage
    assert usage["fanout_discarded"] == usage["fanout_started"] - 2, usage
    assert fanned._free.qsize() == fanned.n_slots  # every slot is back in the pool


def test_results_keep_run_order_when_later_tests_finish_first(fanned, serial):
    # the second test is the slow one: the borrowed slot finishes the later tests before it
    tests = [(f"o{i}", f"{i}\n", f"{i * 10}\n") for i in range(5)]
    code = "import time\na = int(input())\nif a == 1:\n    time.sleep(1)\nprint(a * 10 if a != 3 else 0)\n"
    ours, usage = judge(fanned, tests, code, "fan-order", mode="full")
    theirs, _ = judge(serial, tests, code, "fan-order", mode="full")
    assert usage["fanout_borrowed"] == 1 and usage["fanout_started"] == 5, usage
    assert [(t.name, t.verdict) for t in ours.tests] == [
        ("o0", Verdict.AC),
        ("o1", Verdict.AC),
        ("o2", Verdict.AC),
        ("o3", Verdict.WA),
        ("o4", Verdict.AC),
    ]
    assert judged(ours) == judged(theirs)
    assert ours.first_failure.test == "o3"


def test_announced_units_and_concurrent_submissions_keep_their_slots(fanned):
    code = PROGRAMS["ac"][1]
    problem = make_problem(fanned.store, TESTS[:4], pid="fan-queued")
    # a unit announced (a job's next unit) takes the idle slot: no fan-out
    usage = dict.fromkeys(FANOUT_USAGE, 0)
    with fanned.queued(1):
        result = fanned.judge(problem, sub(code, problem_id=problem.id), usage=usage)
    assert [t.verdict for t in result.tests] == [Verdict.AC] * 4
    assert usage["fanout_borrowed"] == 0, usage
    # the same submission alone borrows the idle slot
    alone = dict.fromkeys(FANOUT_USAGE, 0)
    fanned.judge(problem, sub(code, problem_id=problem.id), usage=alone)
    assert alone["fanout_borrowed"] == 1, alone
    # 2 slots, 2 concurrent submissions of 2 tests each: neither takes the other's slot
    small = make_problem(fanned.store, TESTS[:2], pid="fan-pair")
    usages = [dict.fromkeys(FANOUT_USAGE, 0) for _ in range(2)]
    results = [None, None]
    with fanned.queued(2) as queued:

        def one(i):
            results[i] = fanned.judge(
                small, sub(code, sid=f"s{i}", problem_id=small.id), queued=queued, usage=usages[i]
            )

        threads = [threading.Thread(target=one, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert [u["fanout_borrowed"] for u in usages] == [0, 0], usages
    assert [[t.verdict for t in r.tests] for r in results] == [[Verdict.AC] * 2] * 2
    assert fanned._queued == 0 and fanned._waiting == 0


def test_a_stopped_fanned_out_submission_raises_stopped_and_returns_its_slots(fanned):
    tests = [(f"w{i}", f"{i}\n", f"{i}\n") for i in range(8)]
    problem = make_problem(fanned.store, tests, pid="fan-stop", time_limit_ms=1000)
    stop = threading.Event()
    timer = threading.Timer(0.5, stop.set)
    timer.start()
    try:
        with pytest.raises(Stopped):
            fanned.judge(
                problem,
                sub("import time\ntime.sleep(1.5)\nprint(input())\n", problem_id="fan-stop"),
                stop=stop,
            )
    finally:
        timer.cancel()
    assert fanned._free.qsize() == fanned.n_slots
    # and the engine judges on afterwards
    ok = fanned.judge(
        make_problem(fanned.store, TESTS[:3], pid="fan-after"), sub(PROGRAMS["ac"][1], problem_id="fan-after")
    )
    assert [t.verdict for t in ok.tests] == [Verdict.AC] * 3


def test_an_interactive_problem_stays_on_one_slot(fanned):
    # its interactor runs in the slot's partner: no fan-out, the slot beside it stays idle
    interactor = (
        "import sys\nn = int(open('input').read())\nprint(n, flush=True)\n"
        "line = sys.stdin.readline()\nsys.exit(0 if line.strip() == str(2 * n) else 1)\n"
    )
    problem = make_problem(
        fanned.store,
        [(f"i{k}", f"{k}\n", "") for k in range(4)],
        pid="fan-interactive",
        interactor={"path": "interactor.py"},
        interactor_source=interactor,
    )
    usage = dict.fromkeys(FANOUT_USAGE, 0)
    code = "print(2 * int(input()), flush=True)\n"
    result = fanned.judge(problem, sub(code, problem_id=problem.id), mode="full", usage=usage)
    assert result.status == "ok" and [t.verdict for t in result.tests] == [Verdict.AC] * 4, result
    assert usage["fanout_borrowed"] == 0 and usage["fanout_started"] == 4, usage


def test_a_job_a_worker_loop_took_counts_as_a_unit_to_come(fanned):
    # between a loop's dequeue and its job's own announcement, the job stands for one unit
    from services.judge.worker import warm

    before = warm._ENGINE
    warm.install(fanned)
    try:
        warm.job_taken()
        assert fanned._queued == 1
        problem = make_problem(fanned.store, TESTS[:4], pid="fan-taken")
        usage = dict.fromkeys(FANOUT_USAGE, 0)
        result = fanned.judge(problem, sub(PROGRAMS["ac"][1], problem_id=problem.id), usage=usage)
        assert [t.verdict for t in result.tests] == [Verdict.AC] * 4
        assert usage["fanout_borrowed"] == 0, usage
        warm.job_taken()  # the next job of the same loop replaces it
        assert fanned._queued == 1
        warm.job_done()
        assert fanned._queued == 0
    finally:
        warm.job_done()
        warm.install(before)
