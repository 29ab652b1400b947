"""A judge worker's job leases, renewed by a process of its own (issue 28: liveness never waits on judging).

A worker renews the lease of each job it runs (its score in RQ's StartedJobRegistry, the execution's
keys, the worker's own key) every fifth of a lease. Renewed from a thread of the judging process, a
renewal waits for the GIL: one C call that holds it for longer than the lease (a slow pattern over a
program's output, a big-integer conversion) would let the lease lapse, and the reaper would hand the
job to a second worker while the first still judges it. So the renewals are sent by a small child
process, `python -m services.judge.lease`, which holds no GIL of the worker's and imports no judge
code: the worker tells it over a pipe which jobs to hold and when to let them go.

The keeper ends when the pipe closes: the worker exited or was killed (even by SIGKILL, the kernel
closes its end), and its leases then lapse as they should. A keeper that dies is started again for
the next job, and the job in hand falls back to a renewal thread.

Protocol (one JSON object a line on the keeper's stdin):
    {"op": "hold", "token", "job_id", "execution_id", "queue", "worker_key", "ttl", "worker_ttl"}
    {"op": "release", "token"}
"""

from __future__ import annotations

import json
import logging
import os
import select
import subprocess
import sys
import threading
import time

log = logging.getLogger(__name__)

MAX_LINE_BYTES = 64 << 10


class LeaseKeeper:
    """The worker's side: the keeper process and the jobs it holds."""

    def __init__(self, redis_url: str, interval_s: float):
        self.redis_url = redis_url
        self.interval_s = interval_s
        self._lock = threading.Lock()
        self._proc: subprocess.Popen | None = None

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

    def _start(self) -> None:
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-m", "services.judge.lease", self.redis_url, str(self.interval_s)],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                close_fds=True,
                env={**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)},
            )
        except OSError as err:
            log.warning("lease keeper: cannot start: %s", err)
            self._proc = None

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

    def hold(self, token: str, **lease) -> bool:
        """Renew this lease from the keeper until `release`; False when no keeper could take it."""
        return self._send({"op": "hold", "token": token, **lease})

    def release(self, token: str) -> None:
        self._send({"op": "release", "token": token})

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None and self._proc.poll() is None else None

    def close(self) -> None:
        with self._lock:
            self._stop()


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


def serve(redis_url: str, interval_s: float, stdin_fd: int = 0) -> None:
    """The keeper process: renew every held lease each `interval_s` until stdin closes."""
    import redis

    conn = redis.Redis.from_url(redis_url, socket_timeout=max(1.0, interval_s))
    held: dict[str, dict] = {}
    buf = b""
    due = time.monotonic()
    while True:
        ready, _, _ = select.select([stdin_fd], [], [], max(0.0, due - time.monotonic()))
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
                        held[msg["token"]] = msg
                        due = time.monotonic()  # a new lease is renewed at once
                    elif msg["op"] == "release":
                        held.pop(msg["token"], None)
                except (ValueError, KeyError, TypeError):
                    log.warning("lease keeper: bad message %r", line[:200])
        if time.monotonic() >= due:
            for lease in list(held.values()):
                try:
                    renew(conn, lease)
                except Exception as err:  # noqa: BLE001 - Redis away: the next round tries again
                    log.warning("lease keeper: cannot renew job %s: %s", lease.get("job_id"), err)
            due = time.monotonic() + interval_s


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING)
    serve(sys.argv[1], float(sys.argv[2]))
