"""The judge's queue: batches become RQ jobs of distinct submissions, judged in process on one warm Engine.

Theory of operation
-------------------
The API stores a problem once: its definition (spec, test hashes, checker source) under its content
digest, and every test blob under its sha256, written only if absent. A batch is deduplicated into
*units*, one per distinct (code or completion, language, problem definition) under the batch's one
mode and ks; units are cut into RQ jobs whose payload carries code, language and the problem's digest,
never test data. A worker fetches a problem's definition and any blob its local `TestStore` lacks,
once, then judges the job's units on every slot of its Engine and records all of the job's results in
one Lua script: each unit's result is written with HSETNX (so a job that runs twice answers once),
and the unit that completes the batch pushes a token onto the batch's `done` list, which the waiting
API request is blocked on (BLMOVE of the list onto itself, so the token stays for later readers).

No lost work: a running job's lease is its score in RQ's StartedJobRegistry. `JudgeWorker` keeps it
short and renews it from a process of its own while the job runs (services/judge/lease.py: a judgement
that holds the GIL cannot stop the renewals), so only a dead worker's lease lapses; the
reaper (`reap`, run by the API every second and by workers between jobs) calls RQ's own registry
cleanup, which requeues an abandoned job while it has retries left (`Retry`), and turns a job that
failed for good into `judge_error` results, so every submission is answered exactly once.

A worker process runs one `JudgeWorker` loop per slot in threads, all sharing one Engine: while one
loop's job finishes its last slow submission, another loop's job already uses the free slot.

Jobs reach the RQ queue from per-client queues in weighted turns (`services.judge.fair`; the loops
pump them around each dequeue), and a job whose caller has a deadline or may hang up carries it: a
`Stopper` per job never starts a unit past it and stops a running one (`services.judge.deadlines`).

Redis layout (P = settings.redis_prefix):
    P:problems        hash    problem id -> definition digest
    P:psum            hash    problem id -> summary JSON (GET /problems)
    P:pdef:<digest>   string  Problem JSON: spec, test hashes, checker source, statement
    P:blob:<sha256>   string  test bytes
    P:b:<id>          hash    batch meta: n_subs, n_units, mode, ks, created_s, finished_s
    P:b:<id>:subs     string  JSON [[submission id, problem id, unit], ...] in request order
    P:b:<id>:res      hash    unit -> result JSON, with its first submission's id (written once)
    P:b:<id>:jobs     set     jobs whose results are recorded
    P:b:<id>:done     list    one token once every unit has its result
    P:queued          int     units accepted and not yet judged (backpressure)
    P:queued:<client> int     the same, per client (services.judge.fair, with its P:fq:* queues)
    P:cancel:<id>     string  present once a batch's or run's caller is gone (services.judge.deadlines)
    P:live            set     live worker processes; P:live:<host>.<pid> (int, its loops, a TTL) each
                              (services.judge.presence)
    P:stats           hash    cluster-wide counters for /metrics
    P:rate:<second>   hash    tests and units judged in that second
"""

from __future__ import annotations

import hashlib
import logging
import os
import signal
import socket
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import redis
from pydantic import BaseModel, ConfigDict
from rq import Queue, Retry, SimpleWorker, get_current_job, worker_registration
from rq.executions import Execution, ExecutionRegistry
from rq.job import Job
from rq.serializers import JSONSerializer
from rq.timeouts import TimerDeathPenalty
from rq.worker import WorkerStatus

from services.judge import fair
from services.judge.deadlines import Stopper
from services.judge.engine import Engine, Stopped
from services.judge.fair import FairKeys
from services.judge.lease import close_keepers, shared_keeper
from services.judge.models import JudgeResult, Submission
from services.judge.options import JudgeOptions
from services.judge.presence import Presence
from services.judge.presence import live_loops as presence_live_loops
from services.judge.verdicts import Verdict
from services.problems.spec import Language
from services.problems.store import Problem, TestStore
from services.settings import Settings, get_settings

log = logging.getLogger(__name__)

JOB_FUNC = "services.judge.worker.judge_job"
RATE_WINDOW_S = 10
_BLOB_FETCH_GROUP = 32


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
    return redis.Redis.from_url(
        settings.redis_url, socket_connect_timeout=2, socket_timeout=30, health_check_interval=15
    )


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
    counted = [r for u, r in results if u not in uncounted]
    if counted:
        _count(conn, keys, counted)
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
)


