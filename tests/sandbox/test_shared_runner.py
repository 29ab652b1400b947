"""The shared runner (isolation "submission", docs/spec.md 4.8): one sandboxed process serves a Python
submission's tests in turn, each in a process forked from it, a snapshot of the submission taken
before its first test. Its verdicts must be those of a process per test ("test", the default); each
test's CPU time and memory are its own, measured in the cgroup; what a test leaves outside its
process makes way for a fresh runner; and a program that attacks the runner gains nothing but its
own failure. tests/sandbox/test_shared_runner_state.py holds the attacks that carry work from test to test.
"""

from __future__ import annotations

import textwrap

import pytest

from services.judge.core.engine import Engine
from services.judge.core.sandbox.slot import RunSpec
from services.judge.core.verdicts import Verdict
from services.settings import Settings
from tests.support.problems import make_problem, sub


@pytest.fixture(scope="module")
def engine1(tmp_path_factory):
    eng = Engine(Settings(state_dir=tmp_path_factory.mktemp("shared"), slots=1))
    yield eng
    eng.close()


def both(engine, problem, code):
    """The verdicts under each isolation, and the shared run's result."""
    results = {
        iso: engine.judge(problem, sub(code, problem_id=problem.id), mode="full", isolation=iso)
        for iso in ("test", "submission")
    }
    for r in results.values():
        assert r.status == "ok", r.message
    return {iso: [t.verdict for t in r.tests] for iso, r in results.items()}, results["submission"]


def runners(engine) -> int:
    return engine._all[0].runners_started


AB = [(f"t{i}", f"{i} {i + 1}\n", f"{2 * i + 1}\n") for i in range(6)]


@pytest.mark.parametrize(
    "code",
    [
        "a, b = map(int, input().split())\nprint(a + b)\n",
        # wrong on one test only, a crash on another, an exit status, exit() mid-way
        "a, b = map(int, input().split())\nprint(a + b + (a == 2))\n",
        "a, b = map(int, input().split())\nassert a != 3\nprint(a + b)\n",
        "import sys\na, b = map(int, input().split())\nprint(a + b)\nsys.exit(a == 4)\n",
        "a, b = map(int, input().split())\nprint(a + b)\nexit()\nprint('never')\n",
        # what programs change routinely, restored between tests
        "import sys, gc\nsys.setrecursionlimit(10**6)\ngc.disable()\nprint(sum(map(int, input().split())))\n",
        # state a fresh process would not have: each makes way for a fresh runner
        "import threading\nthreading.Thread(target=lambda: None).start()\nprint(sum(map(int, input().split())))\n",
        "open('left.txt', 'a').write('x')\nimport os\nprint(sum(map(int, input().split())) + len(open('left.txt').read()) - 1)\n",
        "import builtins\nn = getattr(builtins, 'seen', 0)\nbuiltins.seen = n + 1\nprint(sum(map(int, input().split())) + n)\n",
        "import os\nn = int(os.environ.get('SEEN', 0))\nos.environ['SEEN'] = str(n + 1)\nprint(sum(map(int, input().split())) + n)\n",
        "import math\nn = getattr(math, 'seen', 0)\nmath.seen = n + 1\nprint(sum(map(int, input().split())) + n)\n",
        "import os\nprint(sum(map(int, input().split())), flush=True)\nos._exit(0)\n",
        "import os\nos.closerange(3, 64)\nprint(sum(map(int, input().split())))\n",
        # a process left running, an alarm left pending, a stack overflow that kills the runner
        "import os, time\nif os.fork() == 0:\n    time.sleep(30)\n    os._exit(0)\nprint(sum(map(int, input().split())))\n",
        "import signal\nsignal.alarm(5)\nprint(sum(map(int, input().split())))\n",
        "import sys\nsys.setrecursionlimit(10**7)\nf = lambda n: f(n + 1)\na, b = map(int, input().split())\n"
        "f(0) if a == 3 else print(a + b)\n",
        "x = (\n",
    ],
)
def test_verdicts_are_those_of_a_process_per_test(engine1, code):
    p = make_problem(engine1.store, AB, pid="shared-ab")
    verdicts, _ = both(engine1, p, code)
    assert verdicts["submission"] == verdicts["test"]


def test_a_clean_program_runs_every_test_in_one_runner(engine1):
    p = make_problem(engine1.store, AB, pid="shared-one")
    _, result = both(engine1, p, "a, b = map(int, input().split())\nprint(a + b)\n")
    assert [t.verdict for t in result.tests] == [Verdict.AC] * len(AB)
    assert runners(engine1) == 1


