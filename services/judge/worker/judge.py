"""The judge's worker: RQ jobs of distinct submissions (services.judge.queue.batches), judged in process on one
warm Engine.

Theory of operation
-------------------
The API stores a problem once: its definition (spec, test hashes, checker source) under its content
digest, and every test blob under its sha256, written only if absent, and enqueues a batch's units as
jobs (the contract, with the Redis layout, is services/judge/queue/batches.py). A worker fetches a problem's
definition and any blob its local `TestStore` lacks, once, then judges the job's units on every slot
of its Engine and records all of the job's results at once (`queue.record_results`).

No lost work: a running job's lease is its score in RQ's StartedJobRegistry. `JudgeWorker` keeps it
short and renews it from a process of its own while the job runs (services/judge/worker/lease.py: a judgement
that holds the GIL cannot stop the renewals), so only a dead worker's lease lapses; the
reaper (services/judge/queue/reaper.py, run by the API every second and by workers between jobs) calls RQ's
own registry cleanup, which requeues an abandoned job while it has retries left (`Retry`), and turns a
job that failed for good into `judge_error` results, so every submission is answered exactly once.

A worker process runs one `JudgeWorker` loop per slot in threads, all sharing one Engine
(services/judge/worker/warm.py): while one loop's job finishes its last slow submission, another loop's job
already uses the free slot.

Jobs reach the RQ queue from per-client queues in weighted turns (`services.judge.queue.fair`; the loops
pump them around each dequeue), and a job whose caller has a deadline or may hang up carries it: a
`Stopper` per job never starts a unit past it and stops a running one (`services.judge.queue.deadlines`).
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from rq import Queue, SimpleWorker, get_current_job, worker_registration
from rq.executions import Execution, ExecutionRegistry
from rq.job import Job
from rq.serializers import JSONSerializer
from rq.timeouts import TimerDeathPenalty
from rq.worker import WorkerStatus

from services.judge.core.engine import FANOUT_USAGE, Engine, Queued, Stopped
from services.judge.core.models import JudgeResult, Submission
from services.judge.core.options import JudgeOptions
from services.judge.queue import deadlines, fair
from services.judge.queue.batches import (
    USAGE_FIELDS,
    JobPayload,
    Keys,
    Unit,
    connect,
    count_usage,
    judge_error,
    judge_queue,
    record_results,
)
from services.judge.queue.connection import Redis, RedisDown, RedisError
from services.judge.queue.deadlines import Stopper
from services.judge.queue.presence import Presence
from services.judge.queue.presence import live_loops as presence_live_loops
from services.judge.queue.reaper import reap
from services.judge.queue.shards import shard_queue
from services.judge.worker import shards, warm
from services.judge.worker.lease import close_keepers, shared_keeper
from services.judge.worker.problems import PROBLEMS as _PROBLEMS
from services.judge.worker.problems import JudgeSideError as _JudgeSideError
from services.problems.store import Problem
from services.settings import Settings, get_settings

log = logging.getLogger(__name__)

_BLOB_FETCH_GROUP = 32


# -- the job ----------------------------------------------------------------------------------------
def _judge_one(
    engine: Engine,
    problem: Problem,
    unit: Unit,
    options: JudgeOptions,
    stop: threading.Event | None = None,
    queued: Queued | None = None,
    usage: dict[str, int] | None = None,
    spread: shards.Spread | None = None,
) -> JudgeResult:
    """One unit's result, judged with the batch's `options` (with `feedback`, failing results carry
    feedback: docs/spec.md 5.1), announced in `queued` and its fan-out counted into `usage`
    (docs/spec.md 4.10). Stopped (its `stop` was set) passes through: the caller answers it as
    abandoned."""
    sub = Submission(
        id=unit.id,
        problem_id=unit.problem_id,
        language=unit.language,
        code=unit.code,
        completion=unit.completion,
    )
    try:
        return engine.judge(problem, sub, options, stop=stop, queued=queued, usage=usage, spread=spread)
    except Stopped:
        raise
    except Exception as err:  # a bug on our side must never become a verdict
        warm.park_if_handed_back()  # the sandbox closed under a job handed back: nothing is recorded
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
    engine = warm.engine()
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
            queued.take()
            return judge_error(unit, problem)
        if stopper.check():
            queued.take()
            with lock:
                abandoned.add(unit.u)
                usage["abandoned:before_start"] += 1
                usage[f"abandoned_why:{stopper.reason}"] += 1
            return judge_error(unit, deadlines.abandoned_message(stopper.reason, False))
        key = deadlines.unit_key(p.client, unit.problem, unit.language)
        limits_s = deadlines.unit_cost_s(settings, problem, unit.language)
        cost_s, source = deadlines.start_cost(settings, key, limits_s)
        # the start rule's decision, counted by the tier that made it (docs/spec.md 6.7)
        decided = p.answer_by_s is not None and settings.deadline_start_rule != "off"
        if deadlines.no_time(settings, p.answer_by_s, cost_s):
            queued.take()
            with lock:  # the start rule (docs/spec.md 6.7): its deadline would stop it; never started
                abandoned.add(unit.u)
                usage["abandoned:no_time"] += 1
                usage["abandoned_why:no_time"] += 1
                usage[deadlines.source_field(source, "no_time")] += 1
            return judge_error(unit, deadlines.abandoned_message("no_time", False, source))
        t0 = time.monotonic()
        fanned = dict.fromkeys((*FANOUT_USAGE, "fanout_shards"), 0)
        # its tests also to other workers' idle loops (docs/spec.md 4.10), through a board in Redis
        spread = (
            shards.Spread(conn, settings, job.id, unit, p, fanned, lock) if settings.fanout_shards else None
        )
        try:
            result = _judge_one(engine, problem, unit, options, stopper.event, queued, fanned, spread)
            if decided:
                with lock:
                    usage[deadlines.source_field(source, "ran")] += 1
            return result
        except Stopped:
            if decided:
                with lock:
                    usage[deadlines.source_field(source, "stopped")] += 1
            ms = round((time.monotonic() - t0) * 1000)
            with lock:
                abandoned.add(unit.u)
                usage["abandoned:while_running"] += 1
                usage[f"abandoned_why:{stopper.reason}"] += 1
                usage["abandoned_slot_ms"] += ms
                usage["after_stop_slot_ms"] += stopper.since_stop_ms()
            return judge_error(unit, deadlines.abandoned_message(stopper.reason, True))
        finally:
            cost_s = time.monotonic() - t0
            deadlines.ESTIMATES.record(key, cost_s)  # what the start rule's estimate is made of
            with lock:
                # its own slot's time and the slots it borrowed (docs/spec.md 4.10)
                usage["slot_ms"] += round(cost_s * 1000) + fanned["fanout_slot_ms"]
                for name, n in fanned.items():
                    usage[name] += n

    # the job's units take the slots before any of them fans out (docs/spec.md 4.10)
    with (
        Stopper(conn, settings.redis_prefix, p.batch, p.answer_by_s, p.cancellable) as stopper,
        engine.queued(len(todo)) as queued,
    ):
        warm.job_done()  # its units stand for it now
        if len(todo) == 1:
            results = [one(todo[0])]
        else:
            with ThreadPoolExecutor(min(engine.n_slots, len(todo))) as pool:
                results = list(pool.map(one, todo))
    warm.park_if_handed_back()
    count_usage(conn, settings, usage)  # before the answer, as a run's (worker/runs.py)
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
    return len(results)


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
        self._beat_at = self._suspension_at = -1e9
        super().__init__(*args, **kwargs)
        shared_keeper(self.connection).start()  # ready before the first job: no renewal waits on a start

    def execute_job(self, job: Job, queue: Queue):
        """Execute the job in this process, like SimpleWorker, its lease renewed until it ends by the
        lease keeper, a process of its own (services/judge/worker/lease.py): a judgement that holds the GIL
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
        warm.busy_add(1)
        try:
            self.perform_job(job, queue)
        finally:
            warm.busy_add(-1)
            warm.job_done()
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
            except RedisError as err:
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

    # RQ beats 3 times a job on its own (before and after the dequeue, after the job: 3 round trips
    # each with the registration below), besides the beats it sends inside a job's pipelines; the
    # worker's key lives worker_ttl + 60 s, so a plain beat this soon after the last one is skipped
    beat_every_s = 2.0
    suspension_every_s = 1.0  # how often `rq suspend` is looked for (RQ: before every job)

    def heartbeat(self, timeout: int | None = None, pipeline=None):
        if timeout is None and pipeline is None:
            now_s = time.monotonic()
            if now_s - self._beat_at < self.beat_every_s:
                return
            self._beat_at = now_s
        super().heartbeat(timeout, pipeline)
        # a Redis restarted without persistence has forgotten this worker: list it again
        worker_registration.register(self, pipeline)

    def check_for_suspension(self, burst: bool):
        now_s = time.monotonic()
        if now_s - self._suspension_at >= self.suspension_every_s:
            self._suspension_at = now_s
            super().check_for_suspension(burst)

    def dequeue_job_and_maintain_ttl(self, timeout, max_idle_time=None):
        """RQ's dequeue, with the fair queues pumped before (an idle loop finds work) and after (the
        lookahead refilled in fair turns: services.judge.queue.fair)."""
        self._pump()
        result = super().dequeue_job_and_maintain_ttl(timeout, max_idle_time)
        if result is not None:
            warm.job_taken()  # its units come before any fan-out (docs/spec.md 4.10)
            self._pump()
        return result

    def _pump(self) -> None:
        try:
            fair.pump(self.connection, get_settings())
        except RedisError as err:
            log.warning("worker %s: fair queues not pumped: %s", self.name, err)

    def _install_signal_handlers(self):
        # loops run in threads; `run_worker` owns the process's signals
        pass

    def run_maintenance_tasks(self):
        super().run_maintenance_tasks()
        try:
            reap(self.connection, get_settings())
        except RedisError as err:
            log.warning("reaper: %s", err)


