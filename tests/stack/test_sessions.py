"""Sessions (docs/spec.md section 6.6) end to end: a real Redis, a real judge API, real worker processes
holding real session sandboxes. Each test is one rule of the section, named after it."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import signal
import threading
import time
from pathlib import Path

import httpx
import pytest
import redis

from tests.support.problems import SUM, SUM_TESTS, problem_json
from tests.support.redis import MAIN_REDIS, claim_redis_db
from tests.support.stack import judge_stack, session_workers


def _cgroup_bases() -> list[Path]:
    from services.judge.core.sandbox.cgroups import detect

    return list(detect().bases.values())


CGROUP_BASES = _cgroup_bases()


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    """One API and two worker processes (two 'hosts': sessions are routed to the one that holds them)."""
    for url in claim_redis_db(range(8, 16), *MAIN_REDIS):
        s = judge_stack(
            tmp_path_factory.mktemp("sessions"),
            redis_url=url,
            workers=2,
            judge_queue=f"sessions-{os.getpid()}",
            redis_prefix=f"sess{os.getpid()}",
            session_problem_files_mb=1,
        )
        session_workers(s, 2)
        try:
            yield s
        finally:
            s.close()


@pytest.fixture(scope="module")
def http(stack):
    with httpx.Client(base_url=stack.url, timeout=120) as client:
        yield client


@pytest.fixture
def sessions(http):
    """Create sessions through this; each is deleted at the end of the test."""
    made = []

    def create(kind: str = "python", **body) -> str:
        r = http.post("/sessions", json={"kind": kind, **body})
        assert r.status_code == 201, r.text
        made.append(r.json()["id"])
        return r.json()["id"]

    yield create
    for sid in made:
        http.delete(f"/sessions/{sid}")


def run(http: httpx.Client, sid: str, text: str, timeout_s: float = 20, field: str = "code") -> dict:
    body = {field: text, "timeout_s": timeout_s}
    r = http.post(f"/sessions/{sid}/exec", json=body)
    assert r.status_code == 200, r.text
    return r.json()


def sh(http: httpx.Client, sid: str, command: str, timeout_s: float = 20) -> dict:
    return run(http, sid, command, timeout_s, field="command")


def traces(uid: int, worker_state: Path, tag: str | None = None) -> dict:
    """What a session could leave behind: processes of its uid, and (given the session's tag) its cgroup
    directories and its directory in the worker's state dir."""
    procs = []
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                if p.stat().st_uid == uid:
                    procs.append(p.name)
            except FileNotFoundError:
                pass
    cgroups = [str(b / f"slot-{tag}") for b in CGROUP_BASES if tag and (b / f"slot-{tag}").exists()]
    dirs = (
        [str(worker_state / "sessions" / tag)] if tag and (worker_state / "sessions" / tag).exists() else []
    )
    return {"procs": procs, "cgroups": cgroups, "dirs": dirs}


def commands_of(uid: int) -> list[str]:
    out = []
    for pid in traces(uid, Path("/"))["procs"]:
        try:
            out.append(Path(f"/proc/{pid}/comm").read_text().strip())
        except FileNotFoundError:
            pass
    return out


def tag_of(uid: int) -> str:
    """The session's tag (`<worker pid>-s<n>`): the cgroup that holds a process of its uid."""
    for base in CGROUP_BASES:
        for d in base.glob("slot-*-s*"):
            for pid in (d / "cgroup.procs").read_text().split():
                try:
                    if Path(f"/proc/{pid}").stat().st_uid == uid:
                        return d.name.removeprefix("slot-")
                except FileNotFoundError:
                    pass
    raise AssertionError(f"no session cgroup holds a process of uid {uid}")


def worker_of(http: httpx.Client, stack, sid: str):
    info = http.get(f"/sessions/{sid}").json()
    pid = int(info["worker"].rsplit(".", 1)[1])
    return next(w for w in stack.workers if w.pid == pid)


# -- state persists ----------------------------------------------------------------------------------
def test_python_variables_survive_between_execs(http, sessions):
    sid = sessions("python")
    assert run(http, sid, "x = 41\ndef f(y):\n    return y + 1")["status"] == "ok"
    out = run(http, sid, "print(f(x))\nf(x) * 2")
    assert (out["status"], out["exit_code"], out["stdout"]) == ("ok", 0, "42\n84\n")


def test_bash_cwd_and_environment_survive_between_commands(http, sessions):
    sid = sessions("bash")
    assert sh(http, sid, "mkdir -p sub/dir && cd sub/dir && export GREETING=hi")["exit_code"] == 0
    out = sh(http, sid, 'pwd; echo "$GREETING"; false')
    assert out["stdout"] == "/tmp/work/sub/dir\nhi\n"
    assert (out["status"], out["exit_code"]) == ("ok", 1)


def test_python_error_is_the_code_s_stderr_and_exit_code_not_a_failure(http, sessions):
    sid = sessions("python")
    out = run(http, sid, "1 / 0")
    assert (out["status"], out["exit_code"]) == ("ok", 1)
    assert "ZeroDivisionError" in out["stderr"]
    assert run(http, sid, "raise SystemExit(3)")["exit_code"] == 3
    assert run(http, sid, "'still here'")["stdout"] == "'still here'\n"


# -- limits answer their status and leave the session usable -----------------------------------------
def test_timeout_stops_the_exec_and_keeps_the_interpreter(http, sessions):
    sid = sessions("python")
    run(http, sid, "kept = 'yes'")
    out = run(http, sid, "import time\nwhile True: time.sleep(0.01)", timeout_s=1)
    assert (out["status"], out["restarted"]) == ("timeout", False)
    assert run(http, sid, "kept")["stdout"] == "'yes'\n"


def test_code_that_ignores_the_interrupt_is_killed_and_the_answer_says_restarted(http, sessions):
    sid = sessions("python")
    run(http, sid, "kept = 1")
    spin = "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True: pass"
    out = run(http, sid, spin, timeout_s=1)
    assert (out["status"], out["restarted"], out["exit_code"]) == ("timeout", True, None)
    after = run(http, sid, "kept")
    assert after["status"] == "ok" and "NameError" in after["stderr"]  # a new interpreter
    assert run(http, sid, "6 * 7")["stdout"] == "42\n"


def test_bash_timeout_kills_the_command_and_keeps_cwd(http, sessions):
    sid = sessions("bash")
    sh(http, sid, "cd /tmp && export KEEP=1")
    out = sh(http, sid, "sleep 60", timeout_s=1)
    assert out["status"] == "timeout"
    assert sh(http, sid, 'echo "$PWD $KEEP"')["stdout"] == "/tmp 1\n"
    # a shell busy in a builtin loop must be restarted: exported variables and cwd come back
    out = sh(http, sid, "while :; do :; done", timeout_s=1)
    assert (out["status"], out["restarted"]) == ("timeout", True)
    assert sh(http, sid, 'echo "$PWD $KEEP"')["stdout"] == "/tmp 1\n"


def test_cpu_limit_is_per_exec_and_answers_timeout(http, sessions):
    sid = sessions("python", limits={"cpu_s": 0.5})
    out = run(http, sid, "while True: pass", timeout_s=120)
    assert out["status"] == "timeout" and out["cpu_ms"] >= 500
    assert run(http, sid, "sum(range(10))")["stdout"] == "45\n"


def test_memory_limit_answers_memory_and_the_session_stays_usable(http, sessions):
    sid = sessions("python", limits={"memory_mb": 64})
    out = run(http, sid, "b = bytearray(200 << 20)")
    assert out["status"] == "memory"
    assert out["restarted"] is True  # the cgroup's OOM killer took the interpreter
    assert run(http, sid, "len(bytearray(1 << 20))")["stdout"] == "1048576\n"


def test_output_limit_truncates_and_answers_output_limit(http, sessions):
    sid = sessions("python", limits={"output_kb": 4})
    out = run(http, sid, "print('y' * 100_000)")
    assert out["status"] == "output_limit"
    assert len(out["stdout"]) + len(out["stderr"]) <= 4096
    assert run(http, sid, "'fine'")["stdout"] == "'fine'\n"
    bash = sessions("bash", limits={"output_kb": 4})
    out = sh(http, bash, "yes")
    assert out["status"] == "output_limit" and len(out["stdout"]) <= 4096
    assert sh(http, bash, "echo ok")["stdout"] == "ok\n"


def test_output_that_is_not_utf8_costs_output_kb_as_the_answer_carries_it(http, sessions):
    """Through Redis and the API: bytes that are not UTF-8 come back in base64, control characters
    escaped; either way the answer's stdout and stderr take at most output_kb."""
    sid = sessions("python", limits={"output_kb": 4})
    for code, encoding in (
        ("import sys; sys.stdout.buffer.write(b'\\xff' * 100_000)", "base64"),
        ("import sys; sys.stdout.write('\\x01' * 100_000)", "utf-8"),
    ):
        r = http.post(f"/sessions/{sid}/exec", json={"code": code, "timeout_s": 20})
        assert r.status_code == 200, r.text
        out = r.json()
        assert (out["status"], out["stdout_encoding"]) == ("output_limit", encoding)
        carried = len(json.dumps(out["stdout"], ensure_ascii=False)) - 2
        assert 2048 < carried <= 4096 and len(r.content) < 4096 + 1024
    out = run(http, sid, "import sys; _ = sys.stdout.buffer.write(bytes([0, 255, 10]))")
    assert base64.b64decode(out["stdout"]) == bytes([0, 255, 10]) and out["stdout_encoding"] == "base64"


def test_junk_written_to_the_reply_pipe_restarts_the_shell_never_a_500(http, sessions):
    sid = sessions("python")
    out = run(http, sid, "import os; os.write(201, b'{' * 1_000_000)")
    assert out["restarted"] and out["exit_code"] is None
    assert run(http, sid, "6 * 7")["stdout"] == "42\n"


def test_a_second_call_while_an_exec_runs_is_refused_not_queued(http, sessions):
    import threading

    sid = sessions("bash")
    uid = int(sh(http, sid, "id -u")["stdout"])
    first = {}
    t = threading.Thread(target=lambda: first.update(sh(http, sid, "sleep 4; echo done")))
    t.start()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and "sleep" not in commands_of(uid):  # the first exec runs
        time.sleep(0.05)
    r = http.post(f"/sessions/{sid}/exec", json={"command": "echo second"})
    assert r.status_code == 409 and "busy" in r.json()["detail"]
    t.join()
    assert first["stdout"] == "done\n"
    assert sh(http, sid, "echo after")["stdout"] == "after\n"


# -- isolation -----------------------------------------------------------------------------------------
def test_no_network(http, sessions):
    sid = sessions("python")
    code = (
        "import socket\n"
        "try:\n    socket.create_connection(('1.1.1.1', 53), timeout=2); print('reached')\n"
        "except OSError as e:\n    print('refused', e.errno)\n"
        "open('/etc/hosts').read().split()"
    )
    out = run(http, sid, code)
    assert "reached" not in out["stdout"] and out["stdout"].startswith("refused")
    assert (
        sh(http, sessions("bash"), "cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d ' '")["stdout"]
        == "lo\n"
    )


def test_one_session_cannot_see_another_s_files_or_processes(http, sessions):
    a, b = sessions("bash"), sessions("bash")
    sh(http, a, "echo secret > mine.txt; sleep 300 &")
    uid_a = int(sh(http, a, "id -u")["stdout"])
    uid_b = int(sh(http, b, "id -u")["stdout"])
    assert uid_a != uid_b and uid_a != 0 and uid_b != 0
    seen = sh(
        http, b, "ls /tmp/work; cat /tmp/work/mine.txt; ps -e -o pid=,user=,comm= 2>/dev/null || ls /proc"
    )
    assert "secret" not in seen["stdout"] and "mine.txt" not in seen["stdout"]
    assert "sleep" not in seen["stdout"]
    assert http.get(f"/sessions/{b}/files/mine.txt").status_code == 404
    assert http.get(f"/sessions/{a}/files/mine.txt").content == b"secret\n"


def test_files_put_and_get_stay_inside_the_session_directory(http, sessions):
    sid = sessions("python")
    r = http.put(f"/sessions/{sid}/files/pkg/data.bin", content=bytes(range(256)))
    assert r.status_code == 200 and r.json() == {"path": "pkg/data.bin", "bytes": 256}
    assert run(http, sid, "len(open('pkg/data.bin', 'rb').read())")["stdout"] == "256\n"
    assert http.get(f"/sessions/{sid}/files/pkg/data.bin").content == bytes(range(256))
    run(http, sid, "import os; os.symlink('/etc/passwd', 'link'); os.mkdir('d')")
    for path, status in (
        ("..%2F..%2Fetc%2Fpasswd", 422),
        ("sub%2F..%2F..%2Fx", 422),
        ("%2Fetc%2Fpasswd", 422),
        ("link", 422),  # the last component is a symbolic link: refused, never followed
        ("d", 422),
        ("missing.txt", 404),
    ):
        r = http.get(f"/sessions/{sid}/files/{path}")
        assert r.status_code == status, (path, r.text)
        assert r.json()["detail"]


# -- nothing is left behind -------------------------------------------------------------------------
def _uid(http, sid) -> int:
    return int(run(http, sid, "import os; print(os.getuid())")["stdout"])


def test_delete_leaves_no_process_cgroup_or_file(http, stack):
    r = http.post("/sessions", json={"kind": "python"})
    sid = r.json()["id"]
    uid = _uid(http, sid)
    run(http, sid, "import subprocess; subprocess.Popen(['sleep', '300'], start_new_session=True)")
    worker = worker_of(http, stack, sid)
    tag = tag_of(uid)
    during = traces(uid, worker.state_dir, tag)
    assert len(during["procs"]) >= 2 and during["cgroups"] and during["dirs"]
    assert http.delete(f"/sessions/{sid}").status_code == 204
    assert traces(uid, worker.state_dir, tag) == {"procs": [], "cgroups": [], "dirs": []}
    assert http.post(f"/sessions/{sid}/exec", json={"code": "1"}).status_code == 404
    assert http.delete(f"/sessions/{sid}").status_code == 404


def _status(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/status").read_text()
    except OSError:  # gone between the two looks
        return "State:\tZ"


def test_a_session_whose_sandbox_dies_answers_dead_and_leaves_nothing(http, stack):
    sid = http.post("/sessions", json={"kind": "python"}).json()["id"]
    uid = _uid(http, sid)
    tag, worker = tag_of(uid), worker_of(http, stack, sid)
    [shell] = traces(uid, worker.state_dir)["procs"]
    status = Path(f"/proc/{shell}/status").read_text()
    keeper = int(next(line for line in status.splitlines() if line.startswith("PPid:")).split()[1])
    os.kill(keeper, signal.SIGKILL)  # PID 1 of the session's namespaces: every process of it dies
    # the kernel kills the namespace's other processes as PID 1 exits: an exec sent before the
    # interpreter is gone may still be answered, so wait for it to be gone (a dead pid or a zombie)
    deadline = time.monotonic() + 30
    while Path(f"/proc/{shell}").exists() and "State:\tZ" not in _status(shell):
        assert time.monotonic() < deadline, f"the interpreter {shell} outlived its keeper"
        time.sleep(0.05)
    assert run(http, sid, "1 + 1")["status"] == "dead"
    assert http.post(f"/sessions/{sid}/exec", json={"code": "1"}).status_code == 404  # ended
    deadline = time.monotonic() + 30  # generous: a loaded host kills and reaps slowly
    while traces(uid, worker.state_dir, tag) != {"procs": [], "cgroups": [], "dirs": []}:
        assert time.monotonic() < deadline, traces(uid, worker.state_dir, tag)
        time.sleep(0.1)


def test_idle_and_lifetime_expiry_leave_nothing(http, stack):
    idle = http.post("/sessions", json={"kind": "bash", "limits": {"idle_s": 1}}).json()["id"]
    short = http.post(
        "/sessions", json={"kind": "python", "limits": {"lifetime_s": 2, "idle_s": 600}}
    ).json()["id"]
    uids = {idle: int(sh(http, idle, "id -u")["stdout"]), short: _uid(http, short)}
    tags = {sid: tag_of(uid) for sid, uid in uids.items()}
    workers = {sid: worker_of(http, stack, sid) for sid in (idle, short)}
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and any(
        http.get(f"/sessions/{s}").status_code != 404 for s in (idle, short)
    ):
        time.sleep(0.5)
    for sid in (idle, short):
        assert http.get(f"/sessions/{sid}").status_code == 404
        assert traces(uids[sid], workers[sid].state_dir, tags[sid]) == {
            "procs": [],
            "cgroups": [],
            "dirs": [],
        }
        assert sid not in [s["id"] for s in http.get("/sessions").json()]
    ended = http.get("/metrics").text
    assert 'frontier_judge_sessions_ended_total{reason="idle"}' in ended
    assert 'frontier_judge_sessions_ended_total{reason="expired"}' in ended


def test_a_killed_worker_s_sessions_answer_dead(stack, tmp_path):
    # a judge of its own (its workers die here) on the module's Redis database, under its own names
    for url in [stack.env["FRONTIER_REDIS_URL"]]:
        s = judge_stack(
            tmp_path,
            redis_url=url,
            workers=0,
            judge_queue=f"sessdead-{os.getpid()}",
            redis_prefix=f"sessdead{os.getpid()}",
        )
        worker = s.start_worker(slots=1)
        try:
            session_workers(s, 1)
            with httpx.Client(base_url=s.url, timeout=60) as client:
                sid = client.post("/sessions", json={"kind": "python"}).json()["id"]
                uid = _uid(client, sid)
                tag = tag_of(uid)
                assert traces(uid, worker.state_dir)["procs"]
                os.kill(worker.pid, signal.SIGKILL)
                worker.wait()
                out = run(client, sid, "1 + 1")
                assert out["status"] == "dead"
                assert run(client, sid, "1 + 1")["status"] == "dead"  # and from then on, at once
                assert client.get(f"/sessions/{sid}/files/x").status_code == 410
                assert client.get(f"/sessions/{sid}").json()["state"] == "dead"
                # the keeper saw its worker go and took every process of the session with it
                deadline = time.monotonic() + 30  # generous: a loaded host kills and reaps slowly
                while traces(uid, worker.state_dir)["procs"] and time.monotonic() < deadline:
                    time.sleep(0.1)
                assert traces(uid, worker.state_dir)["procs"] == []
                assert client.delete(f"/sessions/{sid}").status_code == 204
                # no worker left: a new session is refused with 503, not a hang
                r = client.post("/sessions", json={"kind": "python"})
                assert r.status_code == 503 and r.headers["retry-after"]
                # a worker started again on that host removes what the killed one could not: its session
                # directory, and its cgroups unless another judge of this host swept them first (any
                # judge's start removes every dead judge's slots: tests/sandbox/test_cgroups.py), as one
                # of a parallel test run may
                assert traces(uid, worker.state_dir, tag)["dirs"]
                s.start_worker(slots=1, name="w0")
                session_workers(s, 1)
                assert traces(uid, worker.state_dir, tag) == {"procs": [], "cgroups": [], "dirs": []}
        finally:
            s.close()


# -- submit -----------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def sum_problem(http) -> str:
    body = problem_json(SUM_TESTS, time_limit_ms=500, statement="Add two numbers.", public_tests=["01", "02"])
    r = http.put("/problems/sum", json=body)
    assert r.status_code in (200, 201), r.text
    return "sum"


def test_problem_statement_and_public_tests_are_in_the_working_directory(http, sessions, sum_problem):
    r = http.post("/sessions", json={"kind": "bash", "problem_id": sum_problem})
    assert r.status_code == 201
    created = r.json()
    sessions_to_delete = created["id"]
    try:
        assert created["files"] == [
            "statement.md",
            "tests/01.in",
            "tests/01.out",
            "tests/02.in",
            "tests/02.out",
        ]
        out = sh(http, created["id"], "cat statement.md; echo; cat tests/01.in; ls tests")
        assert out["stdout"] == "Add two numbers.\n1 2\n01.in\n01.out\n02.in\n02.out\n"
    finally:
        http.delete(f"/sessions/{sessions_to_delete}")
    # hidden tests never enter a session: a problem without public tests gives its statement alone
    body = problem_json(SUM_TESTS, statement="Hidden.")
    assert http.put("/problems/hidden", json=body).status_code in (200, 201)
    sid = sessions("bash", problem_id="hidden")
    assert sh(http, sid, "ls -A")["stdout"] == "statement.md\n"


def test_a_problem_s_files_are_capped_in_all_and_come_from_the_worker_s_test_store(http, sessions, stack):
    """FRONTIER_SESSION_PROBLEM_FILES_MB is 1 here: of three public tests of 400 KB each, two fit."""
    big = [(f"{i:02d}", f"{i} " + "x" * (400 << 10) + "\n", f"{i}\n") for i in range(1, 4)]
    body = problem_json(big, statement="Big.", public_tests=["01", "02", "03"])
    assert http.put("/problems/big", json=body).status_code in (200, 201)
    pushed = []  # every request pushed to a worker while the session is created (Redis MONITOR)
    conn = redis.Redis.from_url(stack.env["FRONTIER_REDIS_URL"])
    prefix = stack.env["FRONTIER_REDIS_PREFIX"]  # MONITOR sees every client of this Redis: ours only
    with conn.monitor() as monitor:
        done = threading.Event()

        def watch():
            for command in monitor.listen():
                if command["command"].startswith(f"RPUSH {prefix}:sess:req:"):
                    pushed.append(len(command["command"]))
                if done.is_set() and command["command"].startswith("PING"):
                    return

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        r = http.post("/sessions", json={"kind": "bash", "problem_id": "big"})
        done.set()
        redis.Redis.from_url(stack.env["FRONTIER_REDIS_URL"]).ping()
        watcher.join(10)
    assert r.status_code == 201, r.text
    assert pushed and max(pushed) < 4096  # the create message names the problem, it carries no test
    sid = r.json()["id"]
    sessions_made = [sid]
    try:
        files = r.json()["files"]
        assert files == ["statement.md", "tests/01.in", "tests/01.out", "tests/02.in", "tests/02.out"]
        out = sh(http, sid, "du -cb tests | tail -1; head -c 2 tests/02.in")["stdout"]
        assert int(out.split()[0]) <= 1 << 20 and out.endswith("2 ")
        # the worker that made it holds the blobs in its own test store (content-addressed)
        meta = http.get(f"/sessions/{sid}").json()
        holder = next(w for w in stack.workers if meta["worker"].endswith(f".{w.pid}"))
        held = {p.name for p in (holder.state_dir / "tests").glob("*/*")}
        assert hashlib.sha256(big[0][1].encode()).hexdigest() in held
    finally:
        for s in sessions_made:
            http.delete(f"/sessions/{s}")


def test_submit_gives_the_same_result_as_judge(http, sessions, sum_problem):
    sid = sessions("python", problem_id=sum_problem)
    http.put(f"/sessions/{sid}/files/solution.py", content=SUM.encode())
    slow = "a, b = map(int, input().split())\nif a > 50:\n    while True: pass\nprint(a + b)\n"
    for code in (SUM, slow, "print(0)"):
        http.put(f"/sessions/{sid}/files/solution.py", content=code.encode())
        by_path = http.post(f"/sessions/{sid}/submit", json={"path": "solution.py"})
        by_code = http.post(f"/sessions/{sid}/submit", json={"code": code, "language": "python"})
        direct = http.post(
            "/judge", json={"submissions": [{"id": "d", "problem_id": sum_problem, "code": code}]}
        )
        assert by_path.status_code == by_code.status_code == direct.status_code == 200, by_path.text
        want = direct.json()["results"][0]
        for got in (by_path.json(), by_code.json()):
            assert got["id"] == sid
            for field in ("status", "outcome", "rewards", "in_scope", "first_failure"):
                assert got[field] == want[field], field
            assert [t["verdict"] for t in got["tests"]] == [t["verdict"] for t in want["tests"]]
    assert by_path.json()["outcome"] == "correctness_failure"
    fed = http.post(f"/sessions/{sid}/submit", json={"code": "print(0)", "feedback": True}).json()
    assert fed["outcome"] == "correctness_failure" and fed["feedback_text"]
    assert "peak memory" not in fed["feedback_text"]
    # a batch's options, the template included (JudgeOptions)
    body = {"code": "print(0)", "feedback": True, "feedback_template": "stats"}
    styled = http.post(f"/sessions/{sid}/submit", json=body).json()
    assert styled["outcome"] == "correctness_failure" and "peak memory" in styled["feedback_text"]


# -- bad input ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "method, path, kwargs, status, needle",
    [
        ("post", "/sessions", {"json": {"kind": "ruby"}}, 422, "kind"),
        ("post", "/sessions", {"json": {"kind": "python", "limits": {"memory_mb": 1}}}, 422, "memory_mb"),
        ("post", "/sessions", {"json": {"kind": "python", "limits": {"cpu": 1}}}, 422, "cpu"),
        ("post", "/sessions", {"json": {"kind": "python", "problem_id": "nope"}}, 404, "unknown problem"),
        (
            "post",
            "/sessions",
            {"content": b"{not json", "headers": {"content-type": "application/json"}},
            422,
            "malformed JSON",
        ),
        ("post", "/sessions/nope/exec", {"json": {"code": "1"}}, 404, "unknown session"),
        ("delete", "/sessions/nope", {}, 404, "unknown session"),
        ("get", "/sessions/nope/files/a", {}, 404, "unknown session"),
    ],
)
def test_bad_requests_get_a_clear_4xx(http, method, path, kwargs, status, needle):
    r = http.request(method.upper(), path, **kwargs)
    assert r.status_code == status, r.text
    assert needle in r.json()["detail"]


def test_bad_requests_on_a_session_get_a_clear_4xx(http, sessions):
    py, bash = sessions("python"), sessions("bash")
    cases = [
        (py, {"command": "ls"}, "python session: send 'code'"),
        (bash, {"code": "1"}, "bash session: send 'command'"),
        (py, {"code": "1", "command": "ls"}, "exactly one"),
        (py, {"code": "1", "timeout_s": 0}, "timeout_s"),
        (py, {"code": "1", "timeout_s": 10_000}, "timeout_s"),
    ]
    for sid, body, needle in cases:
        r = http.post(f"/sessions/{sid}/exec", json=body)
        assert r.status_code == 422 and needle in r.json()["detail"], (body, r.text)
    r = http.post(f"/sessions/{py}/submit", json={"code": "print(1)"})
    assert r.status_code == 409 and "without a problem_id" in r.json()["detail"]
    r = http.post(f"/sessions/{py}/submit", json={"code": "print(1)", "path": "a.py"})
    assert r.status_code == 422
    r = http.post(f"/sessions/{py}/submit", json={"code": "print(1)", "ks": [0]})
    assert r.status_code == 422 and "ks" in r.json()["detail"]
    r = http.post(f"/sessions/{py}/submit", json={"code": "print(1)", "isolation": "thread"})
    assert r.status_code == 422 and "isolation" in r.json()["detail"]


# -- operators ----------------------------------------------------------------------------------------
def test_sessions_are_listed_and_counted_in_metrics(http, sessions):
    a, b = sessions("python"), sessions("bash")
    run(http, a, "1")
    listed = {s["id"]: s for s in http.get("/sessions").json()}
    assert listed[a]["kind"] == "python" and listed[b]["kind"] == "bash"
    assert listed[a]["state"] == listed[b]["state"] == "live"
    assert listed[a]["limits"]["memory_mb"] == 512
    assert listed[a]["last_used_at"] >= listed[a]["created_at"] and listed[b]["last_used_at"] is None
    text = http.get("/metrics").text
    assert 'frontier_judge_sessions{kind="python",state="live"}' in text
    assert 'frontier_judge_session_execs_total{status="ok"}' in text
    assert "frontier_judge_session_capacity 128.0" in text


# -- the client ---------------------------------------------------------------------------------------
def test_sync_client_sessions(stack, sum_problem):
    from services.judge.client import JudgeClient, JudgeClientError

    with JudgeClient(stack.url) as judge:
        with judge.open_session("python", problem_id=sum_problem, limits={"memory_mb": 128}) as s:
            assert "statement.md" in s.files
            s.exec("x = 41")
            assert s.exec("x + 1")["stdout"] == "42\n"
            s.write("solution.py", SUM)
            assert s.read("solution.py") == SUM.encode()
            result = s.submit(path="solution.py")
            assert (result.id, result.status, result.outcome) == (s.id, "ok", "correct")
            shared = s.submit(path="solution.py", mode="full", isolation="submission")
            assert [t.verdict for t in shared.tests] == [t.verdict for t in result.tests] != []
            fed = s.submit(code="print(0)", feedback=True)
            assert fed.outcome == "correctness_failure" and fed.feedback_text
            assert s.id in [x["id"] for x in judge.sessions()]
            with pytest.raises(JudgeClientError) as bad:
                s.read("../etc/passwd")
            assert bad.value.status_code == 422
        assert judge.delete_session(s.id) is False  # gone at the end of the block


def test_async_client_sessions(stack):
    import asyncio

    from services.judge.client import AsyncJudgeClient

    async def main():
        async with AsyncJudgeClient(stack.url) as judge:
            async with await judge.open_session("bash") as s:
                await s.exec("cd /tmp && export N=7")
                out = await s.exec('echo "$PWD $N"')
                await s.write("a/b.txt", "hi")
                return out, await s.read("a/b.txt"), s.id, await judge.delete_session(s.id)

    out, data, sid, deleted = asyncio.run(main())
    assert out["stdout"] == "/tmp 7\n" and data == b"hi" and deleted is True


def test_session_routes_ask_for_the_bearer_token(stack):
    from fastapi.testclient import TestClient

    from services.judge.api import create_app
    from services.settings import Settings

    settings = Settings(
        api_token="s3ssion-token", redis_url=stack.env["FRONTIER_REDIS_URL"], redis_prefix="tok"
    )
    with TestClient(create_app(settings)) as client:
        for method, path in [
            ("POST", "/sessions"),
            ("GET", "/sessions"),
            ("GET", "/sessions/x"),
            ("POST", "/sessions/x/exec"),
            ("PUT", "/sessions/x/files/a"),
            ("GET", "/sessions/x/files/a"),
            ("POST", "/sessions/x/submit"),
            ("DELETE", "/sessions/x"),
        ]:
            r = client.request(method, path, json={})
            assert r.status_code == 401 and r.headers["www-authenticate"] == "Bearer", (method, path)
        ok = client.get("/sessions", headers={"Authorization": "Bearer s3ssion-token"})
        assert ok.status_code == 200 and ok.json() == []
