"""`LocalStack`: the judge, merger and evaluator (an API and a worker each) as child processes, for
`make demo`, `frontier replicate`, the evaluator's and trainer's tests and the evaluator benchmark.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SERVICES = ("judge", "merger", "evaluator")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LocalStack:
    """Services of the stack, each an API and a worker, as child processes of this one: `services` among
    judge, evaluator and merger, configured by FRONTIER_* variables in `env` (over this process's own).
    Logs go to `log_dir`. Only the processes started here are stopped."""

    def __init__(
        self,
        log_dir: Path,
        env: dict[str, str] | None = None,
        *,
        judge_slots: int = 2,
        services: Sequence[str] = ("judge", "evaluator"),
    ):
        self.log_dir = Path(log_dir)
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self.env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
        # the services find each other where this stack says they are (the evaluator asks the judge)
        for service in SERVICES:
            self.env[f"FRONTIER_{service.upper()}_URL"] = self.url(service)
        self.judge_slots = judge_slots
        self.services = tuple(services)
        self.procs: dict[str, subprocess.Popen] = {}
        self._commands: dict[str, list[str]] = {}

    def _get(self, name: str, default: str) -> str:
        return self.env.get(f"FRONTIER_{name.upper()}", default)

    @property
    def judge_url(self) -> str:
        return self._get("judge_url", f"http://127.0.0.1:{self._get('judge_port', '8000')}")

    @property
    def evaluator_url(self) -> str:
        return self._get("evaluator_url", f"http://127.0.0.1:{self._get('evaluator_port', '8002')}")

    @property
    def merger_url(self) -> str:
        return self._get("merger_url", f"http://127.0.0.1:{self._get('merger_port', '8001')}")

    def url(self, service: str) -> str:
        """The base URL of `service` (judge, merger or evaluator)."""
        return {"judge": self.judge_url, "evaluator": self.evaluator_url, "merger": self.merger_url}[service]

    @classmethod
    def bring_up(cls, log_dir: Path, services: Sequence[str] = SERVICES, *, console=None) -> LocalStack:
        """The services, reusing what already answers (started by `make up`, say) and starting the rest
        here as child processes; closing the returned stack stops only what it started."""
        from services.settings import get_settings

        probe = cls(log_dir, services=())
        missing = [s for s in services if not probe.healthy(s)]
        say = console.print if console is not None else (lambda *_: None)
        for s in services:
            if s not in missing:
                say(f"{s}: answering at {probe.url(s)}")
        stack = cls(log_dir, judge_slots=get_settings().slots, services=missing)
        if missing:
            say(f"starting {', '.join(missing)} (an API and a worker each) here; logs in {log_dir}")
            stack.start()
        return stack

    def _spawn(self, name: str, args: list[str]) -> None:
        log = open(self.log_dir / f"{name}.log", "ab")  # noqa: SIM115 - lives as long as the process
        self.procs[name] = subprocess.Popen(
            [sys.executable, *args], cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT
        )
        self._commands[name] = args

    def respawn(self, name: str) -> None:
        """Start a process of the stack again (after it was stopped or killed) with the same command."""
        if self.procs[name].poll() is None:
            raise RuntimeError(f"{name} is still running")
        self._spawn(name, self._commands[name])

    def start(self, timeout_s: float = 120) -> LocalStack:
        redis_url = self._get("redis_url", "redis://127.0.0.1:6379/0")
        if "judge" in self.services:
            self._spawn("judge-api", ["-m", "services.judge.cli", "serve"])
            slots = str(self.judge_slots)
            self._spawn("judge-worker", ["-m", "services.judge.cli", "worker", "--slots", slots])
        if "evaluator" in self.services:
            port = self.evaluator_url.rsplit(":", 1)[1].split("/")[0]
            self._spawn("evaluator-api", ["-m", "services.evaluator.cli", "serve", "--port", port])
            self._spawn("evaluator-worker", ["-m", "services.evaluator.cli", "worker"])
        if "merger" in self.services:
            port = self.merger_url.rsplit(":", 1)[1].split("/")[0]
            self._spawn("merger-api", ["-m", "services.merger.cli", "serve", "--port", port, "--redis-url", redis_url])
            self._spawn("merger-worker", ["-m", "services.merger.cli", "worker", "--redis-url", redis_url])
        try:
            self.wait_healthy(timeout_s)
        except BaseException:
            self.close()
            raise
        return self

    def healthy(self, service: str) -> bool:
        """Whether the service's API answers and sees at least one worker."""
        import httpx

        try:
            return httpx.get(self.url(service) + "/healthz", timeout=2).json().get("workers", 0) >= 1
        except (httpx.HTTPError, ValueError, AttributeError):
            return False

    def wait_healthy(self, timeout_s: float) -> None:
        """Until every service answers and sees a worker; a child that dies says why at once."""
        deadline = time.monotonic() + timeout_s
        pending = list(self.services)
        while pending:
            for name, p in self.procs.items():
                if p.poll() is not None:
                    raise RuntimeError(f"{name} exited with {p.returncode}:\n{self.log_tail(name)}")
            pending = [s for s in pending if not self.healthy(s)]
            if pending and time.monotonic() > deadline:
                logs = "\n".join(f"--- {n}\n{self.log_tail(n)}" for n in self.procs)
                raise RuntimeError(f"{', '.join(pending)} did not come up in {timeout_s:.0f} s\n{logs}")
            time.sleep(0.2)

    def log_tail(self, name: str, chars: int = 3000) -> str:
        path = self.log_dir / f"{name}.log"
        return path.read_text(errors="replace")[-chars:] if path.exists() else ""

    def close(self) -> None:
        for p in self.procs.values():
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in self.procs.values():
            try:
                p.wait(15)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        self.procs.clear()

    def __enter__(self) -> LocalStack:
        return self.start() if self.services and not self.procs else self

    def __exit__(self, *exc) -> None:
        self.close()
