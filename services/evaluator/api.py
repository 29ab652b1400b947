"""The evaluator service (SPEC section 4): POST /eval and POST /sweep queue a job, GET /eval/{job_id}
reports its status, progress and, once done, the report.

    frontier serve evaluator [--host 127.0.0.1] [--port 8002]

The API checks a request against what it can see at once (checkpoint directories, the benchmark and
its problems, a sweep's pair of checkpoints) and answers 4xx with a message; the work runs in
evaluator worker processes (`frontier worker evaluator`) on the queue "eval", which may sit on other hosts that see the
same paths. Every path a request names (checkpoints, benchmark, run_dir, a sweep's low and high) must
lie under FRONTIER_DATA_ROOTS once symlinks are resolved; hub ids are not paths and stay allowed, and
so do the named benchmarks "bundled" and "families". Every route but /healthz asks for the bearer token FRONTIER_API_TOKEN
where one is set.

The routes are module routers (`router`, `health`) reaching the app's `EvaluatorState` through the
`EvaluatorStateDep` dependency, as the judge's API does; `create_app` makes the state and includes them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, HTTPException, Query, Request
from pydantic import BaseModel, Field
from redis import Redis
from redis.exceptions import RedisError
from rq.serializers import JSONSerializer

from services.evaluator.config import EvalRequest, SweepRequest
from services.evaluator.worker import enqueue_eval, eval_queue
from services.jobs import queue_health, status_job
from services.redis_conn import open_redis
from services.security import PathNotAllowed, api_dependencies, confine, confine_source
from services.serving import JsonRoute, guard
from services.settings import Settings, get_settings


class JobAccepted(BaseModel):
    job_id: str
    kind: str
    run_dir: str
    status_url: str


class EvalStatus(BaseModel):
    job_id: str
    kind: str = Field(description="eval | sweep")
    status: str = Field(description="RQ's: queued, started, finished, failed, ...")
    stage: str | None = Field(default=None, description="queued, merging, generating, judging, report, done")
    progress: dict[str, Any] = Field(
        default_factory=dict, description="samples generated and judged of total"
    )
    run_dir: str
    error: str | None = None
    request: dict[str, Any] = Field(default_factory=dict)
    report: dict[str, Any] | None = Field(
        default=None,
        description="report.json once done: outcome fractions per checkpoint, pass@k, ensemble, churn, "
        "per-problem results (per-sample records with ?samples=true); with repair_turns, the repair "
        "rate and first-attempt pass@1 per checkpoint under 'repair'",
    )
    report_md: str | None = None
    plots: dict[str, str] | None = Field(default=None, description="absolute paths of the PNG plots")
    enqueued_at: str | None = None
    started_at: str | None = None
    ended_at: str | None = None


class EvaluatorState:
    """What the routes share: the settings, the Redis connection and the eval queue."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self.connection = open_redis(settings)
        self.queue = eval_queue(self.connection, settings)


async def evaluator_state(request: Request) -> EvaluatorState:
    """The app's EvaluatorState (made by create_app): what a route declares as `state: EvaluatorStateDep`."""
    return request.app.state.evaluator


EvaluatorStateDep = Annotated[EvaluatorState, Depends(evaluator_state)]

# /healthz answers without the bearer token; `router` is included with it (create_app)
health = APIRouter(route_class=JsonRoute)
router = APIRouter(route_class=JsonRoute)


def _accept(state: EvaluatorState, request: EvalRequest | SweepRequest) -> JobAccepted:
    try:
        job = enqueue_eval(state.queue, request, state.settings)
    except RedisError as e:
        raise HTTPException(503, f"the job queue is unavailable: {e}") from None
    kind = job.meta["kind"]
    return JobAccepted(job_id=job.id, kind=kind, run_dir=job.meta["run_dir"], status_url=f"/eval/{job.id}")


@router.post("/eval", status_code=202, response_model=JobAccepted, responses={404: {}, 422: {}, 503: {}})
def submit_eval(request: EvalRequest, state: EvaluatorStateDep) -> JobAccepted:
    """Queue an evaluation of checkpoints on a benchmark."""
    _check_eval(request, state.settings)
    return _accept(state, request)


@router.post("/sweep", status_code=202, response_model=JobAccepted, responses={404: {}, 422: {}, 503: {}})
def submit_sweep(request: SweepRequest, state: EvaluatorStateDep) -> JobAccepted:
    """Queue a sweep: theta_a = a*high + (1-a)*low for each alpha (in place, or written by the merger
    service), each evaluated; one report over all alphas."""
    _check_sweep(request, state.settings)
    return _accept(state, request)


@router.get("/eval/{job_id}", response_model=EvalStatus, responses={404: {}, 503: {}})
def status(
    job_id: str,
    state: EvaluatorStateDep,
    samples: Annotated[bool, Query(description="include every sample's record")] = False,
) -> EvalStatus:
    """Status and progress; when done, the report and the paths of its plots."""
    return _status(state.connection, state.queue, job_id, samples)


@router.get("/sweep/{job_id}", response_model=EvalStatus, responses={404: {}, 503: {}})
def sweep_status(job_id: str, state: EvaluatorStateDep, samples: bool = False) -> EvalStatus:
    """The same as GET /eval/{job_id}."""
    return _status(state.connection, state.queue, job_id, samples)


@health.get("/healthz", responses={503: {}})
def healthz(state: EvaluatorStateDep) -> dict:
    return queue_health(state.connection, state.queue)


