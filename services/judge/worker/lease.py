"""A judge worker's job leases, renewed by a process of its own (issue 28: liveness never waits on judging).

A worker renews the lease of each job it runs (its score in RQ's StartedJobRegistry, the execution's
keys, the worker's own key) every fifth of a lease. Renewed from a thread of the judging process, a
renewal waits for the GIL: one C call that holds it for longer than the lease (a slow pattern over a
program's output, a big-integer conversion) would let the lease lapse, and the reaper would hand the
job to a second worker while the first still judges it. So the renewals are sent by a small child
process, `python -m services.judge.worker.lease`, which holds no GIL of the worker's and imports no judge
code: the worker tells it over a pipe which jobs to hold and when to let them go.

The keeper ends when the pipe closes: the worker exited or was killed (even by SIGKILL, the kernel
closes its end), and its leases then lapse as they should. A keeper that dies is started again at the
next hold or release and takes over every lease still held; a job falls back to a renewal thread only
when no keeper can be started.

The session manager's heartbeat key (docs/spec.md 6.6) is held the same way: the keeper extends its
expiry, so a judgement that holds the GIL does not make the API declare the sessions beside it dead.

Protocol (one JSON object a line on the keeper's stdin), each lease renewed every `every_s`:
    {"op": "hold", "token", "every_s", "kind": "job", "job_id", "execution_id", "queue", "worker_key",
     "ttl", "worker_ttl"}
    {"op": "hold", "token", "every_s", "kind": "touch", "key", "ttl_ms"}   (PEXPIRE of a key that exists)
    {"op": "release", "token"}
"""

from __future__ import annotations

import json
import logging
import os
import select
import signal
import subprocess
import sys
import threading
import time
from urllib.parse import quote

log = logging.getLogger(__name__)

MAX_LINE_BYTES = 64 << 10


class LeaseKeeper:
    """The worker's side: the keeper process and the jobs it holds."""

    def __init__(self, redis_url: str):
        self.redis_url = redis_url
        self._lock = threading.Lock()
        self._proc: subprocess.Popen | None = None
        self._held: dict[str, dict] = {}  # what a keeper started again is told at once

    def _send(self, message: dict) -> bool:
        line = (json.dumps(message) + "\n").encode()
        with self._lock:
            for _ in range(2):  # a keeper that died is started again, once
                if self._proc is None or self._proc.poll() is not None:
                    self._start()
                try:
                    self._proc.stdin.write(line)
                    self._proc.stdin.flush()
                    return True
                except (BrokenPipeError, OSError, AttributeError):
                    self._stop()
        return False

    def _replay(self) -> None:
        """A fresh keeper takes over every lease held: the jobs in hand keep theirs."""
        data = b"".join((json.dumps(m) + "\n").encode() for m in self._held.values())
        if data and self._proc is not None:
            self._proc.stdin.write(data)
            self._proc.stdin.flush()

    def _start(self) -> None:
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-m", "services.judge.worker.lease"],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                close_fds=True,
                env={
                    **os.environ,
                    "PYTHONPATH": os.pathsep.join(p for p in sys.path if p),
                    "FRONTIER_LEASE_REDIS_URL": self.redis_url,  # never in argv, where ps shows it
                },
            )
        except OSError as err:
            log.warning("lease keeper: cannot start: %s", err)
            self._proc = None
            return
        try:
            self._replay()
        except OSError:
            pass

    def _stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            try:
                proc.stdin.close()
            except OSError:
                pass
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    def start(self) -> None:
        """Start the keeper ahead of the first lease (a start under load takes a while)."""
        with self._lock:
            if self._proc is None or self._proc.poll() is not None:
                self._start()

    def hold(self, token: str, every_s: float, kind: str = "job", **lease) -> bool:
        """Renew this lease every `every_s` from the keeper until `release`; False when no keeper could take it."""
        message = {"op": "hold", "token": token, "every_s": every_s, "kind": kind, **lease}
        with self._lock:
            self._held[token] = message
        if self._send(message):
            return True
        with self._lock:
            self._held.pop(token, None)
        return False

    def release(self, token: str) -> None:
        with self._lock:
            self._held.pop(token, None)
        self._send({"op": "release", "token": token})

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None and self._proc.poll() is None else None

    def close(self) -> None:
        with self._lock:
            self._stop()


_KEEPERS: dict[str, LeaseKeeper] = {}
_KEEPERS_LOCK = threading.Lock()


