"""The machine's Redis, shared by concurrent test sessions: each claims empty databases of its own."""

from __future__ import annotations

import os

import pytest

MAIN_REDIS = ("127.0.0.1", 6379)
CLAIM_KEY = "codefrontier:test-claim"


def claim_redis_db(dbs, host: str = "127.0.0.1", port: int = 6379):
    """Yield the URL of an empty database of the machine's Redis among `dbs`, claimed for as long as
    the generator is open (its claim key stays, so no concurrent test session takes it too), then
    flush it. Fails the test when every database is taken."""
    import redis

    for db in dbs:
        conn = redis.Redis(host, port, db=db)
        if conn.set(CLAIM_KEY, os.getpid(), nx=True, ex=3600) and conn.dbsize() == 1:
            yield f"redis://{host}:{port}/{db}"
            conn.flushdb()
            return
        if conn.get(CLAIM_KEY) == str(os.getpid()).encode():
            conn.delete(CLAIM_KEY)
    pytest.fail(f"no free Redis database among {list(dbs)} on {host}:{port}")
