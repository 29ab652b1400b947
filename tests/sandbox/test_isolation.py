"""Isolation between runs (issue 17): what one test or submission leaves behind, no later one can use.

Each case is built like the attack it closes: a hostile program that, when it escapes, gets AC on
data it could not compute (or makes an honest program fail), judged on one slot after the runs it
attacks, as a long-lived worker judges them. The tests assert the attack fails.
"""

from __future__ import annotations

import hashlib
import textwrap

import pytest

from services.judge.core.engine import Engine
from services.judge.core.verdicts import Verdict
from services.settings import Settings
from tests.support import ROOT
from tests.support.problems import make_problem, sub, token

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


def put_then_get(secret: str) -> list[tuple[str, str, str]]:
    """Test 'put' hands the program a secret; test 'get' (larger, so it runs later) asks for it back."""
    return [("put", f"put {secret}\n", "stored\n"), ("get", "get " + "." * 64 + "\n", secret + "\n")]


def judge_full(engine, problem, code):
    return engine.judge(problem, sub(textwrap.dedent(code), problem_id=problem.id), mode="full")


# -- 1. kernel keyrings -----------------------------------------------------------------------------
KEYRING = """
    import ctypes, platform, sys
    libc = ctypes.CDLL(None, use_errno=True)
    ADD_KEY, KEYCTL = {"x86_64": (248, 250), "aarch64": (217, 219)}[platform.machine()]
    USER_KEYRING = ctypes.c_long(-4)
    cmd = sys.stdin.read().split()
    if cmd[0] == "put":
        data = cmd[1].encode()
        key = libc.syscall(ADD_KEY, b"user", b"frontier-secret", data, len(data), USER_KEYRING)
        if key > 0:  # readable by every uid, and listed in everyone's /proc/keys
            libc.syscall(KEYCTL, 5, key, ctypes.c_ulong(0x3F3F3F3F))
        print("stored")
    else:
        keys = [libc.syscall(KEYCTL, 10, USER_KEYRING, b"user", b"frontier-secret", 0)]
        try:
            keys += [int(l.split()[0], 16) for l in open("/proc/keys") if "frontier-secret" in l]
        except OSError:
            pass
        buf = ctypes.create_string_buffer(256)
        found = []
        for key in keys:
            n = libc.syscall(KEYCTL, 11, key, buf, 256) if key > 0 else -1
            if n > 0:
                found.append(buf.raw[:n].decode())
        print("\\n".join(found) or "nothing")
"""


def test_kernel_keyrings_carry_nothing_between_tests_slots_or_judges(engine1, tmp_path):
    secret = token()
    p = make_problem(engine1.store, put_then_get(secret), pid="keyring")
    r = judge_full(engine1, p, KEYRING)
    assert [t.verdict for t in r.tests] == [Verdict.AC, Verdict.WA], r.tests
    # the next submission of the slot, and another judge (other slots, other uids) find nothing
    getter = KEYRING.replace("cmd = sys.stdin.read().split()", 'cmd = ["get"]')
    assert judge_full(engine1, p, getter).tests[1].verdict == Verdict.WA
    with Engine(Settings(state_dir=tmp_path, slots=1)) as other:
        q = make_problem(other.store, put_then_get(secret), pid="keyring")
        assert judge_full(other, q, getter).tests[1].verdict == Verdict.WA


# -- 2. POSIX message queues ------------------------------------------------------------------------
MQUEUE = """
    import ctypes, os, sys
    libc = ctypes.CDLL(None, use_errno=True)
    cmd = sys.stdin.read().split()
    if cmd[0] == "put":
        q = libc.mq_open(b"/frontier", os.O_CREAT | os.O_RDWR, 0o666, None)
        if q >= 0:
            for _ in range(2):  # one for the next test, one for the next submission
                libc.mq_send(q, cmd[1].encode(), len(cmd[1]), 0)
        print("stored")
    else:
        q = libc.mq_open(b"/frontier", os.O_RDWR | os.O_NONBLOCK)
        buf = ctypes.create_string_buffer(1 << 16)
        n = libc.mq_receive(q, buf, len(buf), None) if q >= 0 else -1
        print(buf.raw[:n].decode() if n > 0 else "nothing")
"""


