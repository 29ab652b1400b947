"""The judge's queue contract: the Redis keys of problems, batches and results, the job payload, how a
batch is cut into RQ jobs and how a job's results are recorded. The API process (which enqueues) and
the worker (which judges) both import this module; it imports nothing that runs a program.

A batch is deduplicated into *units*, one per distinct (code or completion, language, problem
definition) under the batch's one mode and ks; units are cut into RQ jobs whose payload carries code,
language and the problem's digest, never test data. A job's results are recorded in one Lua script:
each unit's result is written with HSETNX (so a job that runs twice answers once), and the unit that
completes the batch pushes a token onto the batch's `done` list, whose presence the waiting API
requests look up together, one round trip per tick (services/judge/queue/waiting.py).
Redis layout (P = settings.redis_prefix):
    P:problems        hash    problem id -> definition digest
    P:psum            hash    problem id -> summary JSON (GET /problems)
    P:powner          hash    problem id -> the client that first uploaded it (only it, or the
                              operator, replaces it: docs/spec.md 9.7)
    P:pdef:<digest>   string  Problem JSON: spec, test hashes, checker source, statement
    P:blob:<sha256>   string  test bytes
    P:b:<id>          hash    batch meta: n_subs, n_units, mode, ks, created_s, finished_s
    P:b:<id>:subs     string  JSON [[submission id, problem id, unit], ...] in request order
    P:b:<id>:res      hash    unit -> result JSON, with its first submission's id (written once)
    P:b:<id>:jobs     set     jobs whose results are recorded
    P:b:<id>:done     list    one token once every unit has its result
    P:queued          int     units accepted and not yet judged (backpressure)
    P:queued:<client> int     the same, per client (services.judge.queue.fair, with its P:fq:* queues)
    P:cancel:<id>     string  present once a batch's or run's caller is gone (services.judge.queue.deadlines)
    P:live            set     live worker processes; P:live:<host>.<pid> (int, its loops, a TTL) each
                              (services.judge.queue.presence)
    P:stats           hash    cluster-wide counters for /metrics
    P:rate:<second>   hash    tests and units judged in that second
    P:starved         int     when a worker last saw the host starve a run (unix s; a TTL of
                              OVERSUBSCRIBED_S): /healthz and /metrics say the host is oversubscribed
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import redis
import redis.asyncio as aioredis
from pydantic import BaseModel, ConfigDict
from rq import Queue, Retry
from rq.job import Job
from rq.serializers import JSONSerializer

from services.judge.core.models import JudgeResult, Language
from services.judge.core.options import JudgeOptions
from services.judge.core.verdicts import Verdict
from services.judge.queue import fair
from services.judge.queue.fair import FairKeys
from services.redis_conn import open_redis
from services.settings import Settings

log = logging.getLogger(__name__)

JOB_FUNC = "services.judge.worker.judge.judge_job"
RATE_WINDOW_S = 10
# how long a starved run (docs/spec.md 4.1) marks the judge's hosts oversubscribed in /healthz and /metrics
OVERSUBSCRIBED_S = 300


@dataclass(frozen=True)
class Keys:
    """Names of the judge's Redis keys under one prefix (layout in the module docstring)."""

    prefix: str

    @property
    def problems(self) -> str:
        return f"{self.prefix}:problems"

    @property
    def summaries(self) -> str:
        return f"{self.prefix}:psum"

    @property
    def problem_owners(self) -> str:
        return f"{self.prefix}:powner"

    @property
    def digest_salt(self) -> str:
        return f"{self.prefix}:digest-salt"

    def pdef(self, digest: str) -> str:
        return f"{self.prefix}:pdef:{digest}"

    def blob(self, digest: str) -> str:
        return f"{self.prefix}:blob:{digest}"

    def batch(self, batch_id: str) -> str:
        return f"{self.prefix}:b:{batch_id}"

    def subs(self, batch_id: str) -> str:
        return f"{self.prefix}:b:{batch_id}:subs"

    def results(self, batch_id: str) -> str:
        return f"{self.prefix}:b:{batch_id}:res"

    def jobs(self, batch_id: str) -> str:
        return f"{self.prefix}:b:{batch_id}:jobs"

    def done(self, batch_id: str) -> str:
        return f"{self.prefix}:b:{batch_id}:done"

    @property
    def queued(self) -> str:
        return f"{self.prefix}:queued"

    @property
    def stats(self) -> str:
        return f"{self.prefix}:stats"

    @property
    def starved(self) -> str:
        return f"{self.prefix}:starved"

    def rate(self, second: int) -> str:
        return f"{self.prefix}:rate:{second}"

    @property
    def reaper_lock(self) -> str:
        return f"{self.prefix}:reaper-lock"


