"""Issue 28 item 4, memory: sandboxed processes are the host's OOM killer's first choice, a program the
OOM killer takes above its own limit is MLE with that reason (never RE), and a worker admits sessions
and runs only while their granted memory fits its share of the host's RAM."""

from __future__ import annotations

import contextlib
import tempfile
from pathlib import Path

from services.judge.engine import Engine
from services.judge.sandbox.cgroups import CgroupHost, CgroupV1, _write, detect
from services.judge.sandbox.seccomp import filter_bpf
from services.judge.sandbox.session import SessionSandbox
from services.settings import Settings
from tests.conftest import make_problem, sub


@contextlib.contextmanager
def tight_parent(limit_mb: int, name: str):
    """A cgroup parent with a memory limit below its children's: an OOM there is, to a child, what the
    host's OOM killer is (a kill its own limit did not cause), without starving the real host."""
    host = detect()
    if host.version == 1:
        bases = {c: b / name for c, b in host.bases.items()}
        for b in bases.values():
            b.mkdir(exist_ok=True)
        _write(bases["memory"] / "memory.limit_in_bytes", str(limit_mb << 20))
    else:
        bases = {"unified": host.bases["unified"] / name}
        bases["unified"].mkdir(exist_ok=True)
        _write(bases["unified"] / "memory.max", str(limit_mb << 20))
        _write(bases["unified"] / "cgroup.subtree_control", "+memory +pids")
    try:
        yield CgroupHost(host.version, bases)
    finally:
        for b in bases.values():
            for child in b.glob("slot-*"):
                with contextlib.suppress(OSError):
                    child.rmdir()
            with contextlib.suppress(OSError):
                b.rmdir()


def test_judged_programs_carry_oom_score_adj_1000(engine, store):
    p = make_problem(store, [("a", "", "1000\n")], pid="oomadj")
    code = "print(open('/proc/self/oom_score_adj').read().strip())"
    assert engine.judge(p, sub(code, problem_id="oomadj")).outcome == "correct"


def test_session_processes_carry_oom_score_adj_1000(tmp_path):
    box = SessionSandbox(
        "bash",
        state_dir=tmp_path,
        cgroup_host=detect(),
        seccomp_bpf=filter_bpf(),
        memory_limit_mb=256,
        cpu_limit_s=10,
        output_limit_kb=64,
    )
    box.start()
    try:
        r = box.exec("cat /proc/self/oom_score_adj; sh -c 'cat /proc/$$/oom_score_adj'", 10)
        assert r.stdout == "1000\n1000\n"
    finally:
        box.close()


def test_a_program_the_oom_killer_takes_under_its_own_limit_is_mle_with_the_reason(tmp_path):
    with tight_parent(96, "tight-judge") as cgroups, Engine(Settings(state_dir=tmp_path, slots=1)) as eng:
        eng._cgroups = cgroups  # the slot is made on first use, under the tight parent
        p = make_problem(eng.store, [("a", "", "ok\n")], pid="hostoom", memory_limit_mb=512)
        res = eng.judge(p, sub("x = bytearray(300 << 20)\nprint('ok')", problem_id="hostoom"))
        assert isinstance(eng._all[0].cgroup, CgroupV1) == (cgroups.version == 1)
    test = res.tests[0]
    assert test.verdict == "MLE"
    assert "host's OOM killer" in test.message and "under its limit of 512 MB" in test.message


def test_a_program_at_its_own_limit_is_mle_at_the_limit(engine, store):
    p = make_problem(store, [("a", "", "ok\n")], pid="ownoom", memory_limit_mb=64)
    res = engine.judge(p, sub("x = bytearray(300 << 20)\nprint('ok')", problem_id="ownoom"))
    assert res.tests[0].verdict == "MLE"
    assert res.tests[0].message == "killed at its memory limit of 64 MB"


def test_a_session_exec_the_oom_killer_takes_under_its_limit_answers_memory():
    with tight_parent(96, "tight-session") as cgroups:
        box = SessionSandbox(
            "python",
            state_dir=Path(tempfile.mkdtemp()),
            cgroup_host=cgroups,
            seccomp_bpf=filter_bpf(),
            memory_limit_mb=512,
            cpu_limit_s=10,
            output_limit_kb=64,
        )
        box.start()
        try:
            code = (
                "import subprocess, sys; subprocess.run([sys.executable, '-c', 'x = bytearray(300 << 20)'])"
            )
            assert box.exec(code, 20).status == "memory"
            assert box.exec("1 + 1", 10).stdout == "2\n"
        finally:
            box.close()