def test_posix_message_queues_carry_nothing_between_tests_or_submissions(engine1):
    secret = token()
    p = make_problem(engine1.store, put_then_get(secret), pid="mqueue")
    r = judge_full(engine1, p, MQUEUE)
    assert [t.verdict for t in r.tests] == [Verdict.AC, Verdict.WA], r.tests
    getter = MQUEUE.replace("cmd = sys.stdin.read().split()", 'cmd = ["get"]')
    assert judge_full(engine1, p, getter).tests[1].verdict == Verdict.WA


# the filter denies with EPERM (ENOSYS for clone3), so a program sees an ordinary failure, never a kill
DENIED_CALLS = """
    import ctypes, errno, os, platform
    libc = ctypes.CDLL(None, use_errno=True)
    nr = {"x86_64": {"add_key": 248, "keyctl": 250, "unshare": 272, "clone3": 435, "bpf": 321},
          "aarch64": {"add_key": 217, "keyctl": 219, "unshare": 97, "clone3": 435, "bpf": 280}}[platform.machine()]
    got = {}
    for name, args in [("add_key", (b"user", b"k", b"v", 1, ctypes.c_long(-4))), ("keyctl", (0, ctypes.c_long(-4))),
                       ("unshare", (0x10000000,)), ("clone3", (None, 0)), ("bpf", (0, None, 0))]:
        ctypes.set_errno(0)
        got[name] = (libc.syscall(nr[name], *args), ctypes.get_errno())
    want = {n: (-1, errno.ENOSYS if n == "clone3" else errno.EPERM) for n in got}
    import threading
    t = threading.Thread(target=lambda: None); t.start(); t.join()  # threads still start (clone fallback)
    if os.fork() == 0:
        os._exit(0)
    os.wait()
    print("ok" if got == want else got)
"""


def test_denied_system_calls_fail_with_an_error_and_threads_and_fork_still_work(engine1):
    p = make_problem(engine1.store, [("a", "x\n", "ok\n")], pid="denied")
    r = judge_full(engine1, p, DENIED_CALLS)
    assert r.tests[0].verdict == Verdict.AC, r.tests[0]


# -- 5. a tree too deep to wipe recursively -------------------------------------------------------
DEEP_TREE = """
    import os
    print("wrong")
    for _ in range(3000):
        os.mkdir("d" * 200)
        os.chdir("d" * 200)
    open("leftover", "w").write("x")
"""


def test_a_deep_directory_tree_cannot_turn_a_wrong_answer_into_a_judge_error(engine1):
    p = make_problem(engine1.store, [("a", "1\n", "1\n")], pid="deep")
    r = judge_full(engine1, p, DEEP_TREE)
    assert r.status == "ok", r.message
    assert r.tests[0].verdict == Verdict.WA
    # and the slot is clean and healthy afterwards
    r = judge_full(engine1, p, "import os\nprint(1 if os.listdir('.') == [] else os.listdir('.'))")
    assert r.tests[0].verdict == Verdict.AC, r.tests[0]


# -- 4. uids shared across judge processes --------------------------------------------------------
def test_uid_pairs_are_leased_host_wide_across_processes(tmp_path):
    import subprocess
    import sys

    from services.judge.core.sandbox.uids import NoFreeUids, UidLease

    lock = tmp_path / "uids.lock"
    held = [UidLease(lock, pairs=4) for _ in range(3)]
    assert len({h.index for h in held}) == 3
    other = (
        "import sys\nfrom pathlib import Path\nfrom services.judge.core.sandbox.uids import UidLease\n"
        "print(UidLease(Path(sys.argv[1]), pairs=4).index)"
    )
    run = subprocess.run([sys.executable, "-c", other, str(lock)], capture_output=True, text=True, check=True)
    assert int(run.stdout) == ({0, 1, 2, 3} - {h.index for h in held}).pop()
    held.append(UidLease(lock, pairs=4))
    with pytest.raises(NoFreeUids):
        UidLease(lock, pairs=4)
    held.pop().release()  # a released pair is free again
    assert UidLease(lock, pairs=4).index not in {h.index for h in held}


