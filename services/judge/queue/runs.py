"""Runs: one program, one stdin, no tests, its raw output back. The job kind behind the compat APIs.

A run goes through the judge's own queue to the same `JudgeWorker` loops and the same Engine slots as
a judged batch, so it gets the same sandbox (namespaces, cgroup memory limit, seccomp, its own uid).
What differs from judging: there is no expected output and no checker; the worker returns the
program's exit status, times, peak memory, stdout and stderr, and the compat layers decide what those
mean in their clients' terms.

Redis layout (P = settings.redis_prefix), beside the batches' (`services.judge.queue.batches`):
    P:run:<id>:req    string  the RunRequest's `tag` (what a compat layer needs later, e.g. Judge0's
                              expected output) and its `client`; present from submit on, so a run id
                              is known at once
    P:run:<id>:started string present once a worker took the run (Judge0's status 2, Processing)
    P:run:<id>:res    string  RunOutcome JSON, written once by the worker
    P:run:<id>:done   list    one token once the outcome is written (`wait` blocks on it with BLMOVE
                              onto itself; the API's waiting routes read `res` together: RunWaiters)
    P:run:<id>:carry  string  a run carried past its deadline to its client's retry (queue/carry.py)

A run counts as one unit of the judge's queue depth (P:queued) from submit until its outcome is
written, so runs and batches share FRONTIER_MAX_QUEUE_DEPTH and its 429 (`QueueFull`).
"""

from __future__ import annotations

import json
import logging
import uuid

import redis
import redis.asyncio as aioredis
from rq import Retry

from services.judge.queue import depth, fair
from services.judge.queue.batches import (
    Keys,
    failure_reason,
    judge_queue,
)
from services.judge.queue.fair import FairKeys
from services.judge.queue.run_models import (
    RunOutcome,
    RunRequest,
)
from services.judge.queue.waiting import Waiters, wait_for
from services.settings import Settings

log = logging.getLogger(__name__)

RUN_FUNC = "services.judge.worker.runs.run_job"  # the worker side of a run


class QueueFull(RuntimeError):
    """The judge's queue holds FRONTIER_MAX_QUEUE_DEPTH units already; retry later."""


# KEYS: res, done, queued, client's queued. ARGV: outcome JSON, ttl_s (fair.RECORD_RUN_LUA).
_RECORD_LUA = (
    fair.RECORD_RUN_LUA
    + """
record_run(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[1], ARGV[2])
return 1
"""
)


def _key(settings: Settings, run_id: str, part: str) -> str:
    return f"{settings.redis_prefix}:run:{run_id}:{part}"


def _record(conn: redis.Redis, settings: Settings, run_id: str, client: str, outcome: RunOutcome) -> None:
    """Write the run's outcome (the first one written stands and frees its queue units); wake its waiters."""
    prefix = settings.redis_prefix
    keys = [
        _key(settings, run_id, "res"),
        _key(settings, run_id, "done"),
        Keys(prefix).queued,
        FairKeys(prefix).client_depth(client),
    ]
    conn.eval(_RECORD_LUA, len(keys), *keys, outcome.model_dump_json(), settings.result_ttl_s)