def create_app(settings: Settings | None = None) -> FastAPI:
    """The evaluator's app: its state on `app.state.evaluator`, the routers."""
    settings = settings or get_settings()
    app = FastAPI(
        title="codefrontier evaluator",
        description="Evaluates checkpoints on a benchmark through the judge: outcome fractions, pass@k, "
        "the correctness-efficiency frontier, ensembles at a matched budget (SPEC sections 4-5).",
    )
    app.state.evaluator = EvaluatorState(settings)
    guard(app, settings)  # 413 past FRONTIER_MAX_BODY_MB, readable 422s (services/serving.py)
    # every route but /healthz: the bearer token where one is set
    app.include_router(router, dependencies=api_dependencies(settings))
    app.include_router(health)
    return app


# benchmarks named, not given as a path: the checkout's bundled problems and its families miniature
NAMED_BENCHMARKS = ("bundled", "families")


# -- what the API can check at once -----------------------------------------------------------------
def _check_data_paths(request: EvalRequest | SweepRequest, settings: Settings) -> None:
    """422 for any path outside FRONTIER_DATA_ROOTS, checked before anything at that path is read."""
    try:
        if request.run_dir is not None:
            confine(request.run_dir, settings, "run_dir")
        if request.benchmark not in NAMED_BENCHMARKS:  # the checkout's own, by name
            confine(request.benchmark, settings, "benchmark")
        if isinstance(request, SweepRequest):
            for field in ("low", "high"):
                confine_source(getattr(request, field), settings, field)
        else:
            for i, checkpoint in enumerate(request.checkpoints):
                confine_source(checkpoint, settings, f"checkpoints.{i}")
    except PathNotAllowed as err:
        raise HTTPException(422, str(err)) from None


def _check_common(request: EvalRequest | SweepRequest) -> None:
    from services.evaluator.inputs import EvalError, UnknownProblemError, resolve_benchmark

    try:
        resolve_benchmark(request.benchmark, request.problems)
    except UnknownProblemError as e:
        raise HTTPException(404, str(e)) from None
    except EvalError as e:
        raise HTTPException(422, str(e)) from None
    if request.backend == "vllm":
        from services.evaluator.generate import vllm_unavailable

        # only what this host sees; a worker elsewhere decides for itself, so this is advice, not a rule
        why = vllm_unavailable()
        if why and "not installed" not in why:
            raise HTTPException(422, f"backend 'vllm': {why}")


def _check_eval(request: EvalRequest, settings: Settings) -> None:
    from services.evaluator.inputs import EvalError, checkpoints_from_paths

    _check_data_paths(request, settings)
    try:
        checkpoints_from_paths(request.checkpoints)
    except EvalError as e:
        raise HTTPException(422, f"checkpoints: {e}") from None
    _check_common(request)


def _check_sweep(request: SweepRequest, settings: Settings) -> None:
    from services.evaluator.inputs import EvalError, check_checkpoint_path

    _check_data_paths(request, settings)
    for field in ("low", "high"):
        try:
            check_checkpoint_path(getattr(request, field))
        except EvalError as e:
            raise HTTPException(422, f"{field}: {e}") from None
    if all(Path(p).is_dir() for p in (request.low, request.high)):
        from merger.checkpoint import load_checkpoint, plan_merge
        from merger.merge import MergeError

        try:  # headers and configs only: cheap, and says at once why a pair cannot be merged
            plan_merge(load_checkpoint(request.low), [load_checkpoint(request.high)], "float32")
        except MergeError as e:
            raise HTTPException(422, f"low/high cannot be merged: {e}") from None
    if request.mode == "in_place" and request.dtype is not None:
        raise HTTPException(422, "dtype applies to mode 'merger'; in place, the live model keeps its dtype")
    if request.mode == "in_place" and request.repair_turns:
        raise HTTPException(
            422, "repair_turns: a sweep's repair evaluation needs checkpoints on disk; use mode 'merger'"
        )
    _check_common(request)


# -- job state --------------------------------------------------------------------------------------
def _status(connection: Redis, queue, job_id: str, with_samples: bool) -> EvalStatus:
    job = status_job(
        connection, job_id, "eval", ("eval", "sweep"), serializer=JSONSerializer, lost_from=queue
    )
    status = job.get_status(refresh=False)
    meta = job.meta
    state = status.value if status is not None else "unknown"
    error = meta.get("error")
    if state == "failed" and not error:
        error = (
            "the eval job failed (worker lost or stopped); POST the same request with its run_dir to resume"
        )
    out = EvalStatus(
        job_id=job.id,
        kind=meta["kind"],
        status=state,
        stage=meta.get("stage"),
        progress=meta.get("progress") or {},
        run_dir=meta["run_dir"],
        error=error,
        request=(job.args[0] or {}).get("request", {}) if job.args else {},
        enqueued_at=_iso(job.enqueued_at),
        started_at=_iso(job.started_at),
        ended_at=_iso(job.ended_at),
    )
    if state == "finished":
        _attach_report(out, Path(meta["run_dir"]), with_samples)
    return out


def _attach_report(out: EvalStatus, run_dir: Path, with_samples: bool) -> None:
    from services.evaluator.reports import REPORT_JSON, REPORT_MD

    path = run_dir / REPORT_JSON
    try:
        report = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        out.error = f"the job finished but its report cannot be read: {e}"
        return
    if not with_samples:
        report.pop("samples", None)
    out.report = report
    out.report_md = str(run_dir / REPORT_MD)
    out.plots = {name: str(run_dir / rel) for name, rel in report.get("plots", {}).items()}


def _iso(t) -> str | None:
    return t.isoformat() if t is not None else None
