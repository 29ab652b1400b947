"""The one launcher of the stack's processes: the judge, merger and evaluator (an API and workers each).

`LocalStack` starts them as child processes (`python -m services.<service>.cli serve|worker`) for
`make demo`, `frontier replicate`, the tests and the benchmarks; a test can start an API alone, any
number of workers with settings of their own, and stop or kill one to watch its jobs move on.
`python -m services.stack up|down` (`make up`, `make down`) starts Redis where none answers and every
service in the background, detached, with pid files and logs under FRONTIER_STATE_DIR/run/, and stops
exactly what it started.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parent.parent
SERVICES = ("judge", "merger", "evaluator")
CLI = {service: f"services.{service}.cli" for service in SERVICES}
DEFAULT_PORTS = {"judge": 8000, "merger": 8001, "evaluator": 8002}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LocalStack:
    """Services of the stack as child processes of this one: `services` among judge, evaluator and
    merger (an API and a worker each, on `start`), configured by FRONTIER_* variables in `env` (over
    this process's own). Logs go to `log_dir`/<name>.log. Only the processes started here are stopped.
    With `detach`, the processes outlive this one (their own sessions) and leave pid files in log_dir:
    what `python -m services.stack up` does."""

    def __init__(
        self,
        log_dir: Path,
        env: dict[str, str] | None = None,
        *,
        judge_slots: int = 2,
        services: Sequence[str] = ("judge", "evaluator"),
        detach: bool = False,
    ):
        self.log_dir = Path(log_dir)
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self.env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
        # the services find each other where this stack says they are (the evaluator asks the judge)
        for service in SERVICES:
            self.env[f"FRONTIER_{service.upper()}_URL"] = self.url(service)
        self.judge_slots = judge_slots
        self.services = tuple(services)
        self.detach = detach
        self.procs: dict[str, subprocess.Popen] = {}
        self._commands: dict[str, tuple[list[str], dict[str, str]]] = {}

    def _get(self, name: str, default: str) -> str:
        return self.env.get(f"FRONTIER_{name.upper()}", default)

    @property
    def judge_url(self) -> str:
        return self.url("judge")

    @property
    def evaluator_url(self) -> str:
        return self.url("evaluator")

    @property
    def merger_url(self) -> str:
        return self.url("merger")

    def url(self, service: str) -> str:
        """The base URL of `service` (judge, merger or evaluator)."""
        port = self._get(f"{service}_port", str(DEFAULT_PORTS[service]))
        return self._get(f"{service}_url", f"http://127.0.0.1:{port}")

    def port(self, service: str) -> int:
        return urlparse(self.url(service)).port or DEFAULT_PORTS[service]

    @classmethod
    def bring_up(cls, log_dir: Path, services: Sequence[str] = SERVICES, *, console=None) -> LocalStack:
        """The services, reusing what already answers (started by `make up`, say) and starting the rest
        here as child processes; closing the returned stack stops only what it started."""
        from services.settings import get_settings

        probe = cls(log_dir, services=())
        missing = [s for s in services if not probe.healthy(s)]
        from services.terminal import say as show

        # a configured URL or run directory, printed as written (never as markup)
        say = (lambda line: show(console, "", line)) if console is not None else (lambda *_: None)
        for s in services:
            if s not in missing:
                say(f"{s}: answering at {probe.url(s)}")
        stack = cls(log_dir, judge_slots=get_settings().slots, services=missing)
        if missing:
            say(f"starting {', '.join(missing)} (an API and a worker each) here; logs in {log_dir}")
            stack.start()
        return stack

    # -- processes ----------------------------------------------------------------------------------
    def _spawn(self, name: str, args: list[str], env: dict[str, str] | None = None) -> subprocess.Popen:
        """Start `args` (a whole command line) as the process `name`."""
        env = dict(env or {})
        log = open(self.log_dir / f"{name}.log", "ab")  # noqa: SIM115 - lives as long as the process
        proc = subprocess.Popen(
            args,
            cwd=ROOT,
            env={**self.env, **env},
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=self.detach,
        )
        log.close()  # the child holds its own copy
        if self.detach:
            (self.log_dir / f"{name}.pid").write_text(f"{proc.pid}\n")
        self.procs[name] = proc
        self._commands[name] = (args, env)
        return proc

    def start_api(self, service: str, name: str | None = None) -> subprocess.Popen:
        """Start `service`'s API on the port of its URL (`<service>-api`, unless `name` says)."""
        args = [sys.executable, "-m", CLI[service], "serve", "--port", str(self.port(service))]
        return self._spawn(name or f"{service}-api", args)

    def start_worker(
        self,
        service: str,
        *,
        name: str | None = None,
        slots: int | None = None,
        env: dict[str, str] | None = None,
    ) -> subprocess.Popen:
        """Start a worker of `service` (`<service>-worker`, then `-2`, `-3`... unless `name` says), with
        `slots` sandbox slots for a judge worker and FRONTIER_* settings of its own in `env`."""
        if name is None:
            name, i = f"{service}-worker", 2
            while name in self.procs:
                name, i = f"{service}-worker-{i}", i + 1
        args = [sys.executable, "-m", CLI[service], "worker"]
        if service == "judge":
            args += ["--slots", str(slots or self.judge_slots)]
        return self._spawn(name, args, env)

    def respawn(self, name: str) -> subprocess.Popen:
        """Start a process of the stack again (after it was stopped or killed) with the same command."""
        if self.procs[name].poll() is None:
            raise RuntimeError(f"{name} is still running")
        return self._spawn(name, *self._commands[name])

    def stop(self, name: str, sig: int = signal.SIGTERM, timeout_s: float = 15) -> None:
        """Send `sig` to one process (SIGKILL: a crash) and wait for it; killed if it outlasts timeout_s."""
        proc = self.procs[name]
        if proc.poll() is None:
            proc.send_signal(sig)
            try:
                proc.wait(timeout_s)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        (self.log_dir / f"{name}.pid").unlink(missing_ok=True)

    def start(self, timeout_s: float = 120) -> LocalStack:
        """Each service's API and one worker, then wait until every API answers and sees its worker."""
        for service in SERVICES:  # the judge first: the others ask it
            if service in self.services:
                self.start_api(service)
                self.start_worker(service)
        try:
            self.wait_healthy(timeout_s)
        except BaseException:
            self.close()
            raise
        return self

    # -- health ---------------------------------------------------------------------------------------
    def workers(self, service: str) -> int | None:
        """How many workers `service`'s API sees (a judge worker counts once per slot); None when it
        does not answer."""
        import httpx

        try:
            response = httpx.get(self.url(service) + "/healthz", timeout=2).raise_for_status()
            return int(response.json().get("workers", 0))
        except (httpx.HTTPError, ValueError, AttributeError, TypeError):
            return None

    def healthy(self, service: str) -> bool:
        """Whether the service's API answers and sees at least one worker."""
        return (self.workers(service) or 0) >= 1

    def wait_workers(self, service: str, n: int, timeout_s: float = 60, *, fail_fast: bool = False) -> None:
        """Until `service`'s API answers and sees at least `n` workers (0: until it answers). With
        `fail_fast`, a process of this stack that has exited fails the wait at once, with its log."""

        def ready() -> bool:
            workers = self.workers(service)
            return workers is not None and workers >= n

        deadline = time.monotonic() + timeout_s
        while not ready():
            for name, p in self.procs.items():
                if fail_fast and p.poll() is not None:
                    raise RuntimeError(f"{name} exited with {p.returncode}:\n{self.log_tail(name)}")
            if time.monotonic() > deadline:
                logs = "\n".join(f"--- {name}\n{self.log_tail(name)}" for name in self.procs)
                raise RuntimeError(
                    f"{service} (with {n} workers) did not come up in {timeout_s:.0f} s\n{logs}"
                )
            time.sleep(0.2)

    def wait_healthy(self, timeout_s: float) -> None:
        """Until every service answers and sees a worker; a child that dies says why at once."""
        deadline = time.monotonic() + timeout_s
        for service in self.services:
            self.wait_workers(service, 1, max(0.0, deadline - time.monotonic()), fail_fast=True)

    def log_tail(self, name: str, chars: int = 3000) -> str:
        path = self.log_dir / f"{name}.log"
        return path.read_text(errors="replace")[-chars:] if path.exists() else ""

    def close(self) -> None:
        for p in self.procs.values():
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for name, p in self.procs.items():
            try:
                p.wait(15)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
            (self.log_dir / f"{name}.pid").unlink(missing_ok=True)
        self.procs.clear()

    def __enter__(self) -> LocalStack:
        return self.start() if self.services and not self.procs else self

    def __exit__(self, *exc) -> None:
        self.close()


# -- `make up` and `make down` ----------------------------------------------------------------------
UP_ORDER = ("redis", *(f"{s}-{kind}" for s in SERVICES for kind in ("api", "worker")))


def _pid(run_dir: Path, name: str) -> int | None:
    """The pid in NAME's pid file, if that process is alive."""
    try:
        pid = int((run_dir / f"{name}.pid").read_text())
        os.kill(pid, 0)
    except (OSError, ValueError):
        return None
    return pid


def _redis_answers(url: str) -> bool:
    import redis

    from services.redis_conn import open_redis

    try:
        return bool(open_redis(url).ping())
    except redis.RedisError:
        return False


def up(timeout_s: float = 90) -> None:
    """Redis (unless one answers at FRONTIER_REDIS_URL), then each service's API and one worker, in the
    background; what already runs (by its pid file) is left as it is."""
    from services.settings import get_settings

    settings = get_settings()
    state_dir = Path(os.environ.get("FRONTIER_STATE_DIR") or ROOT / ".state")
    run_dir = state_dir / "run"
    stack = LocalStack(
        run_dir,
        {"FRONTIER_STATE_DIR": str(state_dir)},
        judge_slots=settings.slots,
        services=SERVICES,
        detach=True,
    )
    redis_url = stack._get("redis_url", settings.redis_url)
    if _redis_answers(redis_url):
        print(f"redis: answering at {redis_url} (not started here)")
    elif _pid(run_dir, "redis") is None:
        if shutil.which("redis-server") is None:
            raise SystemExit(
                f"redis: nothing answers at {redis_url} and redis-server is not installed "
                "(apt-get install redis-server, or set FRONTIER_REDIS_URL)"
            )
        where = urlparse(redis_url)
        (state_dir / "redis").mkdir(parents=True, exist_ok=True)
        # append-only file: a Redis restart keeps problems and accepted batches
        argv = ["redis-server", "--bind", where.hostname or "127.0.0.1", "--port", str(where.port or 6379)]
        argv += ["--dir", str(state_dir / "redis"), "--appendonly", "yes", "--save", ""]
        proc = stack._spawn("redis", argv)
        print(f"redis: started (pid {proc.pid}, log {run_dir}/redis.log)")
        deadline = time.monotonic() + 20
        while not _redis_answers(redis_url):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"redis: did not come up; the end of its log:\n{stack.log_tail('redis')}")
            time.sleep(0.2)
    for service in SERVICES:
        for kind in ("api", "worker"):
            name = f"{service}-{kind}"
            if (pid := _pid(run_dir, name)) is not None:
                print(f"{name}: already running (pid {pid})")
                continue
            proc = stack.start_api(service) if kind == "api" else stack.start_worker(service)
            print(f"{name}: started (pid {proc.pid}, log {run_dir}/{name}.log)")
            # a judge worker counts once per sandbox slot
            wanted = 0 if kind == "api" else (settings.slots if service == "judge" else 1)
            try:
                stack.wait_workers(service, wanted, timeout_s, fail_fast=True)
            except RuntimeError:
                raise SystemExit(
                    f"{name}: did not come up; the end of its log:\n{stack.log_tail(name)}"
                ) from None
    urls = ", ".join(f"{s} {stack.url(s)}" for s in SERVICES)
    print(f"up: {urls} (OpenAPI at /docs on each), Redis {redis_url}; 'make down' stops it")
    if os.environ.get("FRONTIER_API_TOKEN"):
        print("every endpoint but /healthz asks for 'Authorization: Bearer $FRONTIER_API_TOKEN'")


