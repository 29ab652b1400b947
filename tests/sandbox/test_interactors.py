"""Interactive problems (docs/spec.md 2.8): the program and the interactor, each in its own sandbox,
joined by two pipes; the interactor's verdict decides, and neither side turns the other's failure
into a pass. The verdict rules themselves (interaction.py) are table-driven at the end."""

from __future__ import annotations

import json
import shutil
import threading

import pytest
from typer.testing import CliRunner

from services.cli import app
from services.judge.core.engine import Engine, Stopped
from services.judge.core.interaction import interactive_verdict, interactor_jury
from services.judge.core.verdicts import Verdict
from services.problems.importers import codecontests_plus_problem
from services.problems.spec import ProblemSpec
from services.problems.store import ProblemError
from services.settings import Settings
from tests.support import BUNDLED
from tests.support.problems import make_problem, sub

# a Python interactor: sends the input's number, wants it doubled back, then a line "bye"
DOUBLER = """
import sys
n = int(open("input").read())
print(n, flush=True)
line = sys.stdin.readline()
if line.strip() != str(2 * n):
    print(f"expected {2 * n}, got {line.strip()!r}", file=sys.stderr)
    sys.exit(1)
with open("output", "w") as f:
    f.write(line)
"""

# a testlib interactor of the same dialogue
DOUBLER_CPP = r"""#include "testlib.h"
#include <iostream>
int main(int argc, char* argv[]) {
    registerInteraction(argc, argv);
    long long n = inf.readLong();
    std::cout << n << std::endl;
    long long got = ouf.readLong();
    tout << got << std::endl;
    if (got != 2 * n) quitf(_wa, "expected %lld, got %lld", 2 * n, got);
    quitf(_ok, "doubled");
}
"""

DOUBLE = "print(2 * int(input()), flush=True)\n"


def _problem(store, pid, interactor=DOUBLER, language="python", tests=None, **spec):
    path = "interactor.py" if language == "python" else "interactor.cpp"
    return make_problem(
        store,
        tests or [("a", "3\n", ""), ("b", "21\n", "")],
        pid=pid,
        interactor={"path": path},
        interactor_source=interactor,
        **spec,
    )


def _judge(engine, problem, code, language="python"):
    return engine.judge(problem, sub(code, language, problem_id=problem.id), mode="full")


@pytest.mark.parametrize("language, interactor", [("python", DOUBLER), ("cpp", DOUBLER_CPP)])
def test_a_correct_dialogue_is_accepted(engine, store, language, interactor):
    p = _problem(store, f"ia-ok-{language}", interactor, language)
    r = _judge(engine, p, DOUBLE)
    assert r.status == "ok" and r.outcome == "correct", (r.message, r.tests)


@pytest.mark.parametrize("language, interactor", [("python", DOUBLER), ("cpp", DOUBLER_CPP)])
def test_a_wrong_reply_is_the_interactors_wa(engine, store, language, interactor):
    p = _problem(store, f"ia-wa-{language}", interactor, language)
    r = _judge(engine, p, "print(2 * int(input()) + 1, flush=True)\n")
    assert [t.verdict for t in r.tests] == [Verdict.WA, Verdict.WA]
    assert "expected 6" in r.tests[0].message


def test_a_program_that_exits_at_once_is_never_accepted(engine, store):
    # the interactor's read meets the end of the program's output: testlib's unexpected end (WA)
    p = _problem(store, "ia-early", DOUBLER_CPP, "cpp")
    r = _judge(engine, p, "pass\n")
    assert [t.verdict for t in r.tests] == [Verdict.WA, Verdict.WA]


def test_a_program_that_crashes_is_re_though_the_interactor_says_wa(engine, store):
    p = _problem(store, "ia-crash", DOUBLER_CPP, "cpp")
    r = _judge(engine, p, "input()\nraise SystemExit(3)\n")
    assert r.tests[0].verdict == Verdict.RE


def test_a_program_that_floods_is_stopped_and_wrong(engine, store):
    # the interactor reads one token, says WA and leaves; the program's next write dies of SIGPIPE
    p = _problem(store, "ia-flood", DOUBLER_CPP, "cpp")
    r = _judge(engine, p, "import sys\nwhile True:\n    sys.stdout.write('9' * 65536 + ' ')\n")
    assert r.status == "ok" and r.tests[0].verdict == Verdict.WA, (r.message, r.tests)


def test_a_program_that_stalls_is_tle_and_its_interactor_then_ends(engine, store):
    p = _problem(store, "ia-stall", DOUBLER_CPP, "cpp", tests=[("a", "3\n", "")], time_limit_ms=200)
    r = _judge(engine, p, "import time\ntime.sleep(60)\n")
    assert r.status == "ok" and r.tests[0].verdict == Verdict.TLE, (r.message, r.tests)


