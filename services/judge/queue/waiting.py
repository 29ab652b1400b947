"""Waiting on results many requests wait for at once: one lookup of every waited key per tick.

A route that waits for its work (a /run_code run, a /judge batch) used to poll Redis on its own: a GET
and a blocking BLMOVE per waiter and step, each on a connection of its own. Under a trainer's burst
(256 requests in flight) those round trips took a third of the API's event loop, and a loop that busy
reads new requests seconds late: late enough that their 504 came after the client's own timeout
(bench/burst_bench.py). `Waiters` looks up every waited key in one round trip per `tick_s`, whatever
the number of waiters; a result comes to its waiter at most `tick_s` after it is written.

One per API process and event loop: the lookup task runs while anyone waits and ends when nobody does.
`LoopLag` measures how late the loop runs, which the routes take off a request's deadline.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

TICK_S = 0.1

Lookup = Callable[[Sequence[str]], Awaitable[Sequence[Any]]]

WAIT_STEP_S = 5.0  # the longest single blocking read of a `done` list


async def wait_for(aconn, result_key: str, done_key: str, wait_s: float) -> bytes | None:
    """One waiter's read of a result written at `result_key` by a worker that then pushes to the
    `done_key` list: the result, waiting up to `wait_s` (blocked on Redis, not polling: BLMOVE of the
    list onto itself wakes at the push); None if it is not there by then. `aconn` is an asyncio Redis
    client (the caller's, so that this module needs no Redis import)."""
    deadline = time.monotonic() + wait_s
    while True:
        raw = await aconn.get(result_key)
        if raw is not None:
            return raw
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        await aconn.blmove(done_key, done_key, min(left, WAIT_STEP_S), "LEFT", "RIGHT")


class Waiters:
    """`lookup(ids)` answers, in one round trip, each id's result or None (not there yet)."""

    def __init__(self, lookup: Lookup, tick_s: float = TICK_S):
        self.lookup, self.tick_s = lookup, tick_s
        self._waiting: dict[str, set[asyncio.Future]] = {}
        self._task: asyncio.Task | None = None

    def __len__(self) -> int:
        """The ids waited on now."""
        return len(self._waiting)

    async def wait(self, key: str, wait_s: float) -> Any | None:
        """`key`'s result, waiting up to `wait_s` for it; None if there is none by then (with no time
        to wait: one lookup of its own, at once). An error of the lookup (a RedisError: Redis gone)
        is raised to every waiter of that tick, as its own lookup would have."""
        if wait_s <= 0:
            return (await self.lookup([key]))[0]
        loop = asyncio.get_running_loop()
        if self._task is not None and self._task.get_loop() is not loop:  # a new loop (a test's app)
            self._waiting, self._task = {}, None
        future = loop.create_future()
        self._waiting.setdefault(key, set()).add(future)
        if self._task is None or self._task.done():
            self._task = loop.create_task(self._look())
        try:
            return await asyncio.wait_for(future, wait_s)
        except TimeoutError:
            return None
        finally:
            futures = self._waiting.get(key)
            if futures is not None:
                futures.discard(future)
                if not futures:
                    del self._waiting[key]

    async def _look(self) -> None:
        while self._waiting:
            keys = list(self._waiting)
            try:
                found = await self.lookup(keys)
            except Exception as err:  # noqa: BLE001 - a waiter fails as its own lookup would have
                for futures in self._waiting.values():
                    for future in futures:
                        if not future.done():
                            future.set_exception(err)
            else:
                for key, result in zip(keys, found, strict=True):
                    if result is not None:
                        for future in self._waiting.get(key, ()):
                            if not future.done():
                                future.set_result(result)
            await asyncio.sleep(self.tick_s)


class LoopLag:
    """How late this event loop runs: a ticker asks to wake every `tick_s` and records how much later it
    woke; `now()` is the longest such delay over the last `window_s` (a sliding-window maximum, O(1)
    per call). A loop that busy reads requests late and sends answers late by about as much, so the
    routes answer a deadline that much earlier (docs/spec.md 6.7). 0.0 until `run` runs."""

    def __init__(self, tick_s: float = 0.1, window_s: float = 30.0):
        self.tick_s, self.window_s = tick_s, window_s
        self._peaks: deque[tuple[float, float]] = deque()  # (when, delay), delays decreasing

    def record(self, at: float, delay: float) -> None:
        while self._peaks and self._peaks[-1][1] <= delay:
            self._peaks.pop()
        self._peaks.append((at, delay))

    def now(self) -> float:
        horizon = time.monotonic() - self.window_s
        while self._peaks and self._peaks[0][0] < horizon:
            self._peaks.popleft()
        return self._peaks[0][1] if self._peaks else 0.0

    def peak(self) -> float:
        """`now()` without changing anything: for a reader on another thread (the /metrics scrape)."""
        horizon = time.monotonic() - self.window_s
        return max((delay for at, delay in list(self._peaks) if at >= horizon), default=0.0)

    async def run(self) -> None:
        """Tick until cancelled (the app's lifespan runs it)."""
        while True:
            asked = time.monotonic() + self.tick_s
            await asyncio.sleep(self.tick_s)
            woke = time.monotonic()
            self.record(woke, max(0.0, woke - asked))