# holds as many processes as its uid may have, for longer than the other judge needs
HOG = """
import os, time
for _ in range(60):
    try:
        if os.fork() == 0:
            time.sleep(25)
            os._exit(0)
    except OSError:
        break
time.sleep(25)
print(1)
"""
# fails unless it can start 16 processes of its own at once
FORKER = """
import os
r, w = os.pipe()
kids = []
try:
    for _ in range(16):
        pid = os.fork()
        if pid == 0:
            os.close(w)
            os.read(r, 1)
            os._exit(0)
        kids.append(pid)
    print("ok")
except OSError as err:
    print("fork failed:", err)
os.close(w)
for pid in kids:
    os.waitpid(pid, 0)
"""
HELPER = """
import sys
from pathlib import Path
import services.judge.core.sandbox.uids as uids
uids.UID_PAIRS = 2
from services.judge.core.engine import Engine
from services.settings import Settings
from tests.support.problems import make_problem, sub
with Engine(Settings(state_dir=Path(sys.argv[1]), slots=1)) as eng:
    eng.warm_up()
    print(eng._all[0].uid_run, flush=True)
    p = make_problem(eng.store, [("a", "1\\n", "1\\n")], pid="hog", time_limit_ms=10000)
    print(eng.judge(p, sub(sys.argv[2], problem_id="hog")).status, flush=True)
"""


def _processes_of(uid: int) -> list[int]:
    import os

    pids = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/status") as f:
                if any(line.split()[1] == str(uid) for line in f if line.startswith("Uid:")):
                    pids.append(int(pid))
        except OSError:
            pass
    return pids


