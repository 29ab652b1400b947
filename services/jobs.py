"""The stack's long jobs (merges, evaluations) on RQ: one lease worker, one way to enqueue, and a job's
progress written into its meta, where the service's status route reads it.

Leases: a running job's heartbeat in RQ's StartedJobRegistry is kept short (FRONTIER_JOB_LEASE_S) and
renewed every third of a lease while the job runs, so the job of a worker that died lapses within about
a lease (rather than RQ's default minute and a half) and RQ's maintenance requeues it. A job carries
FRONTIER_JOB_RETRIES retries; one refused for its input is not retried (`JobReporter.reporting`), since
it would fail the same way. The judge's own queue has its worker (`services.judge.worker.judge`): jobs of
milliseconds, run in a warm sandbox rather than a forked process.

The services' status and health routes read jobs and queues alike (`status_job`, `queue_health`).
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from fastapi import HTTPException
from redis.exceptions import RedisError
from rq import Queue, Retry, Worker
from rq.exceptions import NoSuchJobError
from rq.job import Job

from services.ids import JOB_ID, matches
from services.redis_conn import open_redis
from services.settings import Settings

PROGRESS_EVERY_S = 0.5  # how often progress is written to a job's meta, at most


class LeaseWorker(Worker):
    """RQ's forking Worker with a short job lease (FRONTIER_JOB_LEASE_S) instead of RQ's default."""

    lease_s = 30

    def get_heartbeat_ttl(self, job: Job) -> int:
        return self.lease_s


def make_worker(queues: Sequence[Queue], settings: Settings, *, name: str | None = None) -> LeaseWorker:
    """A worker on `queues` (one connection and serializer: the first queue's) whose lease, heartbeat and
    maintenance (where abandoned jobs are found and requeued) follow FRONTIER_JOB_LEASE_S."""
    lease_s = settings.job_lease_s
    worker = LeaseWorker(
        list(queues),
        connection=queues[0].connection,
        name=name,
        serializer=queues[0].serializer,
        job_monitoring_interval=max(1, lease_s // 3),
        maintenance_interval=max(5, lease_s),
    )
    worker.lease_s = lease_s
    return worker


def run_worker(
    queue_name: str,
    settings: Settings,
    *,
    redis_url: str | None = None,
    serializer=None,
    burst: bool = False,
    name: str | None = None,
) -> None:
    """Work the queue `queue_name` on FRONTIER_REDIS_URL (or `redis_url`) until stopped (or, with
    `burst`, until it is empty)."""
    # RQ's dequeue blocks for minutes: no read timeout (services/redis_conn.py)
    connection = open_redis(redis_url or settings, blocking_s=None)
    queue = Queue(queue_name, connection=connection, serializer=serializer)
    make_worker([queue], settings, name=name).work(burst=burst, with_scheduler=False)


def enqueue_job(
    queue: Queue,
    func: Any,
    payload: dict,
    settings: Settings,
    *,
    job_timeout_s: int,
    result_ttl_s: int,
    meta: dict,
    job_id: str | None = None,
    description: str | None = None,
) -> Job:
    """Queue `func(payload)` with the stack's retries (FRONTIER_JOB_RETRIES); its result and its failure
    are kept `result_ttl_s` for the status route."""
    return queue.enqueue(
        func,
        payload,
        job_id=job_id,
        job_timeout=job_timeout_s,
        result_ttl=result_ttl_s,
        failure_ttl=result_ttl_s,
        retry=Retry(max=settings.job_retries) if settings.job_retries else None,
        description=description,
        meta=meta,
    )


class JobReporter:
    """Writes a job's state into its meta. `job` None (a job run outside a worker) writes nothing.
    A service subclasses it with the fields its status route shows (`fail` at least)."""

    def __init__(self, job: Job | None):
        self.job = job
        self._last = 0.0

    def save(self, **fields) -> None:
        """Set `fields` in the meta and write it now."""
        if self.job is not None:
            self.job.meta.update(fields)
            self.job.save_meta()

    def due(self, final: bool = False) -> bool:
        """Whether progress should be written now: always when `final`, else at most every
        PROGRESS_EVERY_S."""
        now = time.monotonic()
        if self.job is not None and (final or now - self._last >= PROGRESS_EVERY_S):
            self._last = now
            return True
        return False

    def fail(self, message: str) -> None:
        self.save(error=message)

    @contextmanager
    def reporting(self, refusals: tuple[type[BaseException], ...] = ()) -> Iterator[None]:
        """Around a job's work: an exception is written to the meta (`fail`) and raised again; one of
        `refusals` (the request's own fault) also takes the job's retries away."""
        try:
            yield
        except refusals as err:
            if self.job is not None:
                self.job.retries_left = 0  # the same input would fail the same way
            self.fail(str(err))
            raise
        except Exception as err:
            self.fail(f"{type(err).__name__}: {err}")
            raise


def status_job(
    connection,
    job_id: str,
    noun: str,
    kinds: tuple[str, ...],
    *,
    serializer=None,
    lost_from: Queue | None = None,
) -> Job:
    """The job a status route reports, or the route's answer: 404 for an id that is not a job id, no
    such job, or one whose meta's "kind" is none of `kinds` ("no `noun` job ..."); 503 when the job
    store is unavailable. With `lost_from` (the job's queue), a started job whose worker died is requeued
    (or failed) now, rather than at the next maintenance, and read again."""
    if not matches(JOB_ID, job_id):  # before it names a key: `<id>:dependents` is a set
        raise HTTPException(404, f"no {noun} job {job_id[:64]!r}: not a job id")
    try:
        job = Job.fetch(job_id, connection=connection, serializer=serializer)
        if lost_from is not None:
            status = job.get_status(refresh=False)
            if status is not None and status.value == "started":
                lost_from.started_job_registry.cleanup()
                job.get_status(refresh=True)
                job.refresh()
    except NoSuchJobError:
        raise HTTPException(404, f"no {noun} job {job_id!r}") from None
    except RedisError as e:
        raise HTTPException(503, f"the job store is unavailable: {e}") from None
    if job.meta.get("kind") not in kinds:
        raise HTTPException(404, f"no {noun} job {job_id!r}")
    return job


def queue_health(connection, queue: Queue) -> dict:
    """A service's /healthz: its queue's name, depth and workers; 503 when Redis is unavailable."""
    try:
        connection.ping()
        workers = Worker.count(queue=queue)
    except RedisError as e:
        raise HTTPException(503, f"redis unavailable: {e}") from None
    return {"status": "ok", "queue": queue.name, "queued": queue.count, "workers": workers}
