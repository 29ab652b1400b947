"""services/judge/queue/waiting.py: many requests' waits looked up together, one round trip per tick, on the
machine's real Redis (and the runs' and batches' waiters built on it)."""

from __future__ import annotations

import asyncio
import time
import uuid

import pytest
import redis
import redis.asyncio as aioredis

from services.judge.queue import deadlines, runs
from services.judge.queue.waiting import LoopLag, Waiters
from services.settings import Settings

URL = "redis://127.0.0.1:6379/0"


def _string_waiters(aconn: aioredis.Redis, calls: list[int]) -> Waiters:
    async def lookup(keys):
        calls.append(len(keys))
        return await aconn.mget(keys)

    return Waiters(lookup, tick_s=0.05)


def test_two_hundred_waiters_share_one_lookup_per_tick_and_each_gets_its_own_result():
    prefix = f"waiting-test:{uuid.uuid4().hex}"
    keys = [f"{prefix}:{i}" for i in range(200)]

    async def main():
        aconn = aioredis.Redis.from_url(URL)
        calls: list[int] = []
        waiting = _string_waiters(aconn, calls)
        try:

            async def write():
                for i, key in enumerate(keys[:-1]):  # the last is never written
                    await aconn.set(key, f"value {i}", ex=60)
                    if i % 50 == 0:
                        await asyncio.sleep(0.1)

            waits = [waiting.wait(key, 30 if key != keys[-1] else 0.5) for key in keys]
            *got, _ = await asyncio.gather(*waits, write())
            return got, calls, len(waiting)
        finally:
            await aconn.delete(*keys)
            await aconn.aclose()

    got, calls, left = asyncio.run(main())
    assert got[:-1] == [f"value {i}".encode() for i in range(199)]
    assert got[-1] is None  # never written: None once its wait ran out
    assert left == 0  # nobody is left registered
    # one lookup per tick, of every waited key at once: far fewer round trips than waiters (a
    # per-waiter poll makes at least one each, 200); slower ticks only make fewer
    assert max(calls) > 1 and len(calls) < 100, calls


def test_waiters_of_one_key_all_get_it_and_one_giving_up_leaves_the_others_waiting():
    key = f"waiting-test:{uuid.uuid4().hex}"

    async def main():
        aconn = aioredis.Redis.from_url(URL)
        waiting = _string_waiters(aconn, [])
        try:
            early = asyncio.create_task(waiting.wait(key, 0.2))
            late = [asyncio.create_task(waiting.wait(key, 30)) for _ in range(3)]
            assert await early is None
            await aconn.set(key, "done", ex=60)
            return await asyncio.gather(*late)
        finally:
            await aconn.delete(key)
            await aconn.aclose()

    assert asyncio.run(main()) == [b"done"] * 3


def test_a_redis_error_of_the_lookup_reaches_the_waiters():
    async def broken(keys):
        raise redis.ConnectionError("Redis went away")

    async def main():
        return await Waiters(broken, tick_s=0.05).wait("k", 5)

    with pytest.raises(redis.ConnectionError, match="went away"):
        asyncio.run(main())


def test_the_waiters_serve_a_second_event_loop_after_the_first_ended():
    """A test's app (or a restarted server) waits from a new loop: the lookup task is the new loop's."""
    key = f"waiting-test:{uuid.uuid4().hex}"
    waiting_holder: dict = {}

    async def first():
        aconn = aioredis.Redis.from_url(URL)
        waiting_holder["w"] = _string_waiters(aconn, [])
        # the first loop ends while its lookup task still has a waiter
        task = asyncio.create_task(waiting_holder["w"].wait(key, 30))
        await asyncio.sleep(0.1)
        task.cancel()
        await aconn.aclose()

    async def second():
        aconn = aioredis.Redis.from_url(URL)
        waiting = waiting_holder["w"]

        async def lookup(keys):
            return await aconn.mget(keys)

        waiting.lookup = lookup  # the first loop's connection is closed
        try:
            await aconn.set(key, "second", ex=60)
            return await waiting.wait(key, 10)
        finally:
            await aconn.delete(key)
            await aconn.aclose()

    asyncio.run(first())
    assert asyncio.run(second()) == b"second"


def test_run_waiters_read_a_runs_outcome_and_look_once_with_no_time_to_wait():
    settings = Settings(redis_prefix=f"waiting-test-{uuid.uuid4().hex[:8]}")
    run_id = uuid.uuid4().hex
    outcome = runs.RunOutcome(status="ok", exit_code=0, stdout="42\n")

    async def main():
        aconn = aioredis.Redis.from_url(URL)
        waiting = runs.RunWaiters(aconn, settings)
        try:
            before = await waiting.outcome(run_id, 0)
            pending = asyncio.create_task(waiting.outcome(run_id, 30))
            await asyncio.sleep(0.2)
            await aconn.set(f"{settings.redis_prefix}:run:{run_id}:res", outcome.model_dump_json(), ex=60)
            return before, await pending, await waiting.outcome(run_id, 0)
        finally:
            await aconn.delete(f"{settings.redis_prefix}:run:{run_id}:res")
            await aconn.aclose()

    before, waited, after = asyncio.run(main())
    assert before is None
    assert waited == outcome and after == outcome


# -- how late the event loop runs --------------------------------------------------------------------
def test_loop_lag_is_the_longest_delay_within_its_window():
    lag = LoopLag(window_s=30)
    now = time.monotonic()
    lag.record(now - 40, 3.0)  # outside the window: forgotten
    lag.record(now - 5, 0.4)
    lag.record(now - 1, 0.1)
    assert lag.now() == lag.peak() == 0.4
    lag.record(now, 0.7)  # a longer delay replaces the shorter ones before it
    assert lag.now() == 0.7 and len(lag._peaks) == 1
    assert LoopLag().now() == 0.0  # nothing measured yet


def test_a_blocked_loop_shows_as_lag():
    async def main():
        lag = LoopLag(tick_s=0.05)
        ticker = asyncio.create_task(lag.run())
        await asyncio.sleep(0.2)
        time.sleep(0.5)  # the loop does nothing else for 0.5 s: the ticker wakes that late at least
        await asyncio.sleep(0.2)
        ticker.cancel()
        return lag.now()

    assert asyncio.run(main()) >= 0.4


def test_a_deadline_is_answered_earlier_by_the_loops_lag():
    """wait_for stops at the deadline less lag(): with 29.9 s of lag, a deadline 30 s away is answered
    at once (the bound below is 100x what it takes)."""

    async def never(wait_s):
        await asyncio.sleep(wait_s)

    async def connected():
        return False

    async def main():
        t0 = time.monotonic()
        got = await deadlines.wait_for(never, connected, time.time() + 30, 3600, lambda: 29.9)
        return got, time.monotonic() - t0

    (result, why), took = asyncio.run(main())
    assert result is None and why == "deadline"
    assert took < 20


def test_the_judge_api_exports_its_loop_lag():
    from prometheus_client import generate_latest

    from services.judge.api.state import JudgeState

    state = JudgeState(Settings(redis_prefix=f"waiting-test-{uuid.uuid4().hex[:8]}"))
    state.loop_lag.record(time.monotonic(), 1.25)
    text = generate_latest(state.metrics.registry).decode()
    assert "frontier_judge_event_loop_lag_seconds 1.25" in text
