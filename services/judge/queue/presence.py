"""Which judge worker loops are alive now: what /healthz counts, how finely batches are cut, and a worker
container's health check.

RQ's own registry is no good for this: it lists a worker until the worker's key expires, worker_ttl + 60 s
after its last heartbeat (an idle loop beats once per blocking dequeue, about every 45 s), and a Redis
restarted from its append-only file brings back every worker it ever knew. After a Redis restart /healthz
counted workers that were long gone for minutes.

So each worker process beats, every `BEAT_S`, one key of its own, `P:live:<host>.<pid>`, whose value is the
number of its loops that run, with a time to live of `TTL_S` kept by Redis itself (no clocks are compared
across hosts). The set `P:live` names those keys; a reader sums the values of the keys that still exist and
drops the names of those that expired. Hence:
  - a worker that stops (SIGTERM, drained) deletes its key and leaves at once;
  - a worker that is killed, or whose host is lost, leaves within `TTL_S`;
  - after a Redis restart, persisted or not, the count is right again within `TTL_S` (stale keys from the
    append-only file expire; live workers write theirs again within `BEAT_S`).
"""

from __future__ import annotations

import logging
import os
import socket
import threading
from collections.abc import Callable

import redis

log = logging.getLogger(__name__)

BEAT_S = 2.0
TTL_S = 10.0


def process_name() -> str:
    """This worker process's name among the live: host and pid."""
    return f"{socket.gethostname()}.{os.getpid()}"


def live_set(prefix: str) -> str:
    return f"{prefix}:live"


def live_key(prefix: str, name: str) -> str:
    return f"{prefix}:live:{name}"


def beat(conn: redis.Redis, prefix: str, name: str, loops: int, ttl_s: float = TTL_S) -> None:
    """Say that `name` runs `loops` worker loops, for the next `ttl_s` seconds."""
    with conn.pipeline(transaction=True) as pipe:
        pipe.set(live_key(prefix, name), loops, px=int(ttl_s * 1000))
        pipe.sadd(live_set(prefix), name)
        pipe.execute()


def leave(conn: redis.Redis, prefix: str, name: str) -> None:
    """`name` is gone: it no longer counts."""
    with conn.pipeline(transaction=True) as pipe:
        pipe.delete(live_key(prefix, name))
        pipe.srem(live_set(prefix), name)
        pipe.execute()


def live_loops(conn: redis.Redis, prefix: str, host: str | None = None) -> int:
    """The worker loops alive now (those of `host` only, when given); forgets processes whose key expired."""
    names = sorted(n.decode() for n in conn.smembers(live_set(prefix)))
    if not names:
        return 0
    values = conn.mget([live_key(prefix, n) for n in names])
    gone = [n for n, v in zip(names, values, strict=True) if v is None]
    if gone:
        conn.srem(live_set(prefix), *gone)
    total = 0
    for name, value in zip(names, values, strict=True):
        if value is None or (host is not None and name.rsplit(".", 1)[0] != host):
            continue
        try:
            total += max(0, int(value))
        except ValueError:
            continue
    return total


class Presence:
    """A side thread that beats for this process every `BEAT_S` while `loops()` says how many loops run."""

    def __init__(self, connect: Callable[[], redis.Redis], prefix: str, loops: Callable[[], int]):
        self._connect = connect
        self._prefix = prefix
        self._loops = loops
        self.name = process_name()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="judge-presence", daemon=True)

    def start(self) -> Presence:
        self._thread.start()
        return self

    def _run(self) -> None:
        conn = self._connect()
        while True:
            try:
                beat(conn, self._prefix, self.name, self._loops())
            except redis.RedisError as err:  # Redis away: beat again once it is back
                log.debug("presence: %s", err)
            if self._stop.wait(BEAT_S):
                return

    def stop(self) -> None:
        """Stop beating and leave now (a drained worker is gone from /healthz before it exits)."""
        self._stop.set()
        self._thread.join(timeout=5)
        try:
            leave(self._connect(), self._prefix, self.name)
        except redis.RedisError as err:
            log.debug("presence: could not leave: %s", err)