def test_two_judge_processes_never_run_programs_as_one_uid(tmp_path, monkeypatch):
    """With only two uid pairs to choose from, a second judge process takes the other one."""
    import os
    import signal
    import subprocess
    import sys
    import time

    import services.judge.core.sandbox.uids as uids

    monkeypatch.setattr(uids, "UID_PAIRS", 2)
    with Engine(Settings(state_dir=tmp_path / "a", slots=1)) as mine:
        mine.warm_up()
        helper = subprocess.Popen(
            [sys.executable, "-c", HELPER, str(tmp_path / "b"), HOG],
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        hog_uid = None
        try:
            line = helper.stdout.readline()
            assert line.strip().isdigit(), f"the other judge did not start: {line!r}"
            hog_uid = int(line)
            deadline = time.monotonic() + 60
            while len(_processes_of(hog_uid)) < 50:  # the hog has its processes
                assert time.monotonic() < deadline and helper.poll() is None, "the hog never started"
                time.sleep(0.05)
            p = make_problem(mine.store, [("a", "1\n", "ok\n")], pid="forker")
            r = mine.judge(p, sub(FORKER, problem_id="forker"))
            assert r.tests[0].verdict == Verdict.AC, r.tests[0]
            assert hog_uid not in (mine._all[0].uid_run, mine._all[0].uid_check)
        finally:
            for pid in _processes_of(hog_uid) if hog_uid else []:  # end the hog now, not after its sleep
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            assert helper.wait(60) == 0


# -- 8. the host-side checkers ----------------------------------------------------------------------
def _reference_exact(expected: bytes, actual: bytes) -> bool:
    def lines(data):
        out = [line.rstrip() for line in data.split(b"\n")]
        while out and not out[-1]:
            out.pop()
        return out

    return lines(expected) == lines(actual)


def test_streaming_checkers_agree_with_the_rules_at_every_chunk_boundary():
    import random

    from services.judge.core import checkers

    rng = random.Random(17)
    alphabet = [b"a", b"b", b"1", b"0.5", b" ", b"  ", b"\t", b"\r", b"\n", b"\n\n", b"\x0b"]
    cases = [(b"", b""), (b"", b"\n \n"), (b"a", b"a" + b" " * 50), (b"a b", b"a" + b" " * 50 + b"b")]
    for _ in range(400):
        exp = b"".join(rng.choice(alphabet) for _ in range(rng.randrange(8)))
        act = exp if rng.random() < 0.5 else b"".join(rng.choice(alphabet) for _ in range(rng.randrange(8)))
        if rng.random() < 0.5:  # the same answer with whitespace changed where the rules allow it
            act = act.replace(b"\n", rng.choice([b" \n", b"\t\n", b"\n"])) + rng.choice(
                [b"", b"\n\n", b" \n "]
            )
        cases.append((exp, act))
    for exp, act in cases:
        for chunk in (1, 2, 3, 7, 1 << 16):
            assert checkers.exact(exp, act, chunk_bytes=chunk) == _reference_exact(exp, act), (
                exp,
                act,
                chunk,
            )
            assert checkers.tokens(exp, act, chunk_bytes=chunk) == (exp.split() == act.split()), (exp, act)
            assert checkers.float_tokens(exp, act, chunk_bytes=chunk) == checkers.float_tokens(exp, act), (
                exp,
                act,
            )


# the right answer, then tens of megabytes that the checker has to read past (under the output limit)
FLOOD = {
    "exact": (
        'import os\nos.write(1, b"1\\n")\nfor _ in range(60):\n    os.write(1, b"\\n" * (1 << 20))',
        Verdict.AC,
    ),
    "tokens": (
        'import os\nos.write(1, b"1\\n")\nfor _ in range(60):\n    os.write(1, b"0 " * (1 << 19))',
        Verdict.WA,
    ),
    "float": (
        'import os\nos.write(1, b"1\\n")\nfor _ in range(60):\n    os.write(1, b"0 " * (1 << 19))',
        Verdict.WA,
    ),
    "json": (
        'import os\nos.write(1, b"1")\nfor _ in range(60):\n    os.write(1, b" " * (1 << 20))',
        Verdict.WA,
    ),
}


@pytest.mark.parametrize("checker", sorted(FLOOD))
def test_a_flood_of_output_costs_the_judge_process_no_memory(engine1, checker):
    import tracemalloc

    code, verdict = FLOOD[checker]
    spec = {"checker": {"type": checker}} if checker in ("tokens", "float") else {}
    p = make_problem(engine1.store, [("a", "x\n", "1\n")], pid=f"flood-{checker}", **spec)
    if checker == "json":  # a functional problem's answer is compared as a JSON value
        p = make_problem(engine1.store, [("a", "1\n", "1\n")], pid="flood-json", function="f")
        code = (
            "class Solution:\n    def f(self, *a):\n        "
            + code.replace("\n", "\n        ")
            + "\n        os._exit(0)"
        )
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        r = engine1.judge(p, sub(code, problem_id=p.id))
        peak_bytes = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert r.status == "ok", r.message
    assert r.tests[0].verdict == verdict, r.tests[0]
    assert peak_bytes < 24 << 20, f"the judge process held {peak_bytes >> 20} MB while checking"


# -- 6. the previous run's output in the next run's peak ------------------------------------------
STALE = """
import os
if input().strip(".") == "big":
    for _ in range(60):
        os.write(1, b"x" * (1 << 20))
else:
    print(2)
"""


@pytest.mark.parametrize("checker", ["exact", "program"])
def test_a_large_output_does_not_count_in_the_next_tests_memory(engine1, checker):
    spec = {"checker": {"type": "program", "source": SUPERSET_CHECKER}} if checker == "program" else {}
    p = make_problem(
        engine1.store,
        [("big", "big\n", "1\n"), ("small", "small" + "." * 8 + "\n", "2\n")],
        pid=f"stale-{checker}",
        memory_limit_mb=256,
        checker_source=SUPERSET_CHECKER if checker == "program" else None,
        **spec,
    )
    r = engine1.judge(p, sub(STALE, problem_id=p.id), mode="full")
    assert [t.verdict for t in r.tests] == [Verdict.WA, Verdict.AC], r.tests
    assert r.tests[0].memory_kb > 60 << 10  # the written output does count in its own run
    assert r.tests[1].memory_kb < 20 << 10, r.tests[1]
    # nor in the next submission's first test
    again = engine1.judge(p, sub("print(2)", problem_id=p.id), mode="full")
    assert all(t.memory_kb < 20 << 10 for t in again.tests), again.tests


# -- 7. socket buffers ------------------------------------------------------------------------------
# parks data in loopback TCP connections (send and receive buffers, never read), then reads it back:
# says "ok" only when it held more than twice its memory limit that way
SOCKET_PARKING = """
import socket
limit_mb = 64
server = socket.socket()
server.bind(("127.0.0.1", 0))
server.listen(128)
pairs, parked = [], 0
block = b"z" * (1 << 16)
while parked < 2 * limit_mb << 20 and len(pairs) < 100:
    a = socket.socket()
    for opt in (socket.SO_SNDBUF, socket.SO_RCVBUF):
        a.setsockopt(socket.SOL_SOCKET, opt, 4 << 20)
    a.connect(server.getsockname())
    b, _ = server.accept()
    b.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    a.setblocking(False)
    sent = 0
    try:
        while True:
            sent += a.send(block)
    except OSError:
        pass
    if sent == 0:
        break
    pairs.append((a, b, sent))
    parked += sent
intact = 0
for a, b, sent in pairs:
    got = 0
    b.settimeout(5)
    while got < sent:
        chunk = b.recv(1 << 20)
        if not chunk or chunk.strip(b"z"):
            break
        got += len(chunk)
    intact += got
print("ok" if intact > 2 * limit_mb << 20 else f"parked {intact >> 20} MB")
"""


def test_socket_buffers_count_against_the_memory_limit(engine1):
    p = make_problem(
        engine1.store, [("a", "x\n", "ok\n")], pid="sockets", memory_limit_mb=64, time_limit_ms=5000
    )
    r = engine1.judge(p, sub(SOCKET_PARKING, problem_id=p.id))
    assert r.status == "ok", r.message
    assert r.tests[0].verdict != Verdict.AC, r.tests[0]


# -- 9. the compiled-binary cache -------------------------------------------------------------------
# a 12 MB initialized array: a 12 MB binary; `n` makes each source distinct
BIG_BINARY = '#include <cstdio>\nchar a[12 << 20] = {%d};\nint main(){ a[5] = 2; printf("%%d\\n", a[0] + a[5] + a[(12 << 20) - 1]); }\n'


def _cache_bytes(engine) -> int:
    return sum(f.stat().st_blocks * 512 for f in (engine.state_dir / "bin").iterdir() if f.is_file())


def _cached(engine) -> set[str]:
    return {f.name for f in (engine.state_dir / "bin").iterdir() if f.is_file()}


def _digest(code: str) -> str:
    from services.judge.core.runners import RUNNERS

    return RUNNERS["cpp"].cache_key(RUNNERS["cpp"].compiler, "main.cpp", code)


def test_the_binary_cache_keeps_to_its_size_least_recently_used_out(tmp_path):
    with Engine(Settings(state_dir=tmp_path, slots=1, bin_cache_mb=30)) as eng:
        p = make_problem(eng.store, [("a", "1\n", "3\n")], pid="bigbin")
        for n in (1, 2, 3, 4):  # four distinct 12 MB binaries: never more than 30 MB kept
            r = eng.judge(p, sub(BIG_BINARY % n, "cpp", problem_id="bigbin"))
            assert r.tests[0].verdict == (Verdict.AC if n == 1 else Verdict.WA), (
                n,
                r.tests[0],
                r.compile_output,
            )
            assert _cache_bytes(eng) <= 30 << 20, _cache_bytes(eng) >> 20
            if n == 2:  # used again: now the most recently used of the two
                assert (
                    eng.judge(p, sub(BIG_BINARY % 1, "cpp", problem_id="bigbin")).tests[0].verdict
                    == Verdict.AC
                )
            if n == 3:  # the one used least recently went first
                assert _cached(eng) == {_digest(BIG_BINARY % 1), _digest(BIG_BINARY % 3)}
        assert _cached(eng) == {_digest(BIG_BINARY % 3), _digest(BIG_BINARY % 4)}
        # an evicted program is compiled again and judged as before
        assert eng.judge(p, sub(BIG_BINARY % 1, "cpp", problem_id="bigbin")).tests[0].verdict == Verdict.AC


# the old key joined the compiler's argv, the flags and the source with NUL: flags ("-DV=7",) with
# PRINT_V and no flags with "-DV=7\0" + PRINT_V were one key, so the second ran the first's binary
PRINT_V = '#include <cstdio>\nint main(){ printf("%d\\n", V); }\n'


def _run_once(eng, code, flags):
    run = eng.run(
        "cpp",
        code,
        time_limit_ms=2000,
        wall_limit_ms=5000,
        memory_limit_mb=64,
        output_limit_bytes=1 << 16,
        compiler_flags=flags,
    )
    return run.compile_error, (run.stdout if run.result is not None else None)


@pytest.mark.parametrize("flags_first", [True, False])
def test_a_source_that_holds_the_flags_separator_gets_its_own_binary(tmp_path, flags_first):
    from services.judge.core.runners import RUNNERS

    runner = RUNNERS["cpp"]
    forged = "-DV=7\0" + PRINT_V  # not C++: its own compile fails
    assert runner.cache_key((*runner.compiler, "-DV=7"), "main.cpp", PRINT_V) != runner.cache_key(
        runner.compiler, "main.cpp", forged
    )
    with Engine(Settings(state_dir=tmp_path, slots=1)) as eng:
        order = [(PRINT_V, ["-DV=7"]), (forged, [])]
        results = {
            code: _run_once(eng, code, flags) for code, flags in (order if flags_first else order[::-1])
        }
    assert results[PRINT_V] == (None, b"7\n"), results[PRINT_V]
    error, stdout = results[forged]
    assert error and stdout is None, results[forged]


def test_a_binary_in_use_survives_its_eviction(tmp_path):
    from services.judge.core.runners import RUNNERS, evict
    from services.judge.core.sandbox.slot import RunSpec

    with Engine(Settings(state_dir=tmp_path, slots=1)) as eng:
        eng.warm_up()
        (slot,) = eng._all
        prepared = RUNNERS["cpp"].prepare(slot, BIG_BINARY % 1, eng.settings)
        evict(eng.state_dir / "bin", 0)  # another judge empties the cache mid-submission
        assert _cache_bytes(eng) == 0
        spec = RunSpec(
            kind="exec",
            argv=list(prepared.argv),
            time_limit_ms=2000,
            memory_limit_mb=64,
            wall_limit_ms=5000,
            output_limit_bytes=1 << 20,
            pids_max=8,
            open_files_max=16,
        )
        result = slot.run(spec)
        assert result.exit_code == 0 and result.stdout_path.read_text() == "3\n"


def test_a_program_holds_no_descriptor_but_its_three(engine1):
    code = "import os\nfds = sorted(int(f) for f in os.listdir('/proc/self/fd'))\nprint('ok' if fds[:3] == [0, 1, 2] and len(fds) == 4 else fds)"
    p = make_problem(engine1.store, [("a", "x\n", "ok\n")], pid="fds")
    r = judge_full(engine1, p, code)
    assert r.tests[0].verdict == Verdict.AC, r.tests[0]  # the fourth is listdir's own
