"""The per-submission zygote (Slot.open_zygote): a submission's tests fork from a copy of the warm
interpreter that holds its request, and none of them can use it to reach another test.

Every case is a hostile program judged on problems of several tests (the path that uses a zygote),
on one slot, after the runs it attacks; it fails a test (exit 1: a runtime error) when the attack
works, so an all-accepted result means it did not.
"""

from __future__ import annotations

import hashlib
import textwrap

import pytest

from services.judge.core.engine import Engine
from services.judge.core.verdicts import Verdict
from services.settings import Settings
from tests.support.problems import make_problem, sub, token


@pytest.fixture(scope="module")
def engine1(tmp_path_factory):
    eng = Engine(Settings(state_dir=tmp_path_factory.mktemp("zygote"), slots=1))
    yield eng
    eng.close()


def verdicts(result) -> list[Verdict]:
    assert result.status == "ok", result.message
    return [t.verdict for t in result.tests]


def test_a_test_finds_no_other_tests_data_name_and_no_earlier_submission_in_its_memory(engine1):
    store = engine1.store
    earlier = token()
    tests = [(f"t{i}", f"{i} {token()}\n", f"{i}\n") for i in range(4)]
    p1 = make_problem(store, tests, pid="zyg-earlier")
    code = f"# {earlier}\nprint(input().split()[0])\n" + "".join(f"# {earlier} {i}\n" for i in range(64))
    assert verdicts(engine1.judge(p1, sub(code, problem_id="zyg-earlier"), mode="full")) == [Verdict.AC] * 4
    # scans every writable mapping of its own process (a fork of the zygote) for the earlier
    # submission's secret and for the name of any test's data but its own input's
    scan = textwrap.dedent(
        r"""
        import ctypes, hashlib, re, sys
        data = sys.stdin.buffer.read()
        own = hashlib.sha256(data).hexdigest()
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
        found.discard(own)
        found -= set(data.decode().split())
        if found:
            sys.exit("found " + " ".join(sorted(found)))
        print(data.split()[0].decode())
        """
    )
    p2 = make_problem(store, [(f"u{i}", f"{i} {token()}\n", f"{i}\n") for i in range(4)], pid="zyg-scan")
    result = engine1.judge(p2, sub(scan, problem_id="zyg-scan"), mode="full")
    assert verdicts(result) == [Verdict.AC] * 4, [t.message for t in result.tests]
    digests = {t.input_sha256 for t in p1.tests + p2.tests}
    assert all(hashlib.sha256(b"x").hexdigest() not in d for d in digests)  # the scan pattern is sane


def test_nothing_a_test_leaves_reaches_the_next_test_of_the_same_submission(engine1):
    # test "plant": a file in the work dir and in /tmp, a SysV segment, a daemon (double fork, own
    # session); every later test fails if it finds any of them
    code = textwrap.dedent(
        r"""
        import ctypes, os, sys, time
        what = input().strip()
        libc = ctypes.CDLL(None, use_errno=True)
        if what == "plant":
            open("left.txt", "w").write("x")
            open("/tmp/left.txt", "w").write("x") if os.access("/tmp", os.W_OK) else None
            assert libc.shmget(0x5EED, 4096, 0o1666) >= 0
            if os.fork() == 0:
                os.setsid()
                if os.fork() == 0:
                    time.sleep(30)
                os._exit(0)
            os.wait()
        else:
            found = []
            if os.path.exists("left.txt") or os.path.exists("/tmp/left.txt"):
                found.append("file")
            if libc.shmget(0x5EED, 0, 0) >= 0:
                found.append("shm")
            others = [p for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()]
            if others:
                found.append("processes " + " ".join(others))
            if found:
                sys.exit("left over: " + ", ".join(found))
        print("ok")
        """
    )
    tests = [
        ("a", "plant\n", "ok\n"),
        ("b", "check\n", "ok\n"),
        ("c", "plant\n", "ok\n"),
        ("d", "check\n", "ok\n"),
    ]
    p = make_problem(engine1.store, tests, pid="zyg-carry")
    result = engine1.judge(p, sub(code, problem_id="zyg-carry"), mode="full")
    assert verdicts(result) == [Verdict.AC] * 4, [t.message for t in result.tests]