def count_usage(conn: redis.Redis, settings: Settings, usage: dict[str, int]) -> None:
    """Add `usage` (USAGE_FIELDS) to the cluster's counters."""
    usage = {k: v for k, v in usage.items() if v}
    if not usage:
        return
    stats = Keys(settings.redis_prefix).stats
    with conn.pipeline(transaction=False) as pipe:
        for field, n in usage.items():
            pipe.hincrby(stats, field, int(n))
        pipe.execute()


def abandoned_message(reason: str | None, started: bool) -> str:
    why = "its caller went away" if reason == "caller_gone" else "its deadline passed"
    what = "stopped while it ran" if started else "never started"
    return f"not judged: {why} ({what}; docs/spec.md 6.7); this is no verdict of the program"


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
    counts["tests"] = tests
    second = int(time.time())
    with conn.pipeline(transaction=False) as pipe:
        for field, n in counts.items():
            pipe.hincrby(keys.stats, field, n)
        pipe.hincrby(keys.rate(second), "tests", tests)
        pipe.hincrby(keys.rate(second), "units", len(results))
        pipe.expire(keys.rate(second), RATE_WINDOW_S * 6)
        pipe.execute()


def judge_error(unit: Unit, message: str) -> JudgeResult:
    """The judge failed, not the program: no verdict, no reward (SPEC section 3)."""
    return JudgeResult(id=unit.id, problem_id=unit.problem_id, status="judge_error", message=message)


# -- the job ----------------------------------------------------------------------------------------
class _JudgeSideError(RuntimeError):
    """Test data or a problem definition the worker could not get."""


class _ProblemCache:
    """Problem definitions by digest (immutable, so cached for the process's life) and their test blobs."""

    def __init__(self, max_items: int = 512):
        self._items: OrderedDict[str, Problem] = OrderedDict()
        self._lock = threading.Lock()
        self._fetch_lock = threading.Lock()
        self._max = max_items

    def get(self, conn: redis.Redis, keys: Keys, digest: str, store: TestStore) -> Problem:
        with self._lock:
            problem = self._items.get(digest)
            if problem is not None:
                self._items.move_to_end(digest)
        if problem is None:
            raw = conn.get(keys.pdef(digest))
            if raw is None:
                raise _JudgeSideError(
                    f"problem definition {digest[:12]} is no longer in Redis (was Redis restarted "
                    "without persistence?); upload the problem again"
                )
            problem = Problem.model_validate_json(raw)
        self._ensure_blobs(conn, keys, problem, store)
        with self._lock:
            self._items[digest] = problem
            while len(self._items) > self._max:
                self._items.popitem(last=False)
        return problem

    def _ensure_blobs(self, conn: redis.Redis, keys: Keys, problem: Problem, store: TestStore) -> None:
        wanted = {d for t in problem.tests for d in (t.input_sha256, t.output_sha256)}
        if not any(not store.has(d) for d in wanted):
            return
        with self._fetch_lock:  # one fetch per blob even when several loops need the problem at once
            missing = sorted(d for d in wanted if not store.has(d))
            if not missing:
                return
            for i in range(0, len(missing), _BLOB_FETCH_GROUP):
                group = missing[i : i + _BLOB_FETCH_GROUP]
                for digest, data in zip(group, conn.mget([keys.blob(d) for d in group]), strict=True):
                    if data is None:
                        raise _JudgeSideError(
                            f"test data {digest[:12]} of problem {problem.id} is not in Redis"
                        )
                    if hashlib.sha256(data).hexdigest() != digest:
                        raise _JudgeSideError(f"test data {digest[:12]} of problem {problem.id} is corrupt")
                    store.put(data)
            log.info("fetched %d test blobs of problem %s", len(missing), problem.id)


_PROBLEMS = _ProblemCache()
_ENGINE: Engine | None = None
_ENGINE_LOCK = threading.Lock()


def _engine() -> Engine:
    """The process's Engine: the one `run_worker` made, or one made on first use under a plain RQ worker."""
    global _ENGINE
    with _ENGINE_LOCK:
        if _ENGINE is None:
            _ENGINE = Engine(get_settings())
        return _ENGINE


