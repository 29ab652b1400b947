"""Each verdict produced by a real program, and hostile programs contained by the real sandbox."""

from __future__ import annotations

import os
import socket
import sys
import textwrap

import pytest

from services.judge.core.verdicts import Outcome, Verdict
from tests.support.problems import make_problem, sub


@pytest.fixture(scope="module")
def echo(store):
    """Three tests of growing size; the answer is the sum of the numbers."""
    tests = [(f"t{n}", f"{n}\n" + " ".join(["1"] * n) + "\n", f"{n}\n") for n in (1, 30, 3000)]
    return make_problem(store, tests, pid="sum", time_limit_ms=500, memory_limit_mb=64)


SUM = "import sys\nd=sys.stdin.read().split()\nprint(sum(map(int,d[1:])))\n"


def first(engine, problem, code, language="python", mode="first_failure"):
    return engine.judge(problem, sub(code, language, problem_id=problem.id), mode=mode)


@pytest.mark.parametrize(
    "name, code, verdict",
    [
        ("accepted", SUM, Verdict.AC),
        ("wrong answer", "print(-1)", Verdict.WA),
        ("cpu time limit", "while True: pass", Verdict.TLE),
        ("sleeping past the wall limit", "import time; time.sleep(60)", Verdict.TLE),
        ("memory limit", "x = bytearray(512 << 20)\nx[::4096] = b'1' * len(x[::4096])", Verdict.MLE),
        ("runtime error: exit code", "import sys; sys.exit(3)", Verdict.RE),
        ("runtime error: exception", "raise ValueError('boom')", Verdict.RE),
        ("runtime error: signal", "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)", Verdict.RE),
        ("output limit", "import sys\nwhile True: sys.stdout.write('x' * 65536)", Verdict.OLE),
        ("compile error", "def f(:\n  pass", Verdict.CE),
    ],
)
def test_each_verdict_from_a_real_python_program(engine, echo, name, code, verdict):
    result = first(engine, echo, code)
    assert result.status == "ok"
    assert result.tests[0].verdict == verdict, (name, result.tests[0])
    if verdict != Verdict.AC:
        assert result.first_failure.verdict == verdict
        assert all(t.verdict == Verdict.SKIPPED for t in result.tests[1:])


def test_limits_are_measured(engine, echo):
    result = first(
        engine,
        echo,
        "x = bytearray(40 << 20)\nx[::4096] = b'1' * len(x[::4096])\nimport sys\n"
        "d=sys.stdin.read().split()\nprint(sum(map(int,d[1:])))",
        mode="full",
    )
    assert [t.verdict for t in result.tests] == [Verdict.AC] * 3
    assert all(t.memory_kb >= 40 * 1024 for t in result.tests), [t.memory_kb for t in result.tests]
    tle = first(engine, echo, "while True: pass")
    assert tle.tests[0].cpu_ms >= 500


CPP_SUM = '#include <cstdio>\nint main(){long long n,s=0,x;scanf("%lld",&n);for(long long i=0;i<n;i++){scanf("%lld",&x);s+=x;}printf("%lld\\n",s);}'


@pytest.mark.parametrize(
    "name, code, verdict",
    [
        ("accepted", CPP_SUM, Verdict.AC),
        ("wrong answer", '#include <cstdio>\nint main(){puts("-1");}', Verdict.WA),
        ("time limit", "int main(){volatile unsigned long x=0; for(;;) x++;}", Verdict.TLE),
        (
            "memory limit",
            '#include <vector>\n#include <cstdio>\nint main(){std::vector<char> v(512<<20);for(size_t i=0;i<v.size();i+=4096)v[i]=i;printf("%d\\n",v[v.size()/3]);}',
            Verdict.MLE,
        ),
        ("segfault", "int main(){int*p=nullptr; return *p;}", Verdict.RE),
        ("compile error", "int main(){ return undefined_name; }", Verdict.CE),
    ],
)
def test_each_verdict_from_a_real_cpp_program(engine, echo, name, code, verdict):
    result = first(engine, echo, code, language="cpp")
    assert result.status == "ok"
    assert result.tests[0].verdict == verdict, (name, result.tests[0], result.compile_output)
    if verdict == Verdict.CE:
        assert "undefined_name" in result.compile_output


def test_cpp_is_compiled_once_per_source(engine, echo):
    code = CPP_SUM + "\n// compiled-once marker\n"
    first(engine, echo, code, language="cpp")
    binaries = set(os.listdir(engine.state_dir / "bin"))
    again = first(engine, echo, code, language="cpp")
    assert again.outcome == Outcome.CORRECT
    assert set(os.listdir(engine.state_dir / "bin")) == binaries