def test_a_compile_error_is_judged_once(engine1, monkeypatch):
    # the code never ran, so nothing of the runner's can have changed the verdict: no confirmation
    p = make_problem(engine1.store, AB, pid="shared-ce")
    forked = []
    with engine1._slot() as slot:
        run = slot.run
        monkeypatch.setattr(slot, "run", lambda spec: forked.append(spec) or run(spec))
    result = engine1.judge(p, sub("x = (\n", problem_id=p.id), mode="full", isolation="submission")
    assert [t.verdict for t in result.tests] == [Verdict.CE] * len(AB) and result.compile_output
    assert runners(engine1) == 1 and "SyntaxError" in result.compile_output and forked == []


def test_a_compile_error_keeps_its_message_when_the_host_is_slower_than_the_runner(engine1, monkeypatch):
    """Found by fresh-ci under load: a new runner writes its compile error to its first test's stderr
    at once; the host emptied that file after starting the runner, so a host slower than the runner
    left the error empty (compile_output '' and the later tests SKIPPED instead of CE in full mode).
    Here the host waits after starting each runner, as a loaded host does."""
    import time

    p = make_problem(engine1.store, AB, pid="shared-ce-slow-host")
    with engine1._slot() as slot:
        start = slot._start_runner

        def slow_host(pair):
            start(pair)
            time.sleep(0.3)  # the runner compiles and writes its error meanwhile

        monkeypatch.setattr(slot, "_start_runner", slow_host)
    result = engine1.judge(p, sub("x = (\n", problem_id=p.id), mode="full", isolation="submission")
    assert [t.verdict for t in result.tests] == [Verdict.CE] * len(AB)
    assert "SyntaxError" in result.compile_output


def test_output_left_unflushed_never_reaches_the_next_test(engine1):
    # a forked test exits without flushing sys.__stdout__'s buffer; a shared runner must drop it
    # too, not write it into the next test's output when the object is freed
    code = textwrap.dedent(
        """
        import io, os, sys
        a, b = map(int, input().split())
        os.write(1, f"{a + b}\\n".encode())
        sys.__stdout__.write("junk\\n")
        sys.stdout = io.StringIO()
        """
    )
    p = make_problem(engine1.store, AB, pid="shared-unflushed")
    verdicts, _ = both(engine1, p, code)
    assert verdicts["submission"] == verdicts["test"] == [Verdict.AC] * len(AB)
    assert runners(engine1) == 1  # no test failed in the runner (a failure would end it)


def test_a_time_out_and_a_wrong_answer_stand_without_a_second_run(engine1, monkeypatch):
    # each test's process is forked from the runner's snapshot, as fresh as a forked test's: a test
    # stopped at 1.1x its limit, and a wrong answer after it, stand without a confirming fork
    p = make_problem(engine1.store, AB, pid="shared-tle", time_limit_ms=300)
    code = "a, b = map(int, input().split())\nwhile a == 3: pass\nprint(a + b + (a == 5))\n"
    forked = []
    with engine1._slot() as slot:
        run = slot.run
        monkeypatch.setattr(slot, "run", lambda spec: forked.append(spec) or run(spec))
    result = engine1.judge(p, sub(code, problem_id=p.id), mode="full", isolation="submission")
    assert [t.verdict for t in result.tests] == [Verdict.AC] * 3 + [Verdict.TLE, Verdict.AC, Verdict.WA]
    # the time-out ended its runner (the watchdog stops the whole cgroup); the wrong answer stands
    # (before, a failure after a runner's first test was confirmed alone: carried state could fail it)
    assert forked == [] and runners(engine1) == 2


@pytest.mark.parametrize(
    "left",
    [
        "open('left.txt', 'w').close()",
        "import os\nos.mkdir('d')\nos.rmdir('d')",  # the directory's times changed
        "import os\nos.utime('.', ns=(5, 5))",
        "import os\nos.chmod('.', 0o750)",
        "import os\nos.chmod('.', 0)",  # the runner cannot even read it
        "import os\nos.setxattr('.', 'user.mark', b'1')",
    ],
)
def test_a_working_directory_left_changed_ends_the_runner(engine1, left):
    # the working directory outlives a test's process: left in any way other than as it was, the
    # next test gets a fresh runner (whose working directory is made afresh)
    p = make_problem(engine1.store, AB, pid="shared-left")
    code = f"{left}\nprint(sum(map(int, input().split())))\n"
    verdicts, _ = both(engine1, p, code)
    assert verdicts["submission"] == [Verdict.AC] * len(AB)
    # a runner per test until the engine gives up on sharing (SHARED_RUNNERS_MAX), then a fork each
    assert runners(engine1) == 3