# -- job payloads -----------------------------------------------------------------------------------
class Unit(BaseModel):
    """One distinct submission of a batch; `problem` is the digest of the problem's definition, `id`
    the id of the batch's first submission of it (a later one of the same program shares its result,
    answered under its own id)."""

    u: int
    id: str
    problem_id: str
    problem: str
    language: Language
    code: str | None = None
    completion: str | None = None


class JobPayload(JudgeOptions):
    """A job: some units of a batch, the batch's options (JudgeOptions' fields, at the top level) and
    how its answer is awaited."""

    model_config = ConfigDict(extra="ignore", frozen=False)

    batch: str
    units: list[Unit]
    # docs/spec.md 6.7: past this (epoch seconds) nobody waits for the answer; `cancellable`: a caller
    # waits on a connection, and the batch's cancel key says when it went away
    answer_by_s: float | None = None
    cancellable: bool = False
    client: str = "anonymous"  # whose fair queue and depth counter (docs/spec.md 6.8)


# -- connections ------------------------------------------------------------------------------------
def connect(settings: Settings) -> redis.Redis:
    """A Redis client that fails fast when Redis is gone instead of hanging."""
    return open_redis(settings)


def judge_queue(conn: redis.Redis, settings: Settings) -> Queue:
    return Queue(settings.judge_queue, connection=conn, serializer=JSONSerializer)


