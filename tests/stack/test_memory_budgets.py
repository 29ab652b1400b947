"""Issue 28 item 4, memory: sandboxed processes are the host's OOM killer's first choice, a program the
OOM killer takes above its own limit is MLE with that reason (never RE), and a worker admits sessions
and runs only while their granted memory fits its share of the host's RAM."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import pytest

from services.judge.core.engine import Engine
from services.judge.core.sandbox.cgroups import CgroupHost, CgroupV1, _write, detect
from services.judge.core.sandbox.seccomp import filter_bpf
from services.judge.core.sandbox.session import SessionSandbox
from services.judge.worker.admission import MemoryLedger, NoRoom, host_memory_mb
from services.settings import Settings
from tests.support import ROOT
from tests.support.problems import make_problem, sub


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


# -- admission: the ledger --------------------------------------------------------------------------
def test_the_ledger_admits_within_the_budget_and_refuses_past_it(tmp_path):
    ledger = MemoryLedger(tmp_path, budget_mb=1000)
    first = ledger.admit(600, "session a")
    with pytest.raises(NoRoom, match="session b asks for 600 MB.*granted 600 MB of its 1000 MB"):
        ledger.admit(600, "session b")
    second = ledger.admit(400, "session c")
    assert ledger.granted_mb() == 1000
    first.release()
    second.release()
    assert ledger.granted_mb() == 0


def test_grants_are_host_wide_and_a_killed_worker_s_grants_are_dropped(tmp_path):
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from services.judge.worker.admission import MemoryLedger\n"
            f"MemoryLedger({str(tmp_path)!r}, 1000).admit(700, 'run x'); print('held', flush=True)\n"
            "time.sleep(60)",
        ],
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        assert holder.stdout.readline() == b"held\n"
        ledger = MemoryLedger(tmp_path, budget_mb=1000)
        assert ledger.granted_mb() == 700  # another process's grant counts
        with pytest.raises(NoRoom):
            ledger.admit(400, "session y")
    finally:
        holder.kill()
        holder.wait()
    assert ledger.admit(400, "session y").mb == 400  # the SIGKILLed holder's grant is gone


def test_the_host_s_memory_is_read():
    total_mb = (
        int(next(line for line in open("/proc/meminfo") if line.startswith("MemTotal")).split()[1]) >> 10
    )
    assert 0 < host_memory_mb() <= total_mb


# -- admission: sessions and runs through the API -------------------------------------------------------
@pytest.fixture(scope="module")
def small_host(tmp_path_factory):
    """An API and one worker whose host may grant 1024 MB to sessions and runs."""
    from tests.support.redis import MAIN_REDIS, claim_redis_db
    from tests.support.stack import judge_stack, session_workers

    for url in claim_redis_db(range(8, 16), *MAIN_REDIS):
        s = judge_stack(
            tmp_path_factory.mktemp("admission"),
            redis_url=url,
            judge_queue=f"admission-{os.getpid()}",
            redis_prefix=f"adm{os.getpid()}",
            admit_memory_mb=1024,
            admit_wait_s=0.5,
            session_warm=0,
        )
        session_workers(s, 1)
        try:
            with httpx.Client(base_url=s.url, timeout=120) as http:
                yield http
        finally:
            s.close()


def test_sessions_past_the_host_s_memory_budget_get_503_with_the_reason(small_host):
    http = small_host
    made = []
    try:
        for _ in range(2):
            r = http.post("/sessions", json={"kind": "bash", "limits": {"memory_mb": 512}})
            assert r.status_code == 201, r.text
            made.append(r.json()["id"])
        r = http.post("/sessions", json={"kind": "bash", "limits": {"memory_mb": 64}})
        assert r.status_code == 503
        assert "granted 1024 MB of its 1024 MB" in r.json()["detail"] and r.headers["Retry-After"]
        assert http.delete(f"/sessions/{made.pop()}").status_code == 204  # its grant goes with it
        r = http.post("/sessions", json={"kind": "bash", "limits": {"memory_mb": 512}})
        assert r.status_code == 201, r.text
        made.append(r.json()["id"])
    finally:
        for sid in made:
            http.delete(f"/sessions/{sid}")


def test_a_run_past_the_host_s_memory_budget_gets_503_and_one_within_runs(small_host):
    http = small_host
    r = http.post("/run_code", json={"code": "print(1)", "language": "python", "memory_limit_MB": 2048})
    assert r.status_code == 503, r.text
    assert "asks for 2048 MB" in r.json()["detail"]
    r = http.post("/run_code", json={"code": "print(1)", "language": "python", "memory_limit_MB": 256})
    assert r.status_code == 200 and r.json()["run_result"]["stdout"] == "1\n", r.text


def test_a_judge0_run_past_the_budget_is_503_when_waited_for_and_status_13_when_read(small_host):
    http = small_host
    body = {"source_code": "print(1)", "language_id": 71, "memory_limit": 2048 * 1024}
    r = http.post("/judge0/submissions?wait=true", json=body)
    assert r.status_code == 503 and "asks for 2048 MB" in r.json()["detail"], r.text
    token = http.post("/judge0/submissions", json=body).json()["token"]
    for _ in range(100):
        got = http.get(f"/judge0/submissions/{token}?fields=status,message").json()
        if got["status"]["id"] > 2:
            break
        time.sleep(0.1)
    assert got["status"]["id"] == 13 and "asks for 2048 MB" in got["message"]
