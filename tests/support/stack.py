"""Judge stacks for the tests: the judge's API and worker processes on a claimed Redis database,
started through the stack launcher (`services.stack.LocalStack`), and the settings of a whole local
stack (judge, evaluator, merger) of a test module's own."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import time
from pathlib import Path

import httpx

from tests.support.redis import MAIN_REDIS, claim_redis_db


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class JudgeStack:
    """The judge's API and worker processes on one Redis, with their own settings, started through the
    stack launcher (`services.stack.LocalStack`); logs in `tmp`."""

    def __init__(self, tmp: Path, redis_url: str, **env):
        from services.stack import LocalStack

        self.tmp = tmp
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.launcher = LocalStack(
            tmp,
            {
                "FRONTIER_REDIS_URL": redis_url,
                "FRONTIER_JUDGE_PORT": str(self.port),
                "FRONTIER_JUDGE_URL": self.url,
                "FRONTIER_JOB_LEASE_S": "3",
                "FRONTIER_REDIS_PREFIX": f"t{os.getpid()}",
                **{f"FRONTIER_{k.upper()}": str(v) for k, v in env.items()},
            },
            services=("judge",),
        )
        self.env = self.launcher.env
        self.api: subprocess.Popen | None = None
        self.workers: list[subprocess.Popen] = []

    def start_api(self) -> JudgeStack:
        self.api = self.launcher.start_api("judge", name="api")
        self._wait(lambda: self.launcher.workers("judge") is not None, "the API")
        return self

    def start_worker(self, slots: int = 1, name: str | None = None) -> subprocess.Popen:
        name = name or f"w{len(self.workers)}"
        state = self.tmp / name
        p = self.launcher.start_worker(
            "judge", name=name, slots=slots, env={"FRONTIER_STATE_DIR": str(state)}
        )
        p.state_dir = state
        self.workers.append(p)
        return p

    def wait_workers(self, n: int) -> None:
        self._wait(lambda: (self.launcher.workers("judge") or 0) >= n, f"{n} workers")

    def _wait(self, ok, what: str, timeout_s: float = 30) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            try:
                if ok():
                    return
            except (httpx.HTTPError, KeyError, ValueError):
                pass
            time.sleep(0.1)
        logs = "\n".join(f"--- {p.name}\n{p.read_text()[-3000:]}" for p in self.tmp.glob("*.log"))
        raise AssertionError(f"{what} did not come up in {timeout_s} s\n{logs}")

    def stop_api(self, sig=signal.SIGTERM) -> None:
        self.launcher.stop("api", sig, timeout_s=10)
        self.api = None

    def close(self) -> None:
        self.launcher.close()


def judge_stack(tmp_path_factory, name: str, *, slots: int = 1, redis_url: str | None = None, **settings):
    """A module's own judge (generator, for a fixture): API and one worker of `slots` slots on a claimed
    Redis database (or `redis_url`), queue and key prefix named after `name` and this process, and
    `settings` as FRONTIER_* variables (`job_lease_s=3` is FRONTIER_JOB_LEASE_S=3)."""

    def started(url: str) -> JudgeStack:
        s = JudgeStack(
            tmp_path_factory.mktemp(name),
            url,
            judge_queue=f"{name}-{os.getpid()}",
            redis_prefix=f"{name.replace('-', '')}{os.getpid()}",
            **settings,
        ).start_api()
        s.start_worker(slots=slots)
        s.wait_workers(slots)
        return s

    for url in [redis_url] if redis_url else claim_redis_db(range(8, 16), *MAIN_REDIS):
        s = started(url)
        try:
            yield s
        finally:
            s.close()


def session_workers(stack: JudgeStack, n: int, timeout_s: float = 60) -> None:
    """Wait until `n` worker processes beat as session workers (/metrics)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            if f"frontier_judge_session_workers {n}.0" in httpx.get(stack.url + "/metrics", timeout=5).text:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise AssertionError(f"{n} session workers did not come up in {timeout_s} s")


def stack_env(redis_url: str, tmp: Path, tag: str, **extra: str) -> dict[str, str]:
    """FRONTIER_* settings for a LocalStack of a test module's own: its Redis database, state dir, free
    ports for all three services (and the URLs that point the services at each other), and queue
    names and key prefix that carry `tag`, so that stacks of different modules never share work."""
    from services.stack import SERVICES, free_port

    ports = {name: free_port() for name in SERVICES}
    tag = f"{tag}{os.getpid()}"
    return {
        "FRONTIER_REDIS_URL": redis_url,
        "FRONTIER_STATE_DIR": str(tmp / "state"),
        "FRONTIER_REDIS_PREFIX": tag,
        "FRONTIER_JUDGE_QUEUE": f"judge-{tag}",
        "FRONTIER_EVAL_QUEUE": f"eval-{tag}",
        "FRONTIER_MERGER_QUEUE": f"merge-{tag}",
        **{f"FRONTIER_{n.upper()}_PORT": str(p) for n, p in ports.items()},
        **{f"FRONTIER_{n.upper()}_URL": f"http://127.0.0.1:{p}" for n, p in ports.items()},
        **extra,
    }


def eventually(check, timeout_s: float = 60.0):
    """Poll `check` until it is truthy (a bound on waiting, never a claim about speed)."""
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        value = check()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"not true within {timeout_s} s: {check}")


def metric(http: httpx.Client, name: str, **labels) -> float:
    """One sample of the judge's /metrics (0 when absent)."""
    want = ",".join(f'{k}="{v}"' for k, v in sorted(labels.items()))
    for line in http.get("/metrics").text.splitlines():
        if line.startswith("#"):
            continue
        key, _, value = line.rpartition(" ")
        got = key.split("{", 1)
        if got[0] == name and (not labels or (len(got) > 1 and _labels(got[1]) == want)):
            return float(value)
    return 0.0


def _labels(text: str) -> str:
    pairs = re.findall(r'(\w+)="([^"]*)"', text)
    return ",".join(f'{k}="{v}"' for k, v in sorted(pairs))