def chunk_units(units: Sequence[Unit], n_workers: int, max_chunk: int) -> list[list[Unit]]:
    """Cut a batch into jobs: about four jobs per worker loop (so loops share the tail), at most `max_chunk`."""
    if not units:
        return []
    per_job = -(-len(units) // (4 * max(1, n_workers)))
    per_job = max(1, min(max_chunk, per_job))
    return [list(units[i : i + per_job]) for i in range(0, len(units), per_job)]


def job_datas(
    queue: Queue,
    settings: Settings,
    batch_id: str,
    options: JudgeOptions,
    jobs: Iterable[list[Unit]],
    *,
    answer_by_s: float | None = None,
    cancellable: bool = False,
    client: str = "anonymous",
):
    """RQ enqueue data for a batch's jobs, each judged with the batch's `options`: no timeout (the
    sandbox bounds each run), retries for lost workers, an id of ours (fair.enqueue records each job's
    cost under it)."""
    datas = []
    for units in jobs:
        payload = JobPayload(
            **options.model_dump(),
            batch=batch_id,
            units=units,
            answer_by_s=answer_by_s,
            cancellable=cancellable,
            client=client,
        )
        datas.append(
            queue.prepare_data(
                JOB_FUNC,
                args=(payload.model_dump(mode="json"),),
                timeout=-1,
                result_ttl=0,
                failure_ttl=settings.result_ttl_s,
                description=f"judge batch {batch_id} units {units[0].u}..{units[-1].u}",
                retry=Retry(max=settings.job_retries) if settings.job_retries else None,
                job_id=uuid.uuid4().hex,
            )
        )
    return datas


def enqueue_batch(
    conn: redis.Redis,
    settings: Settings,
    batch_id: str,
    *,
    mode: str,
    ks: list[int] | None,
    options: JudgeOptions,
    units: list[Unit],
    rows: list,
    n_workers: int,
    answer_by_s: float | None = None,
    cancellable: bool = False,
    client: str = "anonymous",
) -> None:
    """Store an admitted batch (its meta and its rows: [submission id, problem id, unit] in request
    order) and put its units, cut into jobs for `n_workers` loops, on the client's fair queue, in one
    transaction; then let the fair queues' pump move jobs to RQ. A batch of no units is done at once."""
    keys = Keys(settings.redis_prefix)
    queue = judge_queue(conn, settings)
    ttl = settings.result_ttl_s
    jobs = chunk_units(units, n_workers, settings.job_chunk_size)
    with conn.pipeline(transaction=True) as pipe:
        pipe.hset(
            keys.batch(batch_id),
            mapping={
                "n_subs": len(rows),
                "n_units": len(units),
                "mode": mode,
                "ks": json.dumps(ks),
                "created_s": f"{time.time():.3f}",
                "client": client,
            },
        )
        pipe.expire(keys.batch(batch_id), ttl)
        pipe.set(keys.subs(batch_id), json.dumps(rows), ex=ttl)
        if not units:
            pipe.rpush(keys.done(batch_id), "1")
            pipe.expire(keys.done(batch_id), ttl)
        datas = job_datas(
            queue,
            settings,
            batch_id,
            options,
            jobs,
            answer_by_s=answer_by_s,
            cancellable=cancellable,
            client=client,
        )
        if datas:
            fair.enqueue(conn, settings, pipe, client, datas, [len(units) for units in jobs])
        pipe.execute()
    if jobs:
        fair.pump(conn, settings)


async def batch_meta(aconn: aioredis.Redis, keys: Keys, batch_id: str) -> dict[bytes, bytes]:
    """A batch's meta hash (n_subs, n_units, mode, ks, created_s, client, finished_s); {} when unknown."""
    return await aconn.hgetall(keys.batch(batch_id))


async def judged_units(aconn: aioredis.Redis, keys: Keys, batch_id: str) -> int:
    """How many of a batch's units have their result."""
    return await aconn.hlen(keys.results(batch_id))


async def batch_rows_and_results(
    aconn: aioredis.Redis, keys: Keys, batch_id: str
) -> tuple[bytes | None, dict[bytes, bytes]]:
    """A batch's rows JSON (None once expired) and its results hash (unit -> result JSON), read together."""
    async with aconn.pipeline(transaction=False) as pipe:
        pipe.get(keys.subs(batch_id))
        pipe.hgetall(keys.results(batch_id))
        rows, results = await pipe.execute()
    return rows, results


async def depth_and_rate(aconn: aioredis.Redis, keys: Keys, field: str = "units") -> tuple[int, list[int]]:
    """The queue's depth and, per second of the last RATE_WINDOW_S, the units (or tests) judged."""
    second = int(time.time())
    async with aconn.pipeline(transaction=False) as pipe:
        pipe.get(keys.queued)
        for sec in range(second - RATE_WINDOW_S, second):
            pipe.hget(keys.rate(sec), field)
        queued, *rates = await pipe.execute()
    return int(queued or 0), [int(r or 0) for r in rates]


async def depth_and_starved(aconn: aioredis.Redis, keys: Keys) -> tuple[int, int | None]:
    """The queue's depth, and when a worker last saw its host starve a run (unix s; None when not
    within OVERSUBSCRIBED_S): what /healthz shows."""
    queued, starved_at = await aconn.mget(keys.queued, keys.starved)
    return int(queued or 0), None if starved_at is None else int(starved_at)


def cluster_figures(
    conn: redis.Redis, settings: Settings
) -> tuple[int, int, dict[str, int], bool, list[int]]:
    """For /metrics, read at scrape time: jobs on the RQ queue, the queue's depth, the cluster-wide
    counters, whether the hosts are oversubscribed, and the tests judged per second of the last
    RATE_WINDOW_S."""
    keys = Keys(settings.redis_prefix)
    queue = judge_queue(conn, settings)
    second = int(time.time())
    with conn.pipeline(transaction=False) as pipe:
        pipe.llen(queue.key)
        pipe.get(keys.queued)
        pipe.hgetall(keys.stats)
        pipe.exists(keys.starved)
        for sec in range(second - RATE_WINDOW_S, second):
            pipe.hget(keys.rate(sec), "tests")
        jobs, queued, stats, starved, *rates = pipe.execute()
    counters = {k.decode(): int(v) for k, v in stats.items()}
    return jobs, int(queued or 0), counters, bool(starved), [int(r or 0) for r in rates]


# -- recording results ------------------------------------------------------------------------------
# KEYS: meta, res, jobs, done, queued, client's queued. ARGV: job id, units in job, ttl_s, now_s, then
# unit, json pairs.
_RECORD_LUA = """
if redis.call('SADD', KEYS[3], ARGV[1]) == 1 then
  if redis.call('DECRBY', KEYS[5], ARGV[2]) < 0 then redis.call('SET', KEYS[5], 0) end
  if redis.call('DECRBY', KEYS[6], ARGV[2]) < 0 then redis.call('SET', KEYS[6], 0) end
end
redis.call('EXPIRE', KEYS[3], ARGV[3])
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
local new = 0
for i = 5, #ARGV, 2 do
  new = new + redis.call('HSETNX', KEYS[2], ARGV[i], ARGV[i + 1])
end
redis.call('EXPIRE', KEYS[2], ARGV[3])
local total = tonumber(redis.call('HGET', KEYS[1], 'n_units'))
if redis.call('HLEN', KEYS[2]) >= total and redis.call('EXISTS', KEYS[4]) == 0 then
  redis.call('HSET', KEYS[1], 'finished_s', ARGV[4])
  redis.call('RPUSH', KEYS[4], '1')
  redis.call('EXPIRE', KEYS[4], ARGV[3])
end
return new
"""


def record_results(
    conn: redis.Redis,
    settings: Settings,
    batch_id: str,
    job_id: str,
    job_units: int,
    results: Sequence[tuple[int, JudgeResult]],
    uncounted: frozenset[int] = frozenset(),
    client: str = "anonymous",
) -> int:
    """Write a job's results (each unit once) and the cluster counters; returns how many were new.
    Units in `uncounted` (abandoned, docs/spec.md 6.7) are answered but not counted as judged."""
    keys = Keys(settings.redis_prefix)
    args: list = [job_id, job_units, settings.result_ttl_s, f"{time.time():.3f}"]
    for u, result in results:
        args += [u, result.model_dump_json()]
    counted = [r for u, r in results if u not in uncounted]
    if counted:  # counted before they are answered: a caller with its results finds them in /metrics
        _count(conn, keys, counted)
    script = conn.register_script(_RECORD_LUA)
    new = script(
        keys=[
            keys.batch(batch_id),
            keys.results(batch_id),
            keys.jobs(batch_id),
            keys.done(batch_id),
            keys.queued,
            FairKeys(settings.redis_prefix).client_depth(client),
        ],
        args=args,
    )
    return int(new)


# the cluster's slot-time counters (P:stats), read by /metrics: all slot time; the slot time of work
# stopped at its deadline or when its caller left (start to release), and the part of it after the
# stop; units and runs not judged, before they started or while they ran (docs/spec.md 6.7)
USAGE_FIELDS = (
    "slot_ms",
    "abandoned_slot_ms",
    "after_stop_slot_ms",
    "abandoned:before_start",
    "abandoned:while_running",
    "abandoned:no_time",
    "abandoned_why:deadline",
    "abandoned_why:caller_gone",
    "abandoned_why:no_time",
    # runs the host starved at their wall limit (docs/spec.md 4.1), each run again or, twice, judge_error
    "starved_runs",
    # fan-out (docs/spec.md 4.10; the engine's FANOUT_USAGE): slots borrowed and their slot time
    # (also in slot_ms), tests run, and those run past a first failure and discarded, with their time
    "fanout_borrowed",
    "fanout_slot_ms",
    "fanout_started",
    "fanout_discarded",
    "fanout_discarded_ms",
    # fan-out across workers (services/judge/queue/shards.py): shard jobs pushed by owners, refused by a
    # worker of other limits, tests run by shards and their slot time, and tests an owner re-claimed
    # from a shard whose lease lapsed
    "fanout_shards",
    "fanout_shards_refused",
    "fanout_shard_tests",
    "fanout_shard_slot_ms",
    "fanout_reclaimed",
    # the start rule's decisions by the tier of the estimate that decided them and how the work ended
    # (deadlines.source_field; /metrics frontier_judge_start_cost_source_total)
    *(
        f"start_cost:{source}:{ended}"
        for source in ("program", "running", "kind", "limits")
        for ended in ("ran", "stopped", "no_time")
    ),
)


def count_usage(conn: redis.Redis, settings: Settings, usage: dict[str, int]) -> None:
    """Add `usage` (USAGE_FIELDS) to the cluster's counters."""
    if any(usage.values()):
        with conn.pipeline(transaction=False) as pipe:
            add_usage(pipe, settings, usage)
            pipe.execute()


def add_usage(pipe, settings: Settings, usage: dict[str, int]) -> None:
    """`count_usage` in the caller's pipeline."""
    keys = Keys(settings.redis_prefix)
    for field, n in usage.items():
        if n:
            pipe.hincrby(keys.stats, field, int(n))
    if usage.get("starved_runs"):
        _mark_starved(pipe, keys)


def _mark_starved(pipe, keys: Keys) -> None:
    """Say, for OVERSUBSCRIBED_S, that a run was starved (/healthz, /metrics)."""
    pipe.set(keys.starved, int(time.time()), ex=OVERSUBSCRIBED_S)


def _count(conn: redis.Redis, keys: Keys, results: Sequence[JudgeResult]) -> None:
    counts: dict[str, int] = {"judged": len(results)}
    tests = 0
    for r in results:
        counts[f"status:{r.status}"] = counts.get(f"status:{r.status}", 0) + 1
        if r.outcome is not None:
            counts[f"outcome:{r.outcome}"] = counts.get(f"outcome:{r.outcome}", 0) + 1
        for t in r.tests:
            if t.verdict != Verdict.SKIPPED:
                tests += 1
                counts[f"verdict:{t.verdict}"] = counts.get(f"verdict:{t.verdict}", 0) + 1
            if t.starved_runs:
                counts["starved_runs"] = counts.get("starved_runs", 0) + t.starved_runs
    counts["tests"] = tests
    second = int(time.time())
    with conn.pipeline(transaction=False) as pipe:
        for field, n in counts.items():
            pipe.hincrby(keys.stats, field, n)
        if "starved_runs" in counts:
            _mark_starved(pipe, keys)
        pipe.hincrby(keys.rate(second), "tests", tests)
        pipe.hincrby(keys.rate(second), "units", len(results))
        pipe.expire(keys.rate(second), RATE_WINDOW_S * 6)
        pipe.execute()


def judge_error(unit: Unit, message: str) -> JudgeResult:
    """The judge failed, not the program: no verdict, no reward (SPEC section 3)."""
    return JudgeResult(id=unit.id, problem_id=unit.problem_id, status="judge_error", message=message)


# -- jobs that failed for good ---------------------------------------------------------------------
def failure_reason(job: Job) -> str:
    """Why a job failed for good, in one line: its last exception's, else its worker was lost."""
    try:
        latest = job.latest_result()
        if latest is not None and latest.exc_string:
            return latest.exc_string.strip().splitlines()[-1][:500]
    except Exception:  # noqa: BLE001 - the reason is a courtesy
        pass
    return "its worker was lost"


def answer_failed(conn: redis.Redis, settings: Settings, job: Job) -> None:
    p = JobPayload.model_validate(job.args[0])
    reason = failure_reason(job)
    runs = settings.job_retries + 1
    message = f"the judge could not finish this submission after {runs} attempt(s): {reason}"
    log.warning("batch %s job %s failed for good: %s", p.batch, job.id, reason)
    record_results(
        conn,
        settings,
        p.batch,
        job.id,
        len(p.units),
        [(u.u, judge_error(u, message)) for u in p.units],
        client=p.client,
    )
