"""A problem's checks as queued jobs: the contract between the API, which asks, and a worker, which
compiles (services/judge/worker/check_job.py). The API runs no program: a program checker uploaded with PUT
/problems is compiled by a worker in its sandbox (services/judge/core/testlib/build.py), and the API
only waits for the answer on Redis, never on a thread. This module imports nothing that runs a program.

At most FRONTIER_MAX_CHECKS checks are queued or running at once across every API process (a sorted
set of their ids by start time; one older than CHECK_WAIT_S is stale and no longer counts): past it a
check is refused at once (`ChecksBusy`, a 503), as it is when no worker is alive. A check job goes to
the front of the judge's queue, so it waits for a free worker loop, never behind the queue's depth.
The answer is cached by an injective key of what it depends on (kind, language, encoding, source).

Redis layout (P = settings.redis_prefix), beside the batches' (`services.judge.queue.batches`):
    P:checks             zset    check ids queued or running, by their start (epoch seconds)
    P:check:<id>:res     string  CheckOutcome JSON, written once by the worker
    P:check:<id>:done    list    one token once the outcome is written (the API blocks on it)
    P:check:cache:<key>  string  a definitive CheckOutcome JSON by the check's key
"""

from __future__ import annotations

import hashlib
import json
import time
import uuid
from typing import Literal

import redis
import redis.asyncio as aioredis
from pydantic import BaseModel

from services.judge.queue.batches import judge_queue
from services.judge.queue.waiting import wait_for
from services.settings import Settings

CHECK_FUNC = "services.judge.worker.check_job.check_job"  # the worker side
CHECK_WAIT_S = 300  # how long the API waits for a check's answer (the compile's own limits are less)
CACHE_TTL_S = 7 * 86400

# admit one check: drop stale ids, then add this one unless FRONTIER_MAX_CHECKS are in flight
_ADMIT_LUA = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[4])
return 1
"""


class CheckRequest(BaseModel):
    """What to check: a program checker's source, in its language (`latin1`: an 8-bit source held as
    Latin-1 text, store.Problem.checker_latin1)."""

    kind: Literal["checker"] = "checker"
    language: str
    source: str
    latin1: bool = False


class CheckOutcome(BaseModel):
    """`ok`: it compiles; `refused`: it does not (`message`: the compiler's first errors in the
    checker); `judge_error`: the judge failed, which says nothing of the checker."""

    status: Literal["ok", "refused", "judge_error"]
    message: str | None = None


class ChecksBusy(RuntimeError):
    """FRONTIER_MAX_CHECKS checks are in flight, or no worker is alive to run one: retry later."""


def cache_key(request: CheckRequest) -> str:
    """A digest of a JSON array of every field the answer depends on: no two requests share it."""
    fields = ["check/1", request.kind, request.language, request.latin1, request.source]
    return hashlib.sha256(json.dumps(fields, ensure_ascii=True).encode("ascii")).hexdigest()


def key(settings: Settings, check_id: str, part: str) -> str:
    return f"{settings.redis_prefix}:check:{check_id}:{part}"


def in_flight_key(settings: Settings) -> str:
    return f"{settings.redis_prefix}:checks"


def cached_key(settings: Settings, request: CheckRequest) -> str:
    return f"{settings.redis_prefix}:check:cache:{cache_key(request)}"


def record(
    conn: redis.Redis, settings: Settings, check_id: str, request: CheckRequest, outcome: CheckOutcome
) -> None:
    """The worker's answer: the outcome, its waiter's token, the in-flight slot freed, the cache."""
    done = key(settings, check_id, "done")
    with conn.pipeline(transaction=True) as pipe:
        pipe.set(key(settings, check_id, "res"), outcome.model_dump_json(), ex=settings.result_ttl_s)
        pipe.rpush(done, "1")
        pipe.expire(done, settings.result_ttl_s)
        pipe.zrem(in_flight_key(settings), check_id)
        if outcome.status != "judge_error":
            pipe.set(cached_key(settings, request), outcome.model_dump_json(), ex=CACHE_TTL_S)
        pipe.execute()


# -- the API side -----------------------------------------------------------------------------------
async def admit(aconn: aioredis.Redis, settings: Settings) -> str:
    """A new check's id, counted in flight; ChecksBusy past FRONTIER_MAX_CHECKS."""
    check_id = uuid.uuid4().hex
    now = time.time()
    args = (now, now - CHECK_WAIT_S, settings.max_checks, check_id)
    if not await aconn.eval(_ADMIT_LUA, 1, in_flight_key(settings), *args):
        raise ChecksBusy(
            f"{settings.max_checks} checks are queued or running already (FRONTIER_MAX_CHECKS); retry later"
        )
    return check_id


def enqueue(conn: redis.Redis, settings: Settings, check_id: str, request: CheckRequest) -> None:
    """Put the check's job at the front of the judge's queue (a short Redis round trip)."""
    judge_queue(conn, settings).enqueue_call(
        CHECK_FUNC,
        args=(check_id, request.model_dump(mode="json")),
        timeout=-1,
        result_ttl=0,
        failure_ttl=settings.result_ttl_s,
        description=f"check {check_id}",
        job_id=uuid.uuid4().hex,
        at_front=True,
    )


async def wait(
    aconn: aioredis.Redis, settings: Settings, check_id: str, wait_s: float
) -> CheckOutcome | None:
    """The check's outcome, waiting up to `wait_s` (on Redis, not a thread); None if not done by then."""
    raw = await wait_for(aconn, key(settings, check_id, "res"), key(settings, check_id, "done"), wait_s)
    return None if raw is None else CheckOutcome.model_validate_json(raw)


async def cached(aconn: aioredis.Redis, settings: Settings, request: CheckRequest) -> CheckOutcome | None:
    raw = await aconn.get(cached_key(settings, request))
    return None if raw is None else CheckOutcome.model_validate_json(raw)


async def forget(aconn: aioredis.Redis, settings: Settings, check_id: str) -> None:
    """A check nobody waits for any more no longer counts in flight."""
    await aconn.zrem(in_flight_key(settings), check_id)


__all__ = [
    "CHECK_FUNC",
    "CHECK_WAIT_S",
    "CheckOutcome",
    "CheckRequest",
    "ChecksBusy",
    "admit",
    "cache_key",
    "cached",
    "enqueue",
    "forget",
    "record",
    "wait",
]
