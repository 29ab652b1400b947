"""One way to open Redis, with one timeout policy, for every service (the judge's API, workers and
sessions, the evaluator, the merger, the long jobs' workers, the launcher's check).

The policy:
- connecting gives up after CONNECT_TIMEOUT_S: a Redis that is gone fails a call at once, with a
  RedisError the caller turns into a 503 or a retry, instead of hanging it;
- a reply is awaited for `answer_s` (ANSWER_S unless the caller needs to notice sooner, a lease keeper
  say) past the longest blocking wait the connection issues (`blocking_s`: a BLPOP's timeout); a
  connection whose blocking waits have no useful bound (an RQ worker's dequeue, minutes) passes
  `blocking_s=None` and waits for replies without a limit: its worker's own heartbeat is what notices;
- a connection idle for HEALTH_CHECK_S is pinged before its next command (a server restarted while it
  slept is found before a command is lost on a dead socket).

It imports redis and nothing of the project, so the judge's small lease-keeper process can use it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import redis

if TYPE_CHECKING:
    import redis.asyncio as aioredis

    from services.settings import Settings

CONNECT_TIMEOUT_S = 2.0
ANSWER_S = 30.0
HEALTH_CHECK_S = 15


def _url(where: str | Settings) -> str:
    # duck-typed: the lease keeper's small process opens Redis without importing the settings
    return where if isinstance(where, str) else where.redis_url


def read_timeout_s(blocking_s: float | None = 0.0, answer_s: float = ANSWER_S) -> float | None:
    """The socket (read) timeout of the policy: `answer_s` past the longest blocking wait, or None."""
    return None if blocking_s is None else blocking_s + answer_s


def open_redis(
    where: str | Settings, *, blocking_s: float | None = 0.0, answer_s: float = ANSWER_S
) -> redis.Redis:
    """A client of the Redis at `where` (a URL, or the settings' FRONTIER_REDIS_URL) under the policy."""
    return redis.Redis.from_url(
        _url(where),
        socket_connect_timeout=CONNECT_TIMEOUT_S,
        socket_timeout=read_timeout_s(blocking_s, answer_s),
        health_check_interval=HEALTH_CHECK_S,
    )


def open_async_pool(
    where: str | Settings, *, max_connections: int, blocking_s: float = 0.0, answer_s: float = ANSWER_S
) -> aioredis.BlockingConnectionPool:
    """An asyncio connection pool under the policy: past `max_connections` a caller waits for a free
    connection as long as a reply may take (instead of failing)."""
    import redis.asyncio as aioredis

    timeout = read_timeout_s(blocking_s, answer_s)
    return aioredis.BlockingConnectionPool.from_url(
        _url(where),
        max_connections=max_connections,
        timeout=timeout,
        socket_connect_timeout=CONNECT_TIMEOUT_S,
        socket_timeout=timeout,
    )