def _judge_one(
    engine: Engine,
    problem: Problem,
    unit: Unit,
    options: JudgeOptions,
    stop: threading.Event | None = None,
) -> JudgeResult:
    """One unit's result, judged with the batch's `options` (with `feedback`, failing results carry
    feedback: docs/spec.md 5.1). Stopped (its `stop` was set) passes through: the caller answers it as
    abandoned."""
    sub = Submission(
        id=unit.id,
        problem_id=unit.problem_id,
        language=unit.language,
        code=unit.code,
        completion=unit.completion,
    )
    try:
        return engine.judge(problem, sub, options, stop=stop)
    except Stopped:
        raise
    except Exception as err:  # a bug on our side must never become a verdict
        park_if_handed_back()  # the sandbox closed under a job handed back: nothing is recorded
        log.exception("judging unit %s of problem %s failed", unit.u, unit.problem_id)
        return judge_error(unit, f"internal judge error: {type(err).__name__}: {err}")


def judge_job(payload: dict) -> int:
    """RQ job: judge a chunk of a batch's distinct submissions and record their results."""
    job = get_current_job()
    conn = job.connection
    settings = get_settings()
    keys = Keys(settings.redis_prefix)
    p = JobPayload.model_validate(payload)
    with conn.pipeline(transaction=False) as pipe:
        pipe.exists(keys.batch(p.batch))
        pipe.hmget(keys.results(p.batch), [u.u for u in p.units])
        alive, recorded = pipe.execute()
    todo = [u for u, r in zip(p.units, recorded, strict=True) if r is None] if alive else []
    if not todo:  # the batch expired, or this is a second run of a job already answered
        record_results(conn, settings, p.batch, job.id, len(p.units), [], client=p.client)
        return 0
    engine = _engine()
    options = JudgeOptions.of(p)
    problems: dict[str, Problem | str] = {}
    for digest in dict.fromkeys(u.problem for u in todo):
        try:
            problems[digest] = _PROBLEMS.get(conn, keys, digest, engine.store)
        except (_JudgeSideError, OSError, ValueError) as err:
            log.warning("batch %s: %s", p.batch, err)
            problems[digest] = str(err)

    usage = dict.fromkeys(USAGE_FIELDS, 0)
    abandoned: set[int] = set()
    lock = threading.Lock()

    def one(unit: Unit) -> JudgeResult:
        problem = problems[unit.problem]
        if isinstance(problem, str):
            return judge_error(unit, problem)
        if stopper.check():
            with lock:
                abandoned.add(unit.u)
                usage["abandoned:before_start"] += 1
            return judge_error(unit, abandoned_message(stopper.reason, False))
        t0 = time.monotonic()
        try:
            return _judge_one(engine, problem, unit, options, stopper.event)
        except Stopped:
            ms = round((time.monotonic() - t0) * 1000)
            with lock:
                abandoned.add(unit.u)
                usage["abandoned:while_running"] += 1
                usage["abandoned_slot_ms"] += ms
                usage["after_stop_slot_ms"] += stopper.since_stop_ms()
            return judge_error(unit, abandoned_message(stopper.reason, True))
        finally:
            with lock:
                usage["slot_ms"] += round((time.monotonic() - t0) * 1000)

    with Stopper(conn, settings.redis_prefix, p.batch, p.answer_by_s, p.cancellable) as stopper:
        if len(todo) == 1:
            results = [one(todo[0])]
        else:
            with ThreadPoolExecutor(min(engine.n_slots, len(todo))) as pool:
                results = list(pool.map(one, todo))
    park_if_handed_back()
    record_results(
        conn,
        settings,
        p.batch,
        job.id,
        len(p.units),
        list(zip([u.u for u in todo], results, strict=True)),
        frozenset(abandoned),
        p.client,
    )
    count_usage(conn, settings, usage)
    return len(results)


# Set when a draining worker hands its jobs back: from then on this process records nothing (its sandbox
# is being closed under the jobs it gave away, and another worker judges them again).
_HANDED_BACK = threading.Event()


def park_if_handed_back() -> None:
    """A job handed back must neither record results nor finish (RQ would delete the requeued job): its
    thread waits here until the process exits."""
    while _HANDED_BACK.is_set():
        time.sleep(3600)