def test_state_inside_a_tests_process_never_ends_the_runner(engine1):
    # what a program changes in its own memory (builtins, a module, the environment, hooks, a
    # thread) ends with its process: the next test is forked from the unchanged runner. (Before,
    # the program ran in the runner, and each of these ended it.)
    code = textwrap.dedent(
        """
        import builtins, math, os, signal, sys, threading, time
        assert not hasattr(builtins, "mark") and not hasattr(math, "mark") and "MARK" not in os.environ
        builtins.mark = math.mark = 1
        os.environ["MARK"] = "1"
        sys.settrace(lambda *a: None)
        signal.signal(signal.SIGUSR1, lambda *a: None)
        threading.Thread(target=time.sleep, args=(30,), daemon=True).start()
        print(sum(map(int, input().split())))
        """
    )
    p = make_problem(engine1.store, AB, pid="shared-inside")
    verdicts, _ = both(engine1, p, code)
    assert verdicts["submission"] == verdicts["test"] == [Verdict.AC] * len(AB)
    assert runners(engine1) == 1


def test_a_process_left_behind_ends_the_runner(engine1):
    # a grandchild that outlives its test (detached, in a session of its own) is in the cgroup: the
    # engine counts the cgroup's tasks itself and ends the runner
    code = textwrap.dedent(
        """
        import os, time
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                time.sleep(30)
            os._exit(0)
        os.wait()
        print(sum(map(int, input().split())))
        """
    )
    p = make_problem(engine1.store, AB, pid="shared-left-process")
    verdicts, _ = both(engine1, p, code)
    assert verdicts["submission"] == verdicts["test"] == [Verdict.AC] * len(AB)
    assert runners(engine1) == 3


def test_a_test_has_the_process_budget_of_a_forked_test(engine1):
    # the runner is one process more than a forked test: its tests still start as many processes
    code = textwrap.dedent(
        """
        import os
        r, w = os.pipe()
        n = 0
        while n < 200:
            try:
                pid = os.fork()
            except OSError:
                break
            if pid == 0:
                os.close(w)
                os.read(r, 1)
                os._exit(0)
            n += 1
        os.close(w)
        for _ in range(n):
            os.wait()
        input()
        print(n)
        """
    )
    n = engine1.settings.pids_max - 1
    p = make_problem(engine1.store, [(f"n{i}", f"{i}\n", f"{n}\n") for i in range(3)], pid="shared-nproc")
    verdicts, _ = both(engine1, p, code)
    assert verdicts["submission"] == verdicts["test"] == [Verdict.AC] * 3
    assert runners(engine1) == 1


def test_a_test_ended_by_a_signal_is_a_crash_and_the_runner_goes_on(engine1):
    code = "import os, signal\na, b = map(int, input().split())\nif a == 2:\n    os.kill(os.getpid(), signal.SIGSEGV)\nprint(a + b)\n"
    p = make_problem(engine1.store, AB, pid="shared-signal")
    verdicts, result = both(engine1, p, code)
    assert verdicts["submission"] == verdicts["test"]
    assert verdicts["submission"][2] == Verdict.RE and verdicts["submission"].count(Verdict.AC) == 5
    assert runners(engine1) == 1


def test_a_tests_process_cannot_reach_its_runner(engine1):
    # the runner is not dumpable: a test's process, of the same uid, can neither read nor write it
    # (/proc hides it, as it hides the zygote from a forked test; ptrace is filtered); killing it
    # only ends the runner, and the test runs again in a process of its own
    code = textwrap.dedent(
        """
        import os, signal
        a, b = map(int, input().split())
        for mode in ("rb", "r+b"):
            try:
                open(f"/proc/{os.getppid()}/mem", mode)
                raise SystemExit(f"runner's memory opened {mode}")
            except (PermissionError, FileNotFoundError):
                pass
        if a == 3:  # a forked test's parent is the zygote (root): PermissionError, a crash
            os.kill(os.getppid(), signal.SIGKILL)
        print(a + b)
        """
    )
    p = make_problem(engine1.store, AB, pid="shared-reach")
    verdicts, _ = both(engine1, p, code)
    assert verdicts["submission"] == verdicts["test"]
    assert verdicts["submission"].count(Verdict.AC) == 5 and verdicts["submission"][3] == Verdict.RE


def test_a_mutation_inside_a_standard_modules_object_never_reaches_the_next_test(engine1):
    # it did before: the program ran in the runner, and such a change carried (docs/spec.md 4.8)
    code = textwrap.dedent(
        """
        import copy
        if "mark" in copy._deepcopy_dispatch:
            raise SystemExit("carried")
        copy._deepcopy_dispatch["mark"] = None
        print(sum(map(int, input().split())))
        """
    )
    p = make_problem(engine1.store, AB[:3], pid="shared-carry")
    verdicts, result = both(engine1, p, code)
    assert verdicts["submission"] == verdicts["test"] == [Verdict.AC] * 3
    assert runners(engine1) == 1


