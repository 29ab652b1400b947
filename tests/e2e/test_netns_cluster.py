"""Judge hosts that come and go (issue 27), on one machine: three "hosts" are network namespaces made by
this test, joined by a bridge in a fourth, with addresses only inside them (10.231.0.0/24). Host A runs
Redis and the judge API, hosts B and C a judge worker each. A client on host A sends a batch of a few
hundred submissions; while it runs, host B is killed (its worker SIGKILLed, its link cut) and a host D
joins with a worker of its own. Every submission must be answered exactly once, with the verdict a
single host gives (an Engine in this process). No traffic leaves the namespaces the test made; they are
deleted whatever happens. Processes enter a host with `nsenter --net` (only the network namespace:
`ip netns exec` would remount /sys and hide the cgroups the sandbox needs)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from services.judge.core.models import Submission
from tests.support import ROOT
from tests.support.problems import make_problem

NET = "10.231.0"
N_SUBS = 240
TESTS = [("1", "1 2\n", "3\n"), ("2", "20 22\n", "42\n")]
TIME_LIMIT_MS = 400
# each program sleeps a little first, so the batch lasts long enough for a host to go mid-way
KINDS = {
    "ok": "import time\ntime.sleep(0.05)\na, b = map(int, input().split())\nprint(a + b)  # {i}\n",
    "wa": "import time\ntime.sleep(0.05)\na, b = map(int, input().split())\nprint(a - b)  # {i}\n",
    "re": "import time\ntime.sleep(0.05)\nraise SystemExit(3)  # {i}\n",
    "ce": "def broken(:  # {i}\n",
    "tle": "while True:  # {i}\n    pass\n",
}
WEIGHTS = ["ok", "ok", "wa", "re", "ok", "ce", "wa", "ok"] * 6 + ["tle"]  # 1 TLE in 49


def _kind(i: int) -> str:
    return WEIGHTS[i % len(WEIGHTS)]


def _sh(*args: str) -> None:
    subprocess.run(args, check=True, capture_output=True, timeout=30)


class Hosts:
    """Network namespaces as hosts on one bridge; processes started in them; all undone by `close`."""

    def __init__(self, tmp: Path):
        self.tmp = tmp
        tag = f"{os.getpid() % 100000}"
        self.switch = f"cfsw{tag}"
        self.prefix = f"cfh{tag}"
        self.names: list[str] = []
        self.procs: dict[str, list[subprocess.Popen]] = {}
        _sh("ip", "netns", "add", self.switch)
        self.names.append(self.switch)
        _sh("ip", "-n", self.switch, "link", "add", "br0", "type", "bridge")
        _sh("ip", "-n", self.switch, "link", "set", "br0", "up")

    def add(self, host: str, index: int) -> str:
        """Host `host` at 10.231.0.<index>, on the bridge; returns its address."""
        ns = f"{self.prefix}{host}"
        _sh("ip", "netns", "add", ns)
        self.names.append(ns)
        port = f"p{host}"
        _sh("ip", "-n", ns, "link", "add", "eth0", "type", "veth", "peer", "name", port, "netns", self.switch)
        _sh("ip", "-n", self.switch, "link", "set", port, "master", "br0", "up")
        _sh("ip", "-n", ns, "addr", "add", f"{NET}.{index}/24", "dev", "eth0")
        _sh("ip", "-n", ns, "link", "set", "eth0", "up")
        _sh("ip", "-n", ns, "link", "set", "lo", "up")
        return f"{NET}.{index}"

    def run(self, host: str, args: list[str], log: str, env: dict[str, str]) -> subprocess.Popen:
        ns = f"{self.prefix}{host}"
        with open(self.tmp / log, "wb") as out:
            p = subprocess.Popen(
                ["nsenter", f"--net=/run/netns/{ns}", *args],
                cwd=ROOT,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.procs.setdefault(host, []).append(p)
        return p

    def kill(self, host: str) -> None:
        """The host is lost: its processes die at once and its link goes."""
        for p in self.procs.get(host, []):
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
        _sh("ip", "-n", f"{self.prefix}{host}", "link", "set", "eth0", "down")

    def close(self) -> None:
        # the newest first: workers before the API and Redis they talk to
        for procs in reversed(list(self.procs.values())):
            for p in reversed(procs):
                if p.poll() is None:
                    try:
                        os.killpg(p.pid, signal.SIGTERM)
                        p.wait(15)
                    except (ProcessLookupError, subprocess.TimeoutExpired):
                        try:
                            os.killpg(p.pid, signal.SIGKILL)
                        except ProcessLookupError:
                            pass
                        p.wait()
        for ns in reversed(self.names):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=30)


CLIENT = """
import json, sys, threading, time
import redis
from services.judge.client import JudgeClient

url, redis_url, subs_path, out_path, progress_path = sys.argv[1:6]
subs = json.load(open(subs_path))
conn = redis.Redis.from_url(redis_url)
done = threading.Event()

def progress():
    while not done.is_set():
        try:
            judged = int(conn.hget("frontier:stats", "judged") or 0)
            open(progress_path + ".tmp", "w").write(str(judged))
            import os; os.replace(progress_path + ".tmp", progress_path)
        except redis.RedisError:
            pass
        time.sleep(0.1)

threading.Thread(target=progress, daemon=True).start()
with JudgeClient(url, timeout_s=300) as judge:
    deadline = time.monotonic() + 60
    while judge.healthz()["workers"] < 2:
        assert time.monotonic() < deadline, "two workers did not come up"
        time.sleep(0.2)
    tests = [{"name": n, "input": i, "output": o} for n, i, o in json.loads(sys.argv[6])]
    judge.put_problem("sum", {"time_limit_ms": int(sys.argv[7]), "memory_limit_mb": 64, "tests": tests})
    open(progress_path, "w").write("0")
    results = judge.judge(subs)