# -- the reaper -------------------------------------------------------------------------------------
def reap(conn: redis.Redis, settings: Settings) -> int:
    """Requeue jobs whose worker died (RQ's registry cleanup honours `Retry`); answer jobs that failed for good.

    Returns how many failed jobs were turned into judge_error results. Safe to run from many processes.
    """
    keys = Keys(settings.redis_prefix)
    if not conn.set(keys.reaper_lock, os.getpid(), nx=True, px=5000):
        return 0
    try:
        queue = judge_queue(conn, settings)
        queue.started_job_registry.cleanup()
        fair.pump(conn, settings)
        fk = FairKeys(settings.redis_prefix)
        drift = conn.eval(
            _IDLE_RESET_LUA,
            6,
            queue.key,
            queue.intermediate_queue_key,
            queue.started_job_registry.key,
            keys.queued,
            fk.active,
            fk.clients,
            fk.client_depth(""),
        )
        if drift:
            log.warning("queue depth counter was %s with no job queued or running; reset to 0", drift)
        failed = queue.failed_job_registry
        answered = 0
        for job_id in failed.get_job_ids():
            try:
                job = Job.fetch(job_id, connection=conn, serializer=JSONSerializer)
            except Exception:  # noqa: BLE001 - gone or unreadable: nothing left to answer
                failed.remove(job_id)
                continue
            if job.func_name == JOB_FUNC:
                _answer_failed(conn, settings, job)
                answered += 1
            elif job.func_name == "services.judge.compat.runs.run_job":
                # a compat run (/run_code, /run_jupyter, Judge0) lost for good: its caller gets an
                # internal error now, not a timeout (runs imports this module, hence the late import)
                from services.judge.compat.runs import answer_failed

                answer_failed(conn, settings, job)
                answered += 1
            failed.remove(job, delete_job=True)
        return answered
    finally:
        conn.delete(keys.reaper_lock)


# With nothing queued, dequeued or running, the depth counter must be 0; an API killed between admitting
# a batch and enqueueing it would otherwise leave it high for good. Returns the value it had, if not 0.
_IDLE_RESET_LUA = """
if redis.call('LLEN', KEYS[1]) == 0 and redis.call('LLEN', KEYS[2]) == 0 and redis.call('ZCARD', KEYS[3]) == 0
   and redis.call('ZCARD', KEYS[5]) == 0 then
  for _, client in ipairs(redis.call('SMEMBERS', KEYS[6])) do
    redis.call('SET', ARGV[1] .. client, 0)
  end
  local depth = tonumber(redis.call('GET', KEYS[4]) or '0')
  if depth ~= 0 then
    redis.call('SET', KEYS[4], 0)
    return depth
  end
end
return 0
"""


def failure_reason(job: Job) -> str:
    """Why a job failed for good, in one line: its last exception's, else its worker was lost."""
    try:
        latest = job.latest_result()
        if latest is not None and latest.exc_string:
            return latest.exc_string.strip().splitlines()[-1][:500]
    except Exception:  # noqa: BLE001 - the reason is a courtesy
        pass
    return "its worker was lost"


def _answer_failed(conn: redis.Redis, settings: Settings, job: Job) -> None:
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