def test_each_test_gets_its_own_cpu_time_and_memory(engine1):
    code = textwrap.dedent(
        """
        import time
        kind = input().strip()
        if kind == "burn":
            end = time.process_time() + 0.3
            while time.process_time() < end:
                pass
        elif kind == "spin":
            while True:
                pass
        elif kind == "big":
            block = bytearray(200 << 20)
            block[:: 4096] = b"x" * len(block[:: 4096])
        print("ok")
        """
    )
    # inputs of one size, so that the tests run in this order (run order sorts by size)
    kinds = ["small", "burn ", "small", "big  ", "small", "spin ", "small"]
    tests = [(name, kind + "\n", "ok\n") for name, kind in zip("abcdefg", kinds, strict=True)]
    p = make_problem(engine1.store, tests, pid="shared-account", time_limit_ms=1000, memory_limit_mb=512)
    verdicts, result = both(engine1, p, code)
    assert verdicts["submission"] == verdicts["test"]
    assert [r.name for r in result.tests] == list("abcdefg")
    assert verdicts["submission"] == [Verdict.AC] * 5 + [Verdict.TLE, Verdict.AC]
    t = {r.name: r for r in result.tests}
    assert t["b"].cpu_ms >= 250 and t["a"].cpu_ms < 150 and t["c"].cpu_ms < 150
    assert t["d"].memory_kb >= 200 << 10 and t["e"].memory_kb < 100 << 10
    # the spinner ran to its CPU limit, loaded host or not (spec 4.1)
    assert t["f"].cpu_ms >= 1000, t["f"]


def test_a_program_that_talks_to_the_runner_socket_gains_nothing(engine1):
    # it answers for the runner (a report for a test that does not exist, garbage) and then fails:
    # the engine waits for the report of the test it sent, and the failure is the program's own
    code = textwrap.dedent(
        """
        import os, socket, struct, sys
        a, b = map(int, input().split())
        for fd in range(3, 16):
            try:
                s = socket.socket(fileno=os.dup(fd))
                s.send(b"D" + struct.pack("!IiB", 10**6, 0, 1))
                s.send(b"garbage")
            except OSError:
                pass
        print(a + b + (a == 3))
        """
    )
    p = make_problem(engine1.store, AB, pid="shared-talk")
    verdicts, result = both(engine1, p, code)
    assert verdicts["submission"] == verdicts["test"]
    assert verdicts["submission"][3] == Verdict.WA


def test_a_runner_never_holds_another_tests_data(engine1):
    # every descriptor it has, and every file it can name, is its own test's: the slot hands it
    # each test's files as descriptors, and /data stays out of its reach
    code = textwrap.dedent(
        """
        import os, sys
        data = sys.stdin.read()
        fds = sorted(int(f) for f in os.listdir("/proc/self/fd"))
        try:
            os.listdir("/data")
            sys.exit("/data is readable")
        except PermissionError:
            pass
        # 0-2, the runner's socket, its /dev/null and this listing's own: no other test's file
        links = {}
        for fd in fds[3:]:
            try:
                links[fd] = os.readlink(f"/proc/self/fd/{fd}")
            except FileNotFoundError:  # the listing's own, closed by now
                pass
        if len(fds) > 6 or any("/data/" in link or "/io/" in link for link in links.values()):
            sys.exit(f"descriptors {links}")
        print(data.split()[0])
        """
    )
    p = make_problem(
        engine1.store, [(f"u{i}", f"{i} secret{i}\n", f"{i}\n") for i in range(4)], pid="shared-fds"
    )
    verdicts, result = both(engine1, p, code)
    assert verdicts["submission"] == [Verdict.AC] * 4
    assert runners(engine1) == 1


def test_the_slot_passes_tests_to_a_runner_and_each_result_stands(engine1):
    p = make_problem(engine1.store, AB[:3], pid="shared-slot")
    with engine1._slot() as slot:
        spec = RunSpec(
            kind="python",
            code="print(sum(map(int, input().split())))",
            time_limit_ms=1000,
            memory_limit_mb=128,
            wall_limit_ms=3000,
            output_limit_bytes=1 << 20,
            pids_max=16,
            open_files_max=64,
            in_zygote=True,
        )
        slot.open_zygote(spec)
        try:
            stands, outputs = [], []
            for t in p.tests:
                spec.stdin = engine1.test_path(t.input_sha256)
                result, stand = slot.run_shared(spec)
                stands.append(stand)
                outputs.append(result.stdout_path.read_text())
            started = slot.runners_started
        finally:
            slot.close_zygote()
    # (before, only a runner's first test stood: the others ran in a process that had run tests)
    assert stands == [True, True, True] and started == 1
    assert outputs == ["1\n", "3\n", "5\n"]


def test_isolation_must_be_known(engine1):
    p = make_problem(engine1.store, AB[:2], pid="shared-bad")
    with pytest.raises(ValueError, match="isolation"):
        engine1.judge(p, sub("print(1)", problem_id=p.id), isolation="thread")