def test_optimization_failure_when_large_tests_time_out(engine, store):
    tests = [(f"t{n}", f"{n}\n", f"{n}\n") for n in (10, 10_000_000)]
    problem = make_problem(
        store,
        [(n, i.ljust(len(i) + int(i) // 100_000), o) for n, i, o in tests],
        pid="count",
        time_limit_ms=300,
    )
    code = "n=int(input())\ni=0\nwhile i<n: i+=1\nprint(n)"
    result = first(engine, problem, code)
    assert [t.verdict for t in result.tests] == [Verdict.AC, Verdict.TLE]
    assert result.outcome == Outcome.OPTIMIZATION_FAILURE
    assert result.rewards["R_2"] == 1 and result.rewards["R_inf"] == 0


# -- hostile programs ------------------------------------------------------------------------------
# (program, the verdicts it may get): each is contained, and the judge is healthy afterwards
BOMBS = {
    "fork bomb": (
        "import os\nwhile True:\n  try: os.fork()\n  except OSError: pass",
        {Verdict.TLE, Verdict.MLE},
    ),
    "memory bomb": ("x=[]\nwhile True: x.append(bytearray(1<<24))", {Verdict.MLE}),
    "1 GB of output": ("import sys\nb='y'*(1<<20)\nfor _ in range(1024): sys.stdout.write(b)", {Verdict.OLE}),
    "fd exhaustion": ("fs=[]\nwhile True: fs.append(open('/dev/null'))", {Verdict.RE}),
}


@pytest.mark.parametrize("name", sorted(BOMBS))
def test_bombs_are_contained(engine, echo, name):
    code, verdicts = BOMBS[name]
    result = first(engine, echo, code)
    assert result.status == "ok", result.message
    assert result.tests[0].verdict in verdicts, result.tests[0]
    again = first(engine, echo, SUM)
    assert again.outcome == Outcome.CORRECT, (name, again)


@pytest.fixture(scope="module")
def probe(store):
    return make_problem(store, [("a", "x\n", "ok\n")], pid="probe", time_limit_ms=2000, memory_limit_mb=128)


def run_probe(engine, probe, code):
    """Run `code`; it must print 'ok' for AC. Returns the result."""
    return engine.judge(probe, sub(textwrap.dedent(code), problem_id="probe"))


def test_no_network(engine, probe):
    r = run_probe(
        engine,
        probe,
        """
        import socket
        try:
            socket.create_connection(('127.0.0.1', 6379), timeout=1)
            print('reached redis')
        except OSError:
            print('ok')
    """,
    )
    assert r.outcome == Outcome.CORRECT, r


def test_only_own_processes_visible_and_no_judge_environment(engine, probe):
    r = run_probe(
        engine,
        probe,
        """
        import os
        pids = [p for p in os.listdir('/proc') if p.isdigit()]
        env = dict(os.environ)
        leaks = [k for k in env if k not in ('PATH', 'HOME', 'TMPDIR', 'LANG')]
        try:
            open('/proc/1/environ').read(); leaks.append('keeper environ')
        except OSError:
            pass
        print('ok' if pids == [str(os.getpid())] and not leaks else f'{pids} {leaks}')
    """,
    )
    assert r.outcome == Outcome.CORRECT, r.tests[0]


def test_runs_unprivileged_with_no_new_privs(engine, probe):
    r = run_probe(
        engine,
        probe,
        """
        import os
        status = open('/proc/self/status').read()
        nnp = [l for l in status.splitlines() if l.startswith('NoNewPrivs')][0].split()[1]
        print('ok' if os.getuid() != 0 and os.geteuid() != 0 and nnp == '1' else (os.getuid(), nnp))
    """,
    )
    assert r.outcome == Outcome.CORRECT, r.tests[0]


def test_a_daemon_does_not_outlive_its_test(engine, probe, store):
    r = run_probe(
        engine,
        probe,
        """
        import os, time
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                time.sleep(1000)
            os._exit(0)
        print('ok')
    """,
    )
    assert r.outcome == Outcome.CORRECT
    later = run_probe(
        engine,
        probe,
        """
        import os
        print('ok' if [p for p in os.listdir('/proc') if p.isdigit()] == [str(os.getpid())] else 'daemon alive')
    """,
    )
    assert later.outcome == Outcome.CORRECT, later.tests[0]
    # nothing is left in any slot's cgroup either
    for slot in engine._all:
        assert (slot.cgroup.procs_files[0]).read_text().split() == []


def test_no_file_survives_into_the_next_test(engine, probe):
    for _ in range(2 * engine.n_slots):  # every slot sees a leftover attempt
        run_probe(
            engine,
            probe,
            """
            import os
            open('leftover', 'w').write('x'); print('ok')
        """,
        )
    r = run_probe(
        engine,
        probe,
        """
        import os
        print('ok' if os.listdir('.') == [] else os.listdir('.'))
    """,
    )
    assert r.outcome == Outcome.CORRECT, r.tests[0]


def test_no_sysv_ipc_survives_into_the_next_test(engine, probe):
    for _ in range(2 * engine.n_slots):
        run_probe(
            engine,
            probe,
            """
            import ctypes
            libc = ctypes.CDLL(None)
            libc.shmget(0, 4096, 0o1000 | 0o666)
            print('ok')
        """,
        )
    r = run_probe(
        engine,
        probe,
        """
        lines = open('/proc/sysvipc/shm').read().splitlines()[1:]
        print('ok' if not lines else lines)
    """,
    )
    assert r.outcome == Outcome.CORRECT, r.tests[0]


def test_warm_interpreter_state_does_not_leak_between_tests(engine, probe):
    for _ in range(2 * engine.n_slots):
        run_probe(
            engine,
            probe,
            """
            import math, sys
            math.pi = 3
            sys.modules['json'].dumps = None
            print('ok')
        """,
        )
    r = run_probe(
        engine,
        probe,
        """
        import math, json
        print('ok' if math.pi > 3.1 and json.dumps(1) == '1' else 'leaked')
    """,
    )
    assert r.outcome == Outcome.CORRECT, r.tests[0]


def test_a_test_cannot_signal_or_see_the_keeper(engine, probe):
    r = run_probe(
        engine,
        probe,
        """
        import os, signal
        hits = []
        for pid in range(1, 200):
            if pid == os.getpid():
                continue
            try:
                os.kill(pid, 0); hits.append(pid)
            except ProcessLookupError:
                pass
            except PermissionError:
                hits.append(pid)
        print('ok' if hits in ([], [1]) else hits)
        try:
            os.kill(1, signal.SIGKILL); print('killed keeper')
        except PermissionError:
            pass
    """,
    )
    assert r.outcome == Outcome.CORRECT, r.tests[0]
    assert run_probe(engine, probe, "print('ok')").outcome == Outcome.CORRECT


def test_host_redis_is_still_reachable_from_the_judge():
    # sanity for the network tests above: the port is really open on the host
    with socket.create_connection(("127.0.0.1", 6379), timeout=2):
        pass


# each probe prints 'ok' only when every attempt of the attack failed
PROBES = {
    "write outside the temp dir": """
        bad = []
        for p in ['/etc/pwned', '/usr/pwned', '/pwned', '/data/pwned', '/io/pwned', '/tmp/pwned', '/dev/pwned']:
            try:
                open(p, 'w').write('x'); bad.append(p)
            except OSError:
                pass
        print('ok' if not bad else bad)
    """,
    "read other tests' data": """
        import os
        bad = []
        for p in ['/data', '/io', '/bincache']:
            try:
                bad.append((p, os.listdir(p)))
            except OSError:
                pass
        print('ok' if not bad else bad)
    """,
    "kill the parent": """
        import os, signal
        bad = []
        for pid in {os.getppid(), 1}:
            try:
                os.kill(pid, signal.SIGKILL); bad.append(pid)
            except OSError:
                pass
        print('ok' if not bad else bad)
    """,
    "setuid": """
        import os
        try:
            os.setuid(0); print('became root')
        except OSError:
            print('ok')
    """,
    "ptrace the keeper": """
        import ctypes
        libc = ctypes.CDLL(None)
        print('ok' if libc.ptrace(16, 1, 0, 0) != 0 else 'attached to the keeper')
    """,
    "fd limit holds": """
        fs = []
        try:
            while True: fs.append(open('/dev/null'))
        except OSError:
            pass
        print('ok' if len(fs) < 1024 else len(fs))
    """,
}


@pytest.mark.parametrize("name", sorted(PROBES))
def test_attacks_fail(engine, probe, name):
    r = run_probe(engine, probe, PROBES[name])
    assert r.outcome == Outcome.CORRECT, (name, r.tests[0])
    assert run_probe(engine, probe, "print('ok')").outcome == Outcome.CORRECT


def test_a_slot_whose_keeper_cannot_start_leaks_no_descriptor(tmp_path, monkeypatch):
    """The keeper's program cannot be executed (its interpreter is missing): start fails, and every
    pipe end and memory file it made is closed again."""
    from services.judge.core.sandbox.slot import Slot

    monkeypatch.setattr(sys, "executable", str(tmp_path / "no-such-python"))
    slot = Slot(0, tmp_path / "state", None)
    before = sorted(os.listdir("/proc/self/fd"))
    with pytest.raises(FileNotFoundError):
        slot.start()
    assert sorted(os.listdir("/proc/self/fd")) == before
    assert slot.proc is None and not slot.alive