# -- the worker -------------------------------------------------------------------------------------
class JudgeWorker(SimpleWorker):
    """An RQ worker that runs judge jobs in its own process (no fork per job, so sandbox slots stay warm),
    holding a short lease on each job that a side thread renews while the job runs."""

    # SIGALRM works only in the main thread, and judge jobs have no RQ timeout anyway (timeout=-1)
    death_penalty_class = TimerDeathPenalty
    lease_s = 30
    log_result_lifespan = False
    # RQ backs off up to a minute between reconnects; a judge should be back within seconds of Redis
    max_connection_wait_time = 5.0

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        shared_keeper(self.connection).start()  # ready before the first job: no renewal waits on a start

    def execute_job(self, job: Job, queue: Queue):
        """Execute the job in this process, like SimpleWorker, its lease renewed until it ends by the
        lease keeper, a process of its own (services/judge/lease.py): a judgement that holds the GIL
        cannot stop the renewals. A renewal thread stands in only if no keeper could be started."""
        self.prepare_execution(job)
        keeper = shared_keeper(self.connection)
        token = f"{self.name}:{job.id}"
        kept = keeper.hold(
            token,
            self.lease_s / 5,
            job_id=job.id,
            execution_id=self.execution.id,
            queue=queue.name,
            worker_key=self.key,
            ttl=self.get_heartbeat_ttl(job),
            worker_ttl=self.job_monitoring_interval + 60,
        )
        stop = threading.Event()
        renew = None
        if not kept:
            renew = threading.Thread(target=self._renew_lease, args=(job, stop), daemon=True)
            renew.start()
        try:
            self.perform_job(job, queue)
        finally:
            if kept:
                keeper.release(token)
            stop.set()
            if renew is not None:
                renew.join()
        self.set_state(WorkerStatus.IDLE)

    def _renew_lease(self, job: Job, stop: threading.Event) -> None:
        while not stop.wait(self.lease_s / 5):
            try:
                self.maintain_heartbeats(job)
            except redis.RedisError as err:
                log.warning("worker %s: could not renew the lease of job %s: %s", self.name, job.id, err)

    def get_heartbeat_ttl(self, job: Job) -> int:
        return self.lease_s

    def handle_job_success(self, job: Job, queue: Queue, started_job_registry):
        prune_lost_executions(self.connection, job.id)
        super().handle_job_success(job=job, queue=queue, started_job_registry=started_job_registry)

    def handle_job_failure(self, job: Job, queue: Queue, started_job_registry=None, exc_string=""):
        prune_lost_executions(self.connection, job.id)
        super().handle_job_failure(
            job, queue, started_job_registry=started_job_registry, exc_string=exc_string
        )

    def heartbeat(self, timeout: int | None = None, pipeline=None):
        super().heartbeat(timeout, pipeline)
        # a Redis restarted without persistence has forgotten this worker: list it again
        worker_registration.register(self, pipeline)

    def dequeue_job_and_maintain_ttl(self, timeout, max_idle_time=None):
        """RQ's dequeue, with the fair queues pumped before (an idle loop finds work) and after (the
        lookahead refilled in fair turns: services.judge.fair)."""
        self._pump()
        result = super().dequeue_job_and_maintain_ttl(timeout, max_idle_time)
        if result is not None:
            self._pump()
        return result

    def _pump(self) -> None:
        try:
            fair.pump(self.connection, get_settings())
        except redis.RedisError as err:
            log.warning("worker %s: fair queues not pumped: %s", self.name, err)

    def _install_signal_handlers(self):
        # loops run in threads; `run_worker` owns the process's signals
        pass

    def run_maintenance_tasks(self):
        super().run_maintenance_tasks()
        try:
            reap(self.connection, get_settings())
        except redis.RedisError as err:
            log.warning("reaper: %s", err)


def prune_lost_executions(conn: redis.Redis, job_id: str) -> int:
    """Drop the executions of `job_id` whose worker was lost: RQ keeps listing one for 60 s after its
    record expired, and then fails the cleanup of the job's next run ("Execution ... not found in
    Redis"), turning a redone job that succeeded into a failed one that burns a retry. Returns how many."""
    registry = ExecutionRegistry(job_id, connection=conn)
    try:
        ids = [i.decode() for i in conn.zrange(registry.key, 0, -1)]
        if not ids:
            return 0
        with conn.pipeline(transaction=False) as pipe:
            for i in ids:
                pipe.exists(Execution(i, job_id, conn).key)
            alive = pipe.execute()
        lost = [i for i, a in zip(ids, alive, strict=True) if not a]
        if lost:
            conn.zrem(registry.key, *lost)
        return len(lost)
    except redis.RedisError as err:
        log.warning("could not prune the lost executions of job %s: %s", job_id, err)
        return 0


def _loop(index: int, settings: Settings, burst: bool, stopping: threading.Event, workers: list) -> None:
    """One worker loop; a Redis outage ends RQ's loop, so start a fresh worker once Redis answers again."""
    generation = 0
    backoff_s = 0.5
    while not stopping.is_set():
        conn = connect(settings)
        try:
            worker = JudgeWorker(
                [judge_queue(conn, settings)],
                connection=conn,
                name=f"{socket.gethostname()}.{os.getpid()}.{index}.{generation}",
                serializer=JSONSerializer,
                worker_ttl=60,
                maintenance_interval=30,
                log_job_description=False,
            )
            worker.lease_s = settings.job_lease_s
            workers[index] = worker
            worker.work(burst=burst, logging_level=None, with_scheduler=False)
            backoff_s = 0.5
        except (redis.ConnectionError, redis.TimeoutError) as err:
            log.warning("worker loop %d: Redis unavailable (%s); retrying in %.1f s", index, err, backoff_s)
        if burst or stopping.is_set() or workers[index]._stop_requested:
            return
        stopping.wait(backoff_s)
        backoff_s = min(backoff_s * 2, 10.0)
        generation += 1


