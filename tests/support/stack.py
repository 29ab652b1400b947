"""Judge stacks for the tests: one factory, `judge_stack`, starts every stack a test needs (the
judge's API and workers on a claimed Redis database, and the evaluator and merger where a test names
them), through the stack launcher (`services.stack.LocalStack`, a private detail here: no test module
imports it, `unit/test_test_imports.py` checks)."""

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

# the services of a stack, in the order they start (the judge first: the others ask it)
_SERVICES = ("judge", "evaluator", "merger")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def judge_stack(
    tmp,
    name: str = "judge",
    *,
    redis_url: str | None = None,
    services: tuple[str, ...] = ("judge",),
    workers: int = 1,
    slots: int = 1,
    **settings,
) -> _Stack:
    """A judge stack of a test's own, started, the one way the tests start one.

    - `tmp`: its folder (logs `<process>.log`, state dirs), or pytest's `tmp_path_factory` (then a new
      folder named `name`).
    - `name`: tags the stack's Redis key prefix and queue names (`<name><pid>`, `judge-<name><pid>`,
      `eval-...`, `merge-...`), so stacks of different modules and sessions never share work; two
      stacks with the same `name` on one Redis share their queue and workers.
    - `redis_url`: its Redis database; by default one claimed among 8-15 of the machine's Redis
      (`claim_redis_db`), flushed and given back when the stack closes.
    - `services`: which of judge, evaluator and merger run (an API and one worker each; the judge with
      `workers` workers); `()` starts nothing: a stack's settings only (`frontier_env`), for code that
      brings up its own services.
    - `workers`: the judge's worker processes (0: only the API, for a test that starts its own with
      `start_worker`); `slots`: each one's sandbox slots (also FRONTIER_SLOTS).
    - `settings`: FRONTIER_* settings (`job_retries=0` is FRONTIER_JOB_RETRIES=0), over the stack's
      own: free ports and the URLs between the services, a state dir in the folder, and
      FRONTIER_JOB_LEASE_S=3 (a killed worker's job comes back within seconds).

    Returns the stack once every API answers and sees its workers; close it (`close()`, or use it as
    a context manager). In a fixture: `with judge_stack(tmp_path_factory, "mine") as s: yield s`.
    The stack: `url` (the judge's; `evaluator_url`, `merger_url`), `env` (its processes' environment),
    `frontier_env` (its settings), `tmp`, `workers` (the judge's worker processes, each with its
    `state_dir`), `procs` (every process by name), `start_worker`, `wait_workers`, `seen_workers`,
    `wait_for`, `stop_api`, `start_api`, `respawn`."""
    unknown = set(services) - set(_SERVICES)
    assert not unknown, f"no such service: {sorted(unknown)} (of {_SERVICES})"
    folder = tmp.mktemp(name) if hasattr(tmp, "mktemp") else Path(tmp)
    folder.mkdir(parents=True, exist_ok=True)
    claim = None
    if redis_url is None:
        claim = claim_redis_db(range(8, 16), *MAIN_REDIS)
        redis_url = next(claim)
    try:
        stack = _Stack(folder, redis_url, name, tuple(services), slots, settings, claim)
    except BaseException:
        if claim is not None:
            next(claim, None)
        raise
    try:
        stack._start(workers, slots)
    except BaseException:
        stack.close()
        raise
    return stack


