"""What the judge API's routes share: the settings, the Redis connections and keys, the metrics, the
problem limits (`JudgeState`, one per app, reached through the `JudgeStateDep` dependency), and the
reaper thread that answers for jobs lost with their worker."""

from __future__ import annotations

import logging
import threading
import time
from typing import Annotated

from fastapi import Depends, Request

from services.judge.api.metrics import Metrics
from services.judge.queue.batches import Keys, connect
from services.judge.queue.connection import RedisError, connect_async
from services.judge.queue.presence import live_loops
from services.judge.queue.reaper import reap
from services.judge.queue.waiting import LoopLag, Waiters
from services.problems.store import ProblemLimits
from services.settings import Settings

log = logging.getLogger("services.judge.api")

WAIT_STEP_S = 5.0
_REAP_INTERVAL_S = 1.0


class JudgeState:
    """One app's connections, keys, metrics and limits, shared by its routes."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self.keys = Keys(settings.redis_prefix)
        self.conn = connect(settings)
        # blocking waits hold a connection each; they get their own pool and a socket timeout above the
        # wait. A burst holds one per request in flight (a trainer's 256 /run_code calls): past
        # FRONTIER_REDIS_MAX_CONNECTIONS a request waits for a free connection instead of failing
        self.aconn = connect_async(
            settings, max_connections=settings.redis_max_connections, blocking_s=WAIT_STEP_S, answer_s=10
        )
        # every waiting /judge request's batch looked up together, one round trip per tick
        self.batch_waiters = Waiters(self._batches_done)
        self.metrics = Metrics(settings, self.conn, self.n_workers)
        self.loop_lag = LoopLag()  # how late the event loop runs (the app's lifespan ticks it)
        self.metrics.loop_lag.set_function(self.loop_lag.peak)
        self.limits = ProblemLimits.from_settings(settings)
        self._workers = (0.0, 0)

    async def _batches_done(self, batch_ids) -> list[bool | None]:
        """For each batch: True once its done list holds its token, else None (services/judge/queue/waiting.py)."""
        async with self.aconn.pipeline(transaction=False) as pipe:
            for batch_id in batch_ids:
                pipe.exists(self.keys.done(batch_id))
            found = await pipe.execute()
        return [True if n else None for n in found]

    def n_workers(self) -> int:
        """Worker loops alive now (services/judge/queue/presence.py; cached for 2 s): what /healthz counts and
        how finely a batch is cut into jobs."""
        at, n = self._workers
        if time.monotonic() - at > 2:
            n = live_loops(self.conn, self.settings.redis_prefix)
            self._workers = (time.monotonic(), n)
        return n


def reaper(state: JudgeState, stop: threading.Event) -> None:
    while not stop.wait(_REAP_INTERVAL_S):
        try:
            reap(state.conn, state.settings)
        except RedisError as err:
            log.debug("reaper: %s", err)
        except Exception:  # noqa: BLE001 - the reaper must outlive any one bad job
            log.exception("reaper")


async def judge_state(request: Request) -> JudgeState:  # async: a def dependency costs a thread hop
    """The app's JudgeState (made by create_app): what a route declares as `state: JudgeStateDep`."""
    return request.app.state.judge


JudgeStateDep = Annotated[JudgeState, Depends(judge_state)]