def redis_url(conn) -> str:
    """The URL of a client's Redis (what the keeper connects to), from its connection settings."""
    kw = conn.connection_pool.connection_kwargs
    if kw.get("path"):
        return f"unix://{kw['path']}?db={kw.get('db', 0)}"
    auth = ""
    if kw.get("password"):
        auth = f"{quote(kw.get('username') or '', safe='')}:{quote(kw['password'], safe='')}@"
    from services.judge.queue.connection import url_scheme

    scheme = url_scheme(conn)
    return f"{scheme}://{auth}{kw.get('host', 'localhost')}:{kw.get('port', 6379)}/{kw.get('db', 0)}"


def shared_keeper(conn) -> LeaseKeeper:
    """This process's keeper for `conn`'s Redis: one, shared by the worker loops and the session manager."""
    url = redis_url(conn)
    with _KEEPERS_LOCK:
        if url not in _KEEPERS:
            _KEEPERS[url] = LeaseKeeper(url)
        return _KEEPERS[url]


def close_keepers() -> None:
    with _KEEPERS_LOCK:
        for keeper in _KEEPERS.values():
            keeper.close()
        _KEEPERS.clear()


def renew(conn, lease: dict) -> None:
    """What RQ's Worker.maintain_heartbeats writes, for a job this process does not run."""
    from rq.executions import Execution
    from rq.job import Job
    from rq.registry import StartedJobRegistry
    from rq.utils import now, utcformat

    ttl = int(lease["ttl"])
    job = Job(lease["job_id"], connection=conn)
    execution = Execution(lease["execution_id"], lease["job_id"], connection=conn)
    registry = StartedJobRegistry(lease["queue"], connection=conn)
    with conn.pipeline() as pipe:
        pipe.hset(lease["worker_key"], "last_heartbeat", utcformat(now()))
        pipe.expire(lease["worker_key"], int(lease["worker_ttl"]))
        execution.heartbeat(registry, ttl, pipeline=pipe)
        index = len(pipe)
        job.heartbeat(now(), ttl, pipeline=pipe, xx=True)
        created = pipe.execute()[index]
        if created == 1:  # the job finished and was deleted meanwhile: leave no husk behind
            conn.delete(job.key)


def _renew_one(conn, lease: dict) -> None:
    if lease.get("kind") == "touch":
        conn.pexpire(lease["key"], int(lease["ttl_ms"]))
    else:
        renew(conn, lease)


def serve(url: str, stdin_fd: int = 0) -> None:
    """The keeper process: renew each held lease every its `every_s` until stdin closes."""
    import rq.executions  # noqa: F401 - imported now, not at the first renewal
    import rq.registry  # noqa: F401

    from services.redis_conn import open_redis

    conn = open_redis(url, answer_s=2.0)
    held: dict[str, dict] = {}
    due: dict[str, float] = {}
    buf = b""
    while True:
        wait = max(0.0, min(due.values(), default=time.monotonic() + 60) - time.monotonic())
        ready, _, _ = select.select([stdin_fd], [], [], wait)
        if ready:
            data = os.read(stdin_fd, 1 << 16)
            if not data:
                return  # the worker is gone: what it held lapses
            buf += data
            *lines, buf = buf.split(b"\n")
            if len(buf) > MAX_LINE_BYTES:
                buf = b""
            for line in lines:
                try:
                    msg = json.loads(line)
                    if msg["op"] == "hold":
                        float(msg["every_s"])
                        held[msg["token"]] = msg
                        due[msg["token"]] = time.monotonic()  # a new lease is renewed at once
                    elif msg["op"] == "release":
                        held.pop(msg["token"], None)
                        due.pop(msg["token"], None)
                except (ValueError, KeyError, TypeError):
                    log.warning("lease keeper: bad message %r", line[:200])
        now = time.monotonic()
        for token, at in list(due.items()):
            if at <= now:
                lease = held[token]
                try:
                    _renew_one(conn, lease)
                except Exception as err:  # noqa: BLE001 - Redis away: the next round tries again
                    log.warning("lease keeper: cannot renew %s: %s", token, err)
                due[token] = now + float(lease["every_s"])


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING)
    # a drain (SIGTERM, or ^C to the worker's process group) lets the worker finish its jobs in
    # hand: their leases go on until the worker exits and the pipe closes
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    serve(os.environ["FRONTIER_LEASE_REDIS_URL"])