class _Stack:
    """What `judge_stack` returns (see there)."""

    def __init__(self, tmp: Path, redis_url: str, name: str, services, slots: int, settings: dict, claim):
        from services.stack import LocalStack

        self.tmp = tmp
        self.services = services
        self._claim = claim
        tag = f"{name.replace('-', '')}{os.getpid()}"
        ports = {service: free_port() for service in _SERVICES}
        self.frontier_env = {
            "FRONTIER_REDIS_URL": redis_url,
            "FRONTIER_STATE_DIR": str(tmp / "state"),
            "FRONTIER_REDIS_PREFIX": tag,
            "FRONTIER_JUDGE_QUEUE": f"judge-{tag}",
            "FRONTIER_EVAL_QUEUE": f"eval-{tag}",
            "FRONTIER_MERGER_QUEUE": f"merge-{tag}",
            "FRONTIER_JOB_LEASE_S": "3",
            "FRONTIER_SLOTS": str(slots),
            **{f"FRONTIER_{s.upper()}_PORT": str(p) for s, p in ports.items()},
            **{f"FRONTIER_{s.upper()}_URL": f"http://127.0.0.1:{p}" for s, p in ports.items()},
            **{f"FRONTIER_{k.upper()}": str(v) for k, v in settings.items()},
        }
        self._launcher = LocalStack(tmp, self.frontier_env, judge_slots=slots, services=services)
        self.env = self._launcher.env
        self.port = self._launcher.port("judge")
        self.url = self._launcher.url("judge")
        self.api: subprocess.Popen | None = None
        self.workers: list[subprocess.Popen] = []

    @property
    def judge_url(self) -> str:
        return self.url

    @property
    def evaluator_url(self) -> str:
        return self._launcher.url("evaluator")

    @property
    def merger_url(self) -> str:
        return self._launcher.url("merger")

    def _start(self, workers: int, slots: int, timeout_s: float = 120) -> None:
        deadline = time.monotonic() + timeout_s
        for service in _SERVICES:
            if service not in self.services:
                continue
            if service == "judge":
                self.api = self._launcher.start_api("judge", name="api")
                for _ in range(workers):
                    self.start_worker(slots=slots)
                want = workers * slots
            else:
                self._launcher.start_api(service)
                self._launcher.start_worker(service)
                want = 1
            self._launcher.wait_workers(service, want, max(1.0, deadline - time.monotonic()), fail_fast=True)

    def start_api(self) -> _Stack:
        """The judge's API (again, after `stop_api`), once it answers."""
        self.api = self._launcher.start_api("judge", name="api")
        self.wait_for(lambda: self._launcher.workers("judge") is not None, "the API")
        return self

    def start_worker(self, slots: int = 1, name: str | None = None, **settings) -> subprocess.Popen:
        """One more judge worker of `slots` slots, with a state dir (test cache) of its own, as a
        separate host would have, and FRONTIER_* `settings` of its own over the stack's
        (`wall_time_extra_ms=1500`); not waited for (`wait_workers`)."""
        name = name or f"w{len(self.workers)}"
        state = self.tmp / name
        env = {
            "FRONTIER_STATE_DIR": str(state),
            **{f"FRONTIER_{k.upper()}": str(v) for k, v in settings.items()},
        }
        p = self._launcher.start_worker("judge", name=name, slots=slots, env=env)
        p.state_dir = state
        self.workers.append(p)
        return p

    def seen_workers(self, service: str = "judge") -> int | None:
        """How many workers the service's API counts (a judge worker once per slot); None when it does
        not answer."""
        return self._launcher.workers(service)

    def wait_workers(self, n: int) -> None:
        """Until the judge's API counts at least `n` worker slots."""
        self.wait_for(lambda: (self._launcher.workers("judge") or 0) >= n, f"{n} workers")

    def wait_for(self, ok, what: str, timeout_s: float = 30) -> None:
        """Until `ok()` holds (HTTP errors read as not yet); fails with the stack's logs after `timeout_s`."""
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

    @property
    def procs(self) -> dict[str, subprocess.Popen]:
        """The stack's processes by name: `api` and `w0`, `w1`... for the judge, `<service>-api` and
        `<service>-worker` for the evaluator and merger."""
        return self._launcher.procs

    def respawn(self, name: str) -> subprocess.Popen:
        """Start a process of the stack again (after it was stopped or killed) with the same command."""
        return self._launcher.respawn(name)

    def stop_api(self, sig=signal.SIGTERM) -> None:
        self._launcher.stop("api", sig, timeout_s=10)
        self.api = None

    def close(self) -> None:
        try:
            self._launcher.close()
        finally:
            if self._claim is not None:
                next(self._claim, None)  # flushes the claimed database and gives it back
                self._claim = None

    def __enter__(self) -> _Stack:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def session_workers(stack: _Stack, n: int, timeout_s: float = 60) -> None:
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