def test_the_time_limit_counts_the_programs_cpu_only(tmp_path):
    # the interactor computes for longer than the program's time limit before it answers; the
    # program's wall limit is a minute past that (so the host's load cannot decide), its CPU tiny
    slow = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.6:\n    pass\n" + DOUBLER
    with Engine(Settings(state_dir=tmp_path, slots=1, wall_time_extra_ms=60_000)) as engine:
        p = _problem(engine.store, "ia-slow-jury", slow, tests=[("a", "3\n", "")], time_limit_ms=500)
        r = _judge(engine, p, DOUBLE)
    assert r.status == "ok" and r.outcome == "correct", (r.message, r.tests)
    assert r.tests[0].cpu_ms < 500 < r.tests[0].wall_ms


@pytest.mark.parametrize(
    "name, interactor",
    [
        ("exit3", "import sys\nprint(1, flush=True)\nsys.exit(3)\n"),
        (
            "signal",
            "import os, signal\nprint(1, flush=True)\ninput()\nos.kill(os.getpid(), signal.SIGKILL)\n",
        ),
        ("stall", "import time\nprint(1, flush=True)\ninput()\ntime.sleep(600)\n"),
        # stalls before it says anything: the program, waiting, is stopped at its wall limit, then the
        # interactor at its grace; the interactor's failure is the judge's, never the program's TLE
        ("stall-first", "import time\ntime.sleep(600)\n"),
        ("cpu", "print(1, flush=True)\ninput()\nwhile True:\n    pass\n"),
    ],
)
def test_an_interactor_that_fails_is_a_judge_error_never_ac(engine, store, name, interactor):
    p = _problem(store, f"ia-jury-{name}", interactor, tests=[("a", "3\n", "")])
    r = _judge(engine, p, DOUBLE)
    assert r.status == "judge_error" and r.rewards is None, (r.message, r.tests)
    assert r.tests[-1].verdict == Verdict.CHECKER_ERROR and "interactor" in r.tests[-1].message


def test_an_interactor_that_does_not_compile_is_a_judge_error(engine, store):
    p = _problem(store, "ia-nocompile", '#include "testlib.h"\nint main( {', "cpp")
    r = _judge(engine, p, DOUBLE)
    assert r.status == "judge_error" and "interactor does not compile" in r.message


def test_the_pipes_are_the_only_channel(engine, store):
    # the program looks for the interactor's files and processes; it finds neither, and says what it saw
    spy = (
        "import os\n"
        "seen = [p for p in ('input', 'answer', '/tmp/run/input') if os.path.exists(p)]\n"
        "pids = [d for d in os.listdir('/proc') if d.isdigit()]\n"
        "n = int(input())\n"
        "print(2 * n if not seen and len(pids) <= 2 else -1, flush=True)\n"
    )
    p = _problem(store, "ia-spy", DOUBLER, tests=[("a", "3\n", "")])
    r = _judge(engine, p, spy)
    assert r.outcome == "correct", (r.message, r.tests)


def test_a_checker_reads_the_interactors_output_file(engine, store):
    # the interactor accepts anything; the checker, on its output file, wants the doubled number
    lenient = "n = int(open('input').read())\nprint(n, flush=True)\nopen('output', 'w').write(input())\n"
    checker = (
        "import sys\n_, _, out = sys.argv[1:]\n"
        "n = int(open(sys.argv[1]).read())\nsys.exit(0 if open(out).read().strip() == str(2 * n) else 1)\n"
    )
    p = _problem(
        store,
        "ia-checker",
        lenient,
        tests=[("a", "3\n", "")],
        checker={"type": "program", "path": "checker.py"},
        checker_source=checker,
    )
    assert _judge(engine, p, DOUBLE).outcome == "correct"
    assert _judge(engine, p, "print(7, flush=True)\n").tests[0].verdict == Verdict.WA


def test_problem_json_refuses_an_interactor_with_a_function():
    with pytest.raises(ValueError, match="interactive"):
        ProblemSpec(id="x", time_limit_ms=1, memory_limit_mb=1, interactor={"path": "i.py"}, function="f")


def test_an_interactor_needs_its_source(store):
    with pytest.raises(ProblemError, match="interactor needs its source"):
        make_problem(store, [("a", "1\n", "")], pid="ia-nosrc", interactor={"path": "interactor.py"})


# ------------------------------------------------------------------------------ the pure rules

V = Verdict


