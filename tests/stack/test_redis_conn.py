"""services/redis_conn.py: every service's one way to open Redis, and its one timeout policy."""

from __future__ import annotations

import asyncio
import socket

import pytest
import redis

from services.redis_conn import ANSWER_S, CONNECT_TIMEOUT_S, HEALTH_CHECK_S, open_async_pool, open_redis
from services.settings import Settings

URL = "redis://127.0.0.1:6379/0"


def _kwargs(client: redis.Redis) -> dict:
    return client.connection_pool.connection_kwargs


def test_a_plain_connection_connects_fast_and_waits_a_bounded_time_for_replies():
    client = open_redis(URL)
    try:
        kw = _kwargs(client)
        assert kw["socket_connect_timeout"] == CONNECT_TIMEOUT_S == 2.0
        assert kw["socket_timeout"] == ANSWER_S == 30.0
        assert kw["health_check_interval"] == HEALTH_CHECK_S
        assert client.ping()  # the machine's real Redis
    finally:
        client.close()


def test_blocking_waits_extend_the_read_timeout_and_none_lifts_it():
    assert _kwargs(open_redis(URL, blocking_s=1, answer_s=4))["socket_timeout"] == 5
    assert _kwargs(open_redis(URL, answer_s=2.0))["socket_timeout"] == 2.0
    assert _kwargs(open_redis(URL, blocking_s=None))["socket_timeout"] is None


def test_the_settings_name_the_redis():
    client = open_redis(Settings(redis_url="redis://127.0.0.1:6379/3"))
    assert _kwargs(client)["db"] == 3


def test_a_redis_that_is_gone_is_a_redis_error():
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(redis.ConnectionError):
        open_redis(f"redis://127.0.0.1:{port}/0").ping()


def test_the_async_pool_waits_for_a_free_connection_as_long_as_a_reply():
    pool = open_async_pool(URL, max_connections=8, blocking_s=5, answer_s=10)
    assert pool.max_connections == 8 and pool.timeout == 15
    assert pool.connection_kwargs["socket_timeout"] == 15
    assert pool.connection_kwargs["socket_connect_timeout"] == CONNECT_TIMEOUT_S

    async def ping() -> bool:
        import redis.asyncio as aioredis

        client = aioredis.Redis.from_pool(pool)
        try:
            return await client.ping()
        finally:
            await client.aclose()

    assert asyncio.run(ping())