def test_a_test_cannot_signal_its_zygote_and_later_tests_run_as_usual(engine1):
    code = textwrap.dedent(
        r"""
        import os, signal, sys
        n = int(input())
        for pid in {os.getppid(), 1}:
            try:
                os.kill(pid, signal.SIGKILL)
                sys.exit(f"signalled {pid}")
            except PermissionError:
                pass
        print(n)
        """
    )
    p = make_problem(engine1.store, [(f"k{i}", f"{i}\n", f"{i}\n") for i in range(3)], pid="zyg-kill")
    result = engine1.judge(p, sub(code, problem_id="zyg-kill"), mode="full")
    assert verdicts(result) == [Verdict.AC] * 3, [t.message for t in result.tests]


def test_each_test_of_a_submission_is_accounted_afresh(engine1):
    # the first test burns CPU and memory; the next ones do nothing: their own figures stay small
    code = textwrap.dedent(
        r"""
        import time
        n = int(input())
        if n == 0:
            block = bytearray(200 << 20)
            t = time.process_time()
            while time.process_time() - t < 0.3:
                pass
        print(n)
        """
    )
    p = make_problem(
        engine1.store,
        [(f"c{i}", f"{i}\n", f"{i}\n") for i in range(3)],
        pid="zyg-acct",
        time_limit_ms=2000,
        memory_limit_mb=512,
    )
    result = engine1.judge(p, sub(code, problem_id="zyg-acct"), mode="full")
    assert verdicts(result) == [Verdict.AC] * 3
    first, *rest = result.tests
    assert first.cpu_ms >= 250 and first.memory_kb >= 200 << 10
    assert all(t.cpu_ms < 150 and t.memory_kb < 100 << 10 for t in rest), rest


def test_a_syntax_error_in_a_many_test_submission_is_a_compile_error_with_its_message(engine1):
    p = make_problem(engine1.store, [(f"e{i}", "1\n", "1\n") for i in range(3)], pid="zyg-ce")
    result = engine1.judge(p, sub("print(input()\n", problem_id="zyg-ce"), mode="full")
    assert verdicts(result) == [Verdict.CE] * 3
    assert "SyntaxError" in (result.compile_output or "")


def test_a_time_limit_in_the_middle_leaves_the_zygote_serving_the_rest(engine1):
    code = "n = int(input())\nwhile n == 1:\n    pass\nprint(n)\n"
    p = make_problem(
        engine1.store, [(f"w{i}", f"{i}\n", f"{i}\n") for i in range(4)], pid="zyg-tle", time_limit_ms=300
    )
    result = engine1.judge(p, sub(code, problem_id="zyg-tle"), mode="full")
    assert verdicts(result) == [Verdict.AC, Verdict.TLE, Verdict.AC, Verdict.AC]


def test_zygotes_and_fork_from_the_keeper_give_the_same_results(engine1):
    tests = [(f"s{i}", f"{i}\n", f"{i * 2}\n") for i in range(5)]
    p = make_problem(engine1.store, tests, pid="zyg-same")
    code = "n = int(input())\nassert n != 3\nprint(n * 2 if n != 2 else n)\n"
    got = {}
    for zygotes in (True, False):
        engine1.zygotes = zygotes
        try:
            got[zygotes] = verdicts(engine1.judge(p, sub(code, problem_id="zyg-same"), mode="full"))
        finally:
            engine1.zygotes = True
    assert got[True] == got[False] == [Verdict.AC, Verdict.AC, Verdict.WA, Verdict.RE, Verdict.AC]


def test_what_a_test_leaves_in_its_working_directory_counts_in_no_later_test(engine1):
    # the zygote removes a test's working directory before it answers, and a later test's counters
    # are reset only after the answer: the 40 MB of tmpfs the first test leaves behind are charged
    # memory until the directory is gone
    code = textwrap.dedent(
        r"""
        n = int(input())
        if n == 0:
            with open("left.bin", "wb") as f:
                f.write(b"x" * (40 << 20))
        print(n)
        """
    )
    p = make_problem(
        engine1.store,
        [(f"w{i}", f"{i}\n", f"{i}\n") for i in range(3)],
        pid="zyg-left",
        memory_limit_mb=256,
    )
    result = engine1.judge(p, sub(code, problem_id="zyg-left"), mode="full")
    assert verdicts(result) == [Verdict.AC] * 3, [t.message for t in result.tests]
    first, *rest = result.tests
    assert first.memory_kb >= 40 << 10
    assert all(t.memory_kb < 30 << 10 for t in rest), [t.memory_kb for t in rest]
