"""The evaluator's queue: eval and sweep jobs on their own RQ queue ("eval") of the stack's Redis.

    frontier worker evaluator [--queue eval] [--redis-url URL] [--burst]

A job's payload is its request (`EvalRequest` or `SweepRequest`) plus the run directory chosen when
it was accepted; its progress lives in the job's meta, which GET /eval/{job_id} reads. A worker killed
mid-job loses nothing: leases and retries are the stack's (`services.jobs`), and the rerun resumes the
run directory, judging only the samples not yet recorded. A job refused for its input (an EvalError)
is not retried: it would fail the same way.

With repair_turns > 0 the run goes on to the repair evaluation (`services.evaluator.repair`) before its
report; the job's result then names RUN_DIR/repair.json and repair.jsonl too.

A sweep is merged either in place (theta_low and delta held in memory, each alpha written into the
live model: nothing on disk) or through the merger service (POST /merge, one checkpoint per alpha
under RUN_DIR/checkpoints), then evaluated like any other list of checkpoints.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel
from redis import Redis
from rq import Queue, get_current_job
from rq.job import Job
from rq.serializers import JSONSerializer

from services.evaluator.config import EvalRequest, SweepRequest
from services.jobs import JobReporter, enqueue_job
from services.settings import Settings, get_settings

JOB_FUNC = "services.evaluator.worker.run_eval_job"
JOB_TIMEOUT_S = 7 * 24 * 3600  # a 9-alpha sweep of a 7B model at n=250 on LiveCodeBench takes days
RESULT_TTL_S = 30 * 24 * 3600  # how long GET /eval/{job_id} answers after a job ends (the run stays on disk)
MERGE_POLL_S = 1.0


class JobPayload(BaseModel):
    kind: Literal["eval", "sweep"]
    run_dir: str
    request: dict[str, Any]


# -- queueing ---------------------------------------------------------------------------------------
def eval_queue(connection: Redis, settings: Settings | None = None) -> Queue:
    settings = settings or get_settings()
    return Queue(settings.eval_queue, connection=connection, serializer=JSONSerializer)


def default_run_dir(settings: Settings, job_id: str) -> Path:
    return Path(settings.eval_dir or Path(settings.state_dir) / "eval") / job_id


def enqueue_eval(queue: Queue, request: EvalRequest | SweepRequest, settings: Settings | None = None) -> Job:
    settings = settings or get_settings()
    job_id = uuid.uuid4().hex
    kind = "sweep" if isinstance(request, SweepRequest) else "eval"
    run_dir = request.run_dir or str(default_run_dir(settings, job_id))
    payload = JobPayload(kind=kind, run_dir=run_dir, request=request.body())
    return enqueue_job(
        queue,
        JOB_FUNC,
        payload.model_dump(mode="json"),
        settings,
        job_id=job_id,
        job_timeout_s=JOB_TIMEOUT_S,
        result_ttl_s=RESULT_TTL_S,
        description=f"{kind} into {run_dir}",
        meta={"kind": kind, "run_dir": run_dir, "progress": {}, "error": None, "stage": "queued"},
    )


# -- the job ----------------------------------------------------------------------------------------
def run_eval_job(payload: dict) -> dict:
    """An eval or sweep request, run to its report; returns the report's summary and paths."""
    from services.evaluator.generate import GenerationError
    from services.evaluator.inputs import EvalError, checkpoints_from_paths, sweep_checkpoints
    from services.evaluator.pipeline import evaluate
    from services.evaluator.sweep import SweepError

    job = get_current_job()
    reporter = _EvalReporter(job)
    p = JobPayload.model_validate(payload)
    run_dir = Path(p.run_dir)
    settings = get_settings()
    with reporter.reporting(refusals=(EvalError, GenerationError, SweepError)):
        if p.kind == "sweep":
            req = SweepRequest.model_validate(p.request)
            if req.mode == "in_place":
                # the pair as absolute directories: a relative name is a hub id (see checkpoints_from_paths)
                low, high = checkpoints_from_paths([req.low, req.high], relative_local=False)
                checkpoints, sweep, extra = sweep_checkpoints(req.alphas), (low.path, high.path), None
            else:
                reporter.stage("merging")
                checkpoints = merge_through_service(req, run_dir / "checkpoints", settings, reporter)
                sweep, extra = None, {"sweep": {"low": req.low, "high": req.high, "mode": "merger"}}
        else:
            req = EvalRequest.model_validate(p.request)
            checkpoints = checkpoints_from_paths(list(req.checkpoints), relative_local=False)
            sweep, extra = None, None
        result = evaluate(
            checkpoints,
            req.config(),
            run_dir,
            sweep=sweep,
            progress=reporter.progress,
            show_progress=False,
            extra_meta=extra,
        )
    summary = {
        "run_dir": str(run_dir),
        "judged": result.judged,
        "already_judged": result.already_judged,
        "judge_errors": result.judge_errors,
        "seconds": round(result.seconds, 3),
        "report_json": result.report["report_json"],
        "report_md": result.report["report_md"],
        "plots": result.report["plots"],
        "summary": result.report["summary"],
    }
    if any("repair" in ck for ck in result.report["summary"]["checkpoints"]):
        # the repair evaluation (repair_turns > 0): its summaries and every attempt's record
        summary["repair_json"] = str(run_dir / "repair.json")
        summary["repair_jsonl"] = str(run_dir / "repair.jsonl")
    reporter.finish(summary)
    return summary


def merge_through_service(req: SweepRequest, output_dir: Path, settings: Settings, reporter=None) -> list:
    """POST /merge to the merger service and wait for its checkpoints; a rerun reuses complete outputs."""
    from merger.models import alpha_dir_name
    from services.evaluator.inputs import EvalCheckpoint, EvalError

    outputs = [EvalCheckpoint(alpha_dir_name(a), str(output_dir / alpha_dir_name(a)), a) for a in req.alphas]
    if all(Path(o.path).is_dir() for o in outputs):
        return outputs  # the merger publishes a checkpoint only once it is whole
    body = {
        "low": req.low,
        "high": req.high,
        "alphas": req.alphas,
        "output_dir": str(output_dir),
        "dtype": req.dtype,
        "overwrite": True,
    }
    from services.merger.client import MergeClient, MergeClientError, MergerUnreachable

    with MergeClient(timeout_s=30, settings=settings) as client:
        try:
            job_id = client.submit(body)
            client.follow(
                job_id,
                (lambda state: reporter.merge_progress(job_id, state.get("progress", {})))
                if reporter
                else None,
                MERGE_POLL_S,
            )
        except MergerUnreachable as err:
            raise RuntimeError(str(err)) from None
        except MergeClientError as err:
            prefix = "the merger refused the sweep: " if err.status_code == 422 else ""
            raise EvalError(f"{prefix}{err}") from None
    return outputs


class _EvalReporter(JobReporter):
    """An eval's meta: its stage, its progress (samples generated and judged), a merge's progress."""

    def __init__(self, job: Job | None):
        super().__init__(job)
        self.save(error=None, stage="starting")

    def stage(self, stage: str) -> None:
        self.save(stage=stage)

    def merge_progress(self, merge_id: str, progress: dict) -> None:
        if self.due():
            self.save(stage="merging", merge={"job_id": merge_id, **progress})

    def progress(self, state) -> None:
        if self.due(final=state.stage in ("report", "done") or state.judged >= state.total):
            self.save(stage=state.stage, progress=state.as_dict())

    def finish(self, summary: dict) -> None:
        self.save(stage="done", summary=summary["summary"])

    def fail(self, message: str) -> None:
        self.save(stage="failed", error=message)
