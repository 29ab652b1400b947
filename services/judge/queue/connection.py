"""The judge's Redis client, for the modules outside queue/: its types, its errors and the API's async
connection. Only services/judge/queue/ (and services/redis_conn.py, which opens every connection)
imports `redis` (tests/unit/test_layers.py); the API and the workers name what they hold through here."""

from __future__ import annotations

import redis
import redis.asyncio as aioredis

from services.redis_conn import open_async_pool
from services.settings import Settings

Redis = redis.Redis
AsyncRedis = aioredis.Redis
RedisError = redis.RedisError
# Redis away (not a refused command): the API answers 503 for these, a worker waits for it to return
RedisDown: tuple[type[Exception], ...] = (redis.ConnectionError, redis.TimeoutError)


def connect_async(
    settings: Settings, *, max_connections: int, blocking_s: float, answer_s: float
) -> AsyncRedis:
    """An async client on a pool of its own (services.redis_conn's policy): past `max_connections` a
    caller waits for a free connection instead of failing. Closed with its pool (`aclose`)."""
    pool = open_async_pool(
        settings, max_connections=max_connections, blocking_s=blocking_s, answer_s=answer_s
    )
    return aioredis.Redis.from_pool(pool)


def url_scheme(conn: Redis) -> str:
    """`rediss` for a client over TLS, else `redis`."""
    return "rediss" if conn.connection_pool.connection_class is redis.SSLConnection else "redis"