@pytest.mark.parametrize(
    "rule, program, jury, sigpipe, verdict",
    [
        (
            "a failed jury is the judge's, whatever the program did",
            None,
            V.CHECKER_ERROR,
            False,
            V.CHECKER_ERROR,
        ),
        (
            "a failed jury is the judge's even when the program timed out",
            V.TLE,
            V.CHECKER_ERROR,
            False,
            V.CHECKER_ERROR,
        ),
        ("a program stopped at its time limit is TLE though the jury accepted", V.TLE, V.AC, False, V.TLE),
        ("a program stopped at its memory limit is MLE", V.MLE, V.WA, False, V.MLE),
        ("a crash is RE though the jury read the end of its output as WA", V.RE, V.WA, False, V.RE),
        ("a crash is never AC", V.RE, V.AC, False, V.RE),
        ("SIGPIPE after the jury's WA is that WA", V.RE, V.WA, True, V.WA),
        ("SIGPIPE after the jury's AC is RE", V.RE, V.AC, True, V.RE),
        ("a clean exit takes the jury's WA", None, V.WA, False, V.WA),
        ("a clean exit takes the jury's AC", None, V.AC, False, V.AC),
        ("a compile error is CE", V.CE, V.WA, False, V.CE),
    ],
)
def test_interactive_verdict(rule, program, jury, sigpipe, verdict):
    assert interactive_verdict(program, jury, sigpipe) == verdict, rule


@pytest.mark.parametrize(
    "exit_code, signal, limit, testlib, verdict",
    [
        (0, None, None, True, V.AC),
        (1, None, None, True, V.WA),
        (2, None, None, True, V.WA),
        (8, None, None, True, V.WA),
        (3, None, None, True, V.CHECKER_ERROR),
        (2, None, None, False, V.CHECKER_ERROR),
        (1, None, None, False, V.WA),
        (None, 9, None, True, V.CHECKER_ERROR),
        (0, None, "its time limit", True, V.CHECKER_ERROR),
    ],
)
def test_interactor_jury(exit_code, signal, limit, testlib, verdict):
    jury = interactor_jury(exit_code=exit_code, signal=signal, limit=limit, testlib=testlib, message=None)
    assert jury.verdict == verdict


def test_an_imported_codecontests_plus_interactive_record_is_judged(engine, store):
    record = {
        "id": "2002_C",
        "title": "C. Double It",
        "test_cases": [{"input": "4\n", "output": ""}, {"input": "21\n", "output": ""}],
        "interactor": DOUBLER_CPP,
    }
    p = codecontests_plus_problem(record, store)
    assert _judge(engine, p, DOUBLE).outcome == "correct"
    assert _judge(engine, p, "print(1, flush=True)\n").tests[0].verdict == Verdict.WA


@pytest.mark.parametrize("pid", ["hidden_number", "ridge_summit"])
def test_the_cli_and_judge_set_judge_a_bundled_interactive_problem(tmp_path, pid):
    # its ref.py is the program that talks (answer.py made its expected outputs)
    bench = tmp_path / "bench"
    bench.mkdir()
    shutil.copytree(BUNDLED / pid, bench / pid)
    ref = (BUNDLED / pid / "ref.py").read_text()
    wrong = (BUNDLED / pid / "zoo" / "wrong.py").read_text()
    (tmp_path / "ref.py").write_text(ref)
    result = CliRunner().invoke(app, ["judge", str(bench / pid), str(tmp_path / "ref.py"), "--json"])
    assert result.exit_code == 0 and json.loads(result.stdout)["outcome"] == "correct", result.output
    samples = tmp_path / "samples.jsonl"
    samples.write_text(
        "".join(json.dumps({"task_id": pid, "solution": code}) + "\n" for code in (ref, wrong))
    )
    out = tmp_path / "results.jsonl"
    result = CliRunner().invoke(app, ["judge-set", str(bench), str(samples), "--out", str(out)])
    assert [json.loads(line)["passed"] for line in out.read_text().splitlines()] == [True, False], (
        result.output
    )


def test_a_stopped_interactive_run_is_stopped_not_a_judge_error(engine, store):
    # the caller went away while the program stalled: both sides are stopped, and no verdict is given
    p = _problem(store, "ia-stopped", DOUBLER, tests=[("a", "3\n", "")], time_limit_ms=5000)
    stop = threading.Event()
    threading.Timer(0.5, stop.set).start()
    with pytest.raises(Stopped):
        engine.judge(p, sub("import time\ntime.sleep(60)\n", problem_id=p.id), stop=stop)


POINTS_CPP = r"""#include "testlib.h"
#include <iostream>
int main(int argc, char* argv[]) {
    registerInteraction(argc, argv);
    long long n = inf.readLong();
    std::cout << n << std::endl;
    long long got = ouf.readLong();
    quitp(got == 2 * n ? 1.0 : 0.5, "scored");
}
"""


def test_an_interactors_points_count_as_a_checkers(engine, store):
    p = _problem(store, "ia-points", POINTS_CPP, "cpp", tests=[("a", "3\n", "")])
    assert _judge(engine, p, DOUBLE).outcome == "correct"
    report = _judge(engine, p, "print(1, flush=True)\n").tests[0]
    assert (report.verdict, report.points) == (Verdict.WA, 0.5) and report.message.startswith("points 0.5")