def down(grace_s: float = 20) -> None:
    """Stop what `up` started (by the pid files under FRONTIER_STATE_DIR/run/), newest first. A Redis
    that was running before `up` has no pid file there and is left alone."""
    state_dir = Path(os.environ.get("FRONTIER_STATE_DIR") or ROOT / ".state")
    run_dir = state_dir / "run"
    for name in reversed(UP_ORDER):
        pidfile = run_dir / f"{name}.pid"
        if not pidfile.exists():
            continue
        pid = _pid(run_dir, name)
        if pid is None:
            print(f"{name}: was not running")
        else:
            os.kill(pid, signal.SIGTERM)
            deadline = time.monotonic() + grace_s
            while _pid(run_dir, name) is not None and time.monotonic() < deadline:
                time.sleep(0.2)
            if _pid(run_dir, name) is not None:
                print(f"{name}: still running after {grace_s:.0f} s, killing")
                os.kill(pid, signal.SIGKILL)
            print(f"{name}: stopped (pid {pid})")
        pidfile.unlink(missing_ok=True)


if __name__ == "__main__":
    import typer

    cli = typer.Typer(no_args_is_help=True, add_completion=False, help=__doc__.split("\n\n")[0])
    cli.command("up")(up)
    cli.command("down")(down)
    cli()
