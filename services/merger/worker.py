"""The merger's RQ worker: runs merge jobs from its own queue ("merge") on the stack's Redis.

    frontier worker merger [--queue merge] [--redis-url URL] [--burst]

A job's progress (per tensor, per output) lives in the job's meta, which GET /merge/{job_id} reads.
Leases, retries and result TTLs are the stack's (`services.jobs`). A worker killed mid-job loses
nothing: another reruns the abandoned job once its lease lapses, starting over in the same hidden
partial directories, since outputs appear only when whole. A job refused for its input (a
MergeError) is not retried: it would fail the same way.
"""

from __future__ import annotations

from rq import Queue, get_current_job
from rq.job import Job

from merger.models import MergeRequest
from services.jobs import JobReporter, LeaseWorker, enqueue_job
from services.jobs import make_worker as make_lease_worker
from services.settings import Settings, get_settings

JOB_TIMEOUT_S = 24 * 3600  # a 9-alpha sweep of a 32B model on a slow disk takes hours


def enqueue_merge(queue: Queue, request: MergeRequest, settings: Settings | None = None) -> Job:
    """Queue a merge job; how long its result is kept (FRONTIER_MERGE_RESULT_TTL_S) and how often it is
    rerun after a lost worker (FRONTIER_JOB_RETRIES) come from the settings."""
    settings = settings or get_settings()
    outputs = [{**o, "status": "pending", "fraction": 0.0, "warnings": []} for o in request.planned_outputs()]
    return enqueue_job(
        queue,
        run_merge_job,
        request.model_dump(mode="json"),
        settings,
        job_timeout_s=JOB_TIMEOUT_S,
        result_ttl_s=settings.merge_result_ttl_s,
        meta={"kind": "merge", "outputs": outputs, "progress": {}, "error": None, "notes": []},
    )


def make_worker(queue: Queue, settings: Settings, name: str | None = None) -> LeaseWorker:
    """A merge worker on `queue` whose lease and maintenance follow FRONTIER_JOB_LEASE_S."""
    return make_lease_worker([queue], settings, name=name)


def run_merge_job(payload: dict) -> dict:
    """The job: one streaming pass that writes every output of the request."""
    from merger.merge import MergeError
    from merger.sweep import merge_alphas, merge_models

    request = MergeRequest.model_validate(payload)
    job = get_current_job()
    reporter = _MergeReporter(job)
    reporter.start()
    common = {
        "dtype": request.dtype,
        "overwrite": request.overwrite,
        "progress": reporter.progress,
        "token": job.id if job else None,
        # the API confined absolute paths to the data roots; anything else is a hub id, never a
        # directory that exists in this worker's current directory
        "relative_local": False,
    }
    with reporter.reporting(refusals=(MergeError,)):
        if request.is_alpha_form:
            result = merge_alphas(request.low, request.high, request.alphas, request.output_dir, **common)
        else:
            models = [(m.path, m.weight) for m in request.models]
            result = merge_models(
                request.base, models, request.output_dir, normalize=request.normalize, **common
            )
    summary = {
        "outputs": [{**o.record, "path": str(o.path), "warnings": o.warnings} for o in result.outputs],
        "notes": result.notes,
        "bytes_read": result.bytes_read,
        "bytes_written": result.bytes_written,
        "seconds": round(result.seconds, 3),
    }
    reporter.finish(summary)
    return summary


class _MergeReporter(JobReporter):
    """A merge's meta: progress per tensor and bytes, and each output's status and fraction."""

    def _outputs(self) -> list[dict]:
        return self.job.meta.get("outputs", []) if self.job is not None else []

    def start(self) -> None:
        for o in self._outputs():
            o.update(status="writing", fraction=0.0, warnings=[])
        self.save(error=None, progress={})

    def progress(self, p) -> None:
        if not self.due(final=p.tensors_done >= p.tensors_total):
            return
        fraction = round(p.bytes_done / p.bytes_total if p.bytes_total else 1.0, 4)
        for o in self._outputs():
            o["fraction"] = fraction  # one pass: every output advances with the inputs
        progress = {
            "tensors_done": p.tensors_done,
            "tensors_total": p.tensors_total,
            "bytes_done": p.bytes_done,
            "bytes_total": p.bytes_total,
            "fraction": fraction,
        }
        self.save(progress=progress)

    def finish(self, summary: dict) -> None:
        for o, done in zip(self._outputs(), summary["outputs"], strict=False):
            o.update(status="done", fraction=1.0, warnings=done["warnings"])
        self.save(notes=summary["notes"], seconds=summary["seconds"])

    def fail(self, message: str) -> None:
        for o in self._outputs():
            o["status"] = "failed"
        self.save(error=message)
