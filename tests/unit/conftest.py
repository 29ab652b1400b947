"""The unit tier: tests that need neither root nor Redis (`make test-unit` runs them as nobody, with no
Redis). A test here that opens a Redis connection fails at once, whatever FRONTIER_REDIS_URL says."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True, scope="session")
def _no_redis_in_the_unit_tier():
    try:
        from redis.connection import AbstractConnection
    except ImportError:  # pragma: no cover - redis is a dependency
        yield
        return

    def refuse(self, *args, **kwargs):
        raise AssertionError("the unit tier connects to no Redis: this test belongs in tests/stack")

    connect = AbstractConnection.connect
    AbstractConnection.connect = refuse
    yield
    AbstractConnection.connect = connect
