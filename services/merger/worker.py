"""The merger's RQ worker: runs merge jobs from its own queue ("merge") on the stack's Redis.

    python -m services.merger.worker [--queue merge] [--redis-url URL] [--burst]

A job's progress (per tensor, per output) lives in the job's meta, which GET /merge/{job_id} reads.
A worker killed mid-job loses nothing: RQ re-enqueues the abandoned job (it carries
FRONTIER_JOB_RETRIES retries) once its lease (FRONTIER_JOB_LEASE_S, renewed while the job runs)
lapses, and the rerun starts over in the same hidden partial directories, since outputs appear only
when whole. A job refused for its input (a MergeError) is not retried: it would fail the same way.
"""

from __future__ import annotations

import argparse
import time

from redis import Redis
from rq import Queue, Retry, Worker, get_current_job
from rq.job import Job

from merger.models import MergeRequest
from services.settings import Settings, get_settings

JOB_TIMEOUT_S = 24 * 3600  # a 9-alpha sweep of a 32B model on a slow disk takes hours
PROGRESS_EVERY_S = 0.5


def enqueue_merge(queue: Queue, request: MergeRequest, settings: Settings | None = None) -> Job:
    """Queue a merge job; how long its result is kept (FRONTIER_MERGE_RESULT_TTL_S) and how often it is
    rerun after a lost worker (FRONTIER_JOB_RETRIES) come from the settings."""
    settings = settings or get_settings()
    outputs = [{**o, "status": "pending", "fraction": 0.0, "warnings": []} for o in request.planned_outputs()]
    return queue.enqueue(
        run_merge_job,
        request.model_dump(mode="json"),
        job_timeout=JOB_TIMEOUT_S,
        result_ttl=settings.merge_result_ttl_s,
        failure_ttl=settings.merge_result_ttl_s,
        retry=Retry(max=settings.job_retries) if settings.job_retries else None,
        meta={"kind": "merge", "outputs": outputs, "progress": {}, "error": None, "notes": []},
    )


def run_merge_job(payload: dict) -> dict:
    """The job: one streaming pass that writes every output of the request."""
    from merger.merge import MergeError
    from merger.sweep import merge_alphas, merge_models

    request = MergeRequest.model_validate(payload)
    job = get_current_job()
    reporter = _MetaReporter(job)
    reporter.start()
    common = {
        "dtype": request.dtype,
        "overwrite": request.overwrite,
        "progress": reporter.progress,
        "token": job.id if job else None,
    }
    try:
        if request.is_alpha_form:
            result = merge_alphas(request.low, request.high, request.alphas, request.output_dir, **common)
        else:
            models = [(m.path, m.weight) for m in request.models]
            result = merge_models(
                request.base, models, request.output_dir, normalize=request.normalize, **common
            )
    except MergeError as e:
        if job is not None:
            job.retries_left = 0  # the same input would fail the same way
        reporter.fail(str(e))
        raise
    except Exception as e:
        reporter.fail(f"{type(e).__name__}: {e}")
        raise
    summary = {
        "outputs": [{**o.record, "path": str(o.path), "warnings": o.warnings} for o in result.outputs],
        "notes": result.notes,
        "bytes_read": result.bytes_read,
        "bytes_written": result.bytes_written,
        "seconds": round(result.seconds, 3),
    }
    reporter.finish(summary)
    return summary


class _MetaReporter:
    """Writes progress into the job's meta, at most every PROGRESS_EVERY_S."""

    def __init__(self, job: Job | None):
        self.job = job
        self._last = 0.0

    def start(self) -> None:
        if self.job is None:
            return
        for o in self.job.meta.get("outputs", []):
            o.update(status="writing", fraction=0.0, warnings=[])
        self.job.meta.update(error=None, progress={})
        self.job.save_meta()

    def progress(self, p) -> None:
        now = time.monotonic()
        if self.job is None or (now - self._last < PROGRESS_EVERY_S and p.tensors_done < p.tensors_total):
            return
        self._last = now
        fraction = p.bytes_done / p.bytes_total if p.bytes_total else 1.0
        self.job.meta["progress"] = {
            "tensors_done": p.tensors_done,
            "tensors_total": p.tensors_total,
            "bytes_done": p.bytes_done,
            "bytes_total": p.bytes_total,
            "fraction": round(fraction, 4),
        }
        for o in self.job.meta.get("outputs", []):
            o["fraction"] = round(fraction, 4)  # one pass: every output advances with the inputs
        self.job.save_meta()

    def finish(self, summary: dict) -> None:
        if self.job is None:
            return
        for o, done in zip(self.job.meta.get("outputs", []), summary["outputs"], strict=False):
            o.update(status="done", fraction=1.0, warnings=done["warnings"])
        self.job.meta["notes"] = summary["notes"]
        self.job.meta["seconds"] = summary["seconds"]
        self.job.save_meta()

    def fail(self, message: str) -> None:
        if self.job is None:
            return
        for o in self.job.meta.get("outputs", []):
            o["status"] = "failed"
        self.job.meta["error"] = message
        self.job.save_meta()


class MergeWorker(Worker):
    """RQ's forking Worker with a short job lease (FRONTIER_JOB_LEASE_S): the worker renews it every
    third of a lease while its job runs, so the job of a worker that died lapses, and is requeued,
    within about a lease rather than RQ's default minute and a half."""

    lease_s = 30

    def get_heartbeat_ttl(self, job: Job) -> int:
        return self.lease_s


def make_worker(queue: Queue, settings: Settings, name: str | None = None) -> MergeWorker:
    """A merge worker on `queue` whose lease and maintenance follow FRONTIER_JOB_LEASE_S."""
    lease_s = settings.job_lease_s
    worker = MergeWorker(
        [queue],
        connection=queue.connection,
        name=name,
        job_monitoring_interval=max(1, lease_s // 3),
        maintenance_interval=max(5, lease_s),  # where abandoned jobs are found and requeued
    )
    worker.lease_s = lease_s
    return worker


def main(argv: list[str] | None = None) -> None:
    settings = get_settings()
    ap = argparse.ArgumentParser(
        prog="python -m services.merger.worker", description=__doc__.split("\n\n")[0]
    )
    queue = settings.merger_queue
    ap.add_argument("--queue", default=queue, help=f"queue name (default {queue}, FRONTIER_MERGER_QUEUE)")
    ap.add_argument("--redis-url", default=settings.redis_url)
    ap.add_argument("--burst", action="store_true", help="exit when the queue is empty")
    ap.add_argument("--name", default=None, help="worker name (default: RQ's)")
    args = ap.parse_args(argv)
    import merger.sweep  # noqa: F401 - torch imported once here, not again in every forked job

    connection = Redis.from_url(args.redis_url)
    worker = make_worker(Queue(args.queue, connection=connection), settings, name=args.name)
    worker.work(burst=args.burst, with_scheduler=False)


if __name__ == "__main__":
    main()