def prune_lost_executions(conn: Redis, job_id: str) -> int:
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
    except RedisError as err:
        log.warning("could not prune the lost executions of job %s: %s", job_id, err)
        return 0


def _loop(index: int, settings: Settings, burst: bool, stopping: threading.Event, workers: list) -> None:
    """One worker loop; a Redis outage ends RQ's loop, so start a fresh worker once Redis answers again."""
    generation = 0
    backoff_s = 0.5
    while not stopping.is_set():
        conn = connect(settings)
        try:
            # shard jobs (fan-out across workers, docs/spec.md 4.10) before the loop's own queue
            sharding = settings.fanout and settings.fanout_shards
            worker = JudgeWorker(
                [*([shard_queue(conn, settings)] if sharding else []), judge_queue(conn, settings)],
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
        except RedisDown as err:
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
    settings = settings or get_settings()
    slots = slots or settings.slots
    engine = Engine(settings, slots=slots)
    engine.warm_up()
    warm.install(engine)
    from services.judge.worker.sessions import start_session_manager  # docs/spec.md section 6.6

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
            warm.HANDED_BACK.set()
        handed = [w for w in holding if hand_back(w)]
        if handed:
            log.warning("drain time over: handed back %d job(s) to the queue", len(handed))
        for w in workers:
            if w is not None and (w in handed or not _busy(w)):
                try:
                    w.register_death()
                except RedisError:
                    pass
        close_keepers()
        if sessions is not None:
            sessions.close()
        engine.close()
        if warm.HANDED_BACK.is_set():  # threads of the jobs handed back are parked: exit without them
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
    except RedisError:
        return False


def _busy(worker: JudgeWorker | None) -> bool:
    return worker is not None and worker.get_state() == WorkerStatus.BUSY