done.set()
stats = {k.decode(): int(v) for k, v in conn.hgetall("frontier:stats").items()}
json.dump({"results": [r.model_dump(mode="json") for r in results], "stats": stats}, open(out_path, "w"))
"""


def _verdicts(result: dict) -> tuple:
    return (
        result["status"],
        result["outcome"],
        [t["verdict"] for t in result["tests"]],
    )


def _remove_stale_namespaces() -> None:
    """Namespaces an earlier run of this test left behind when it was killed (named after its pid)."""
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, timeout=30).stdout
    for line in listed.splitlines():
        name = line.split()[0] if line.split() else ""
        for prefix in ("cfsw", "cfh"):
            tag = name[len(prefix) :].rstrip("abcdefgh") if name.startswith(prefix) else ""
            if tag.isdigit() and int(tag) != os.getpid() % 100000 and not Path(f"/proc/{tag}").exists():
                subprocess.run(["ip", "netns", "del", name], capture_output=True, timeout=30)


@pytest.fixture
def hosts(tmp_path):
    if os.geteuid() != 0:
        pytest.fail("the three-host test needs root (network namespaces), as the sandbox does")
    _remove_stale_namespaces()
    h = Hosts(tmp_path)
    try:
        yield h
    finally:
        h.close()
    left = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, timeout=30).stdout
    assert h.prefix not in left and h.switch not in left, left


def test_hosts_come_and_go_and_every_submission_is_answered_once_as_one_host_would(hosts, tmp_path, engine):
    # what a single host says about each kind of program
    problem = make_problem(engine.store, TESTS, pid="sum", time_limit_ms=TIME_LIMIT_MS, memory_limit_mb=64)
    single = {}
    for kind, code in KINDS.items():
        r = engine.judge(
            problem, Submission(id=kind, problem_id="sum", language="python", code=code.format(i=0))
        )
        single[kind] = _verdicts(r.model_dump(mode="json"))
    assert single["ok"][1] == "correct" and single["wa"][1] != "correct"  # the kinds differ

    a = hosts.add("a", 1)
    hosts.add("b", 2)
    hosts.add("c", 3)
    redis_url = f"redis://{a}:6379/0"
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("FRONTIER_")},
        "PYTHONPATH": str(ROOT),
        "FRONTIER_REDIS_URL": redis_url,
        "FRONTIER_JOB_LEASE_S": "3",
        "FRONTIER_STATE_DIR": str(tmp_path / "api"),
    }
    hosts.run(
        "a",
        [
            "redis-server",
            "--bind",
            a,
            "--port",
            "6379",
            "--save",
            "",
            "--appendonly",
            "no",
            "--protected-mode",
            "no",
        ],
        "redis.log",
        env,
    )
    hosts.run(
        "a",
        [sys.executable, "-m", "services.judge.cli", "serve", "--host", a, "--port", "8000"],
        "api.log",
        env,
    )

    def worker(host: str) -> None:
        wenv = {**env, "FRONTIER_STATE_DIR": str(tmp_path / f"state-{host}")}
        hosts.run(
            host,
            [sys.executable, "-m", "services.judge.cli", "worker", "--slots", "1"],
            f"worker-{host}.log",
            wenv,
        )

    worker("b")
    worker("c")
    subs = [
        {"id": f"s{i}", "problem_id": "sum", "language": "python", "code": KINDS[_kind(i)].format(i=i)}
        for i in range(N_SUBS)
    ]
    (tmp_path / "subs.json").write_text(json.dumps(subs))
    (tmp_path / "client.py").write_text(CLIENT)
    progress = tmp_path / "progress"
    out = tmp_path / "results.json"
    client = hosts.run(
        "a",
        [sys.executable, str(tmp_path / "client.py"), f"http://{a}:8000", redis_url, str(tmp_path / "subs.json"),
         str(out), str(progress), json.dumps(TESTS), str(TIME_LIMIT_MS)],
        "client.log",
        env,
    )  # fmt: skip

    def judged() -> int:
        try:
            return int(progress.read_text() or 0)
        except (OSError, ValueError):
            return 0

    def logs() -> str:
        return "\n".join(f"--- {p.name}\n{p.read_text()[-3000:]}" for p in sorted(tmp_path.glob("*.log")))

    deadline = time.monotonic() + 120
    while judged() < N_SUBS // 5:
        assert client.poll() is None and time.monotonic() < deadline, logs()
        time.sleep(0.1)
    # mid-batch: host B is lost, host D joins
    hosts.kill("b")
    at_kill = judged()
    hosts.add("d", 4)
    worker("d")
    assert client.wait(150) == 0, logs()
    assert at_kill < N_SUBS, "the batch was over before host B went: nothing was tested"

    answer = json.loads(out.read_text())
    results = answer["results"]
    # no job failed for good on the way (a lost worker's job is redone, not answered judge_error)
    assert answer["stats"].get("status:judge_error", 0) == 0, answer["stats"]
    ids = [r["id"] for r in results]
    assert ids == [s["id"] for s in subs]  # every submission answered, once, in order
    wrong = {
        r["id"]: (_verdicts(r), single[_kind(i)])
        for i, r in enumerate(results)
        if _verdicts(r) != single[_kind(i)]
    }
    assert not wrong, wrong
    # the host that joined took work
    assert "judge: " in (tmp_path / "worker-d.log").read_text(), logs()