def run_worker(settings: Settings | None = None, slots: int | None = None, burst: bool = False) -> None:
    """Run one worker process: one Engine with `slots` sandbox slots, one RQ loop per slot.

    SIGTERM/SIGINT drain the worker: it leaves /healthz at once, takes no new job, finishes the jobs in
    hand for up to `settings.drain_s`, then hands back what is still running (requeued at the front, no
    retry spent; a result recorded twice is answered once) and exits. A second signal exits at once
    (unfinished jobs are then requeued when their lease lapses).
    """
    global _ENGINE
    settings = settings or get_settings()
    slots = slots or settings.slots
    engine = Engine(settings, slots=slots)
    engine.warm_up()
    with _ENGINE_LOCK:
        _ENGINE = engine
    from services.judge.sessions.manager import start_session_manager  # docs/spec.md section 6.6

    sessions = start_session_manager(settings)
    stopping = threading.Event()
    workers: list[JudgeWorker | None] = [None] * slots
    threads: list[threading.Thread] = []
    presence = Presence(
        lambda: connect(settings),
        settings.redis_prefix,
        lambda: 0 if stopping.is_set() else sum(t.is_alive() for t in threads),
    )

    def on_signal(signum, frame):
        if stopping.is_set():
            log.warning("second signal: exiting now")
            engine.close()
            os._exit(1)
        log.info(
            "signal %s: draining (up to %.0f s for the jobs in hand), then exiting", signum, settings.drain_s
        )
        stopping.set()
        for w in workers:
            if w is not None:
                w._stop_requested = True

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    threads += [
        threading.Thread(
            target=_loop, args=(i, settings, burst, stopping, workers), name=f"judge-loop-{i}", daemon=True
        )
        for i in range(slots)
    ]
    for t in threads:
        t.start()
    presence.start()
    log.info(
        "judge worker %d: %d slots on queue %r of %s",
        os.getpid(),
        slots,
        settings.judge_queue,
        settings.redis_url,
    )
    drain_until = None
    try:
        while any(t.is_alive() for t in threads):
            if stopping.is_set():
                if drain_until is None:
                    presence.stop()  # out of /healthz before the jobs in hand are done
                    drain_until = time.monotonic() + settings.drain_s
                if not any(_busy(w) for w in workers):
                    break  # idle loops sit in a blocking dequeue; no need to wait for it to time out
                if time.monotonic() >= drain_until:
                    break
            time.sleep(0.2)
    finally:
        presence.stop()
        holding = [w for w in workers if w is not None and _holds_job(w)]
        if holding:
            _HANDED_BACK.set()
        handed = [w for w in holding if hand_back(w)]
        if handed:
            log.warning("drain time over: handed back %d job(s) to the queue", len(handed))
        for w in workers:
            if w is not None and (w in handed or not _busy(w)):
                try:
                    w.register_death()
                except redis.RedisError:
                    pass
        close_keepers()
        if sessions is not None:
            sessions.close()
        engine.close()
        if _HANDED_BACK.is_set():  # threads of the jobs handed back are parked: exit without them
            logging.shutdown()
            os._exit(0)


def hand_back(worker: JudgeWorker) -> bool:
    """Put the job `worker` holds back at the front of its queue now, as it was enqueued (its retries
    untouched), instead of waiting for its lease to lapse; False when it holds none."""
    conn = worker.connection
    try:
        job_id = worker.get_current_job_id()
        if job_id is None:
            return False
        job = Job.fetch(job_id, connection=conn, serializer=JSONSerializer)
        if job.is_finished or job.is_failed:
            return False
        queue = Queue(job.origin, connection=conn, serializer=JSONSerializer)
        prune_lost_executions(conn, job_id)
        # queued again first, then out of the started registry: a crash in between leaves the job in
        # both (its lease then lapses and it is judged twice, answered once), never in neither
        queue.enqueue_job(job, at_front=True)
        with conn.pipeline() as pipe:
            queue.started_job_registry.remove_executions(job, pipeline=pipe)
            worker.set_current_job_id(None, pipeline=pipe)
            pipe.execute()
        log.info("handed back job %s", job_id)
        return True
    except Exception as err:  # noqa: BLE001 - its lease still lapses and the reaper requeues it
        log.warning("could not hand back the job of %s: %s", worker.name, err)
        return False


def local_loops(settings: Settings | None = None) -> int:
    """Worker loops of this host (container) alive now: a worker container's health check."""
    settings = settings or get_settings()
    return presence_live_loops(connect(settings), settings.redis_prefix, host=socket.gethostname())


def _holds_job(worker: JudgeWorker) -> bool:
    try:
        return worker.get_current_job_id() is not None
    except redis.RedisError:
        return False


def _busy(worker: JudgeWorker | None) -> bool:
    return worker is not None and worker.get_state() == WorkerStatus.BUSY