# -- the API side -----------------------------------------------------------------------------------
def submit(conn: redis.Redis, settings: Settings, request: RunRequest, target: int | None = None) -> str:
    """Enqueue a run on its client's fair queue (docs/spec.md 6.8); returns its id. QueueFull when the
    judge's queue, or the client's share of it, is at its limit. `target`: the worker loops (the
    lookahead the fair queues keep on the RQ queue), where the caller knows it."""
    admitted = depth.admit(conn, settings, request.client, 1)
    if admitted == depth.CLIENT_FULL:
        raise QueueFull(
            f"client {request.client}'s share of the judge's queue is full ({settings.client_queue_limit()} "
            "units waiting, FRONTIER_MAX_CLIENT_QUEUE_DEPTH)"
        )
    if admitted < 0:
        raise QueueFull(f"the judge's queue is full ({settings.max_queue_depth} units waiting)")
    run_id = uuid.uuid4().hex
    queue = judge_queue(conn, settings)
    with conn.pipeline(transaction=True) as pipe:
        # the tag, and whose run it is (only that client, or the operator, reads it: docs/spec.md 9.7)
        stored = {**request.tag, "client": request.client}
        pipe.set(_key(settings, run_id, "req"), json.dumps(stored), ex=settings.result_ttl_s)
        data = queue.prepare_data(
            RUN_FUNC,
            args=(run_id, request.model_dump(mode="json", exclude={"tag"})),
            timeout=-1,
            result_ttl=0,
            failure_ttl=settings.result_ttl_s,
            description=f"run {run_id}",
            retry=Retry(max=settings.job_retries) if settings.job_retries else None,
            job_id=uuid.uuid4().hex,
        )
        # a run nobody can take the answer of any more is dropped from its queue, no worker taking it
        # (services/judge/queue/fair.py); not one whose caller asked for a callback (the worker sends it)
        fair.enqueue(
            conn, settings, pipe, request.client, [data], [1], [None if request.callback else run_id]
        )
        try:
            pipe.execute()
        except BaseException:
            depth.release(conn, settings, request.client, 1)
            raise
    fair.pump(conn, settings, target)
    return run_id


async def tag(aconn: aioredis.Redis, settings: Settings, run_id: str) -> dict | None:
    """The run's tag, or None for a run id never accepted (or expired)."""
    raw = await aconn.get(_key(settings, run_id, "req"))
    return None if raw is None else json.loads(raw)


async def started(aconn: aioredis.Redis, settings: Settings, run_id: str) -> bool:
    """Whether a worker has taken the run (it may be done since)."""
    return bool(await aconn.exists(_key(settings, run_id, "started")))


async def forget(aconn: aioredis.Redis, settings: Settings, run_id: str) -> None:
    """Drop a finished run's keys (Judge0's DELETE)."""
    await aconn.delete(*(_key(settings, run_id, part) for part in ("req", "started", "res", "done")))


async def wait(aconn: aioredis.Redis, settings: Settings, run_id: str, wait_s: float) -> RunOutcome | None:
    """The run's outcome, waiting up to `wait_s` for it; None if it is not done by then."""
    raw = await wait_for(aconn, _key(settings, run_id, "res"), _key(settings, run_id, "done"), wait_s)
    return None if raw is None else RunOutcome.model_validate_json(raw)


class RunWaiters(Waiters):
    """The API's waits on runs' outcomes, looked up together: one MGET of every waited run's result
    per tick (services/judge/queue/waiting.py)."""

    def __init__(self, aconn: aioredis.Redis, settings: Settings):
        super().__init__(self._results)
        self.aconn, self.settings = aconn, settings

    async def _results(self, run_ids):
        return await self.aconn.mget([_key(self.settings, run_id, "res") for run_id in run_ids])

    async def outcome(self, run_id: str, wait_s: float) -> RunOutcome | None:
        """`wait`, shared with every other waiter."""
        raw = await self.wait(run_id, wait_s)
        return None if raw is None else RunOutcome.model_validate_json(raw)


def answer_failed(conn: redis.Redis, settings: Settings, job) -> RunOutcome:
    """Answer a run job that failed for good (its worker lost more times than FRONTIER_JOB_RETRIES
    allows) with a judge_error outcome, so its caller gets an internal error at once instead of waiting
    out FRONTIER_JUDGE_WAIT_S. Called by the reaper (which sends its callback: queue/notify.py); a run
    already answered keeps its outcome. Returns the outcome."""
    run_id = job.args[0]
    reason = failure_reason(job)
    attempts = settings.job_retries + 1
    outcome = RunOutcome(
        status="judge_error",
        message=f"the judge could not finish this run after {attempts} attempt(s): {reason}",
    )
    log.warning("run %s (job %s) failed for good: %s", run_id, job.id, reason)
    client = (job.args[1] if len(job.args) > 1 and isinstance(job.args[1], dict) else {}).get(
        "client", "anonymous"
    )
    _record(conn, settings, run_id, client, outcome)
    return outcome
