"""The merger service: POST /merge queues a merge job, GET /merge/{job_id} reports it (SPEC section 4).

    frontier serve merger [--host 127.0.0.1] [--port 8001] [--queue merge]

The API only checks requests and reads job state; the work runs in merger worker processes (`frontier worker merger`), which
may sit on other hosts that see the same paths. Every path a request names (inputs, output_dir) must
lie under FRONTIER_DATA_ROOTS once symlinks are resolved; hub ids are not paths and stay allowed.
Every route but /healthz asks for the bearer token FRONTIER_API_TOKEN where one is set.

The routes are module routers (`router`, `health`) reaching the app's `MergerState` through the
`MergerStateDep` dependency, as the judge's API does; `create_app` makes the state and includes them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, Depends, FastAPI, HTTPException, Request
from redis.exceptions import RedisError
from rq import Queue
from rq.job import Job

from merger.models import JobAccepted, JobProgress, JobStatus, MergeRequest, OutputStatus
from services.jobs import queue_health, status_job
from services.merger.worker import enqueue_merge
from services.redis_conn import open_redis
from services.security import (
    PathNotAllowed,
    api_dependencies,
    confine,
    is_hub_id,
)
from services.serving import JsonRoute, guard
from services.settings import Settings, get_settings


class MergerState:
    """What the routes share: the settings, the Redis connection and the merge queue."""

    def __init__(self, settings: Settings, redis_url: str | None = None, queue_name: str | None = None):
        self.settings = settings
        self.connection = open_redis(redis_url or settings)
        self.queue = Queue(queue_name or settings.merger_queue, connection=self.connection)


async def merger_state(request: Request) -> MergerState:
    """The app's MergerState (made by create_app): what a route declares as `state: MergerStateDep`."""
    return request.app.state.merger


MergerStateDep = Annotated[MergerState, Depends(merger_state)]

# /healthz answers without the bearer token; `router` is included with it (create_app)
health = APIRouter(route_class=JsonRoute)
router = APIRouter(route_class=JsonRoute)


@router.post("/merge", status_code=202, response_model=JobAccepted, responses={409: {}, 422: {}, 503: {}})
def submit(request: MergeRequest, state: MergerStateDep) -> JobAccepted:
    """Queue a merge. The alpha form writes output_dir/alpha_<a>/ per alpha in one pass."""
    _check_paths(request, state.settings)
    try:
        job = enqueue_merge(state.queue, request, state.settings)
    except RedisError as e:
        raise HTTPException(503, f"the job queue is unavailable: {e}") from None
    return JobAccepted(job_id=job.id)


@router.get("/merge/{job_id}", response_model=JobStatus, responses={404: {}, 503: {}})
def status(job_id: str, state: MergerStateDep) -> JobStatus:
    """Status, progress per tensor and per output, output paths, and the error of a failed job."""
    return _job_status(status_job(state.connection, job_id, "merge", ("merge",)))


@health.get("/healthz")
def healthz(state: MergerStateDep) -> dict:
    return queue_health(state.connection, state.queue)


def create_app(
    redis_url: str | None = None, queue_name: str | None = None, settings: Settings | None = None
) -> FastAPI:
    """The merger's app: its state on `app.state.merger`, the routers (built per call, never at import)."""
    settings = settings or get_settings()
    app = FastAPI(
        title="codefrontier merger",
        description="Alpha-merges theta_a = a*high + (1-a)*low (a inside or outside [0, 1]) and "
        "task-arithmetic merges theta = base + sum_i w_i (theta_i - base) of safetensors checkpoints.",
    )
    app.state.merger = MergerState(settings, redis_url, queue_name)
    guard(app, settings)  # 413 past FRONTIER_MAX_BODY_MB, readable 422s (services/serving.py)
    # every route but /healthz: the bearer token where one is set
    app.include_router(router, dependencies=api_dependencies(settings))
    app.include_router(health)
    return app


def _check_paths(request: MergeRequest, settings: Settings) -> None:
    """What the API can say at once: paths must be absolute and under the data roots, local inputs
    must exist (422), and outputs must not (409, unless overwrite). Hub ids are left to the worker."""
    if not Path(request.output_dir).is_absolute():
        raise HTTPException(422, f"output_dir must be an absolute path, got {request.output_dir!r}")
    try:
        confine(request.output_dir, settings, "output_dir")
        for field, source in request.input_sources().items():
            if source.startswith("/"):
                # confined before it is looked at, so the answer says nothing of paths outside the roots
                confine(source, settings, field)
                if not Path(source).is_dir():
                    raise HTTPException(422, f"{field}: no such directory: {source!r}")
            elif not is_hub_id(source):
                raise HTTPException(422, f"{field}: must be an absolute path or a hub id: {source!r}")
            # else a hub id: the worker downloads it and never reads it as a directory of its own
            # current directory (run_merge_job merges with relative_local=False)
    except PathNotAllowed as err:
        raise HTTPException(422, str(err)) from None
    if not request.overwrite:
        for out in request.planned_outputs():
            if Path(out["path"]).exists():
                raise HTTPException(409, f"output {out['path']} already exists (set overwrite to replace it)")


def _job_status(job: Job) -> JobStatus:
    meta = job.meta
    status = job.get_status(refresh=False)
    error = meta.get("error")
    if status is not None and status.value == "failed" and not error:
        error = "the merge job failed (worker lost or stopped)"
    return JobStatus(
        job_id=job.id,
        status=status.value if status is not None else "unknown",
        progress=JobProgress(**meta.get("progress") or {}),
        outputs=[OutputStatus(**o) for o in meta.get("outputs", [])],
        notes=meta.get("notes", []),
        error=error,
        seconds=meta.get("seconds"),
        enqueued_at=_iso(job.enqueued_at),
        started_at=_iso(job.started_at),
        ended_at=_iso(job.ended_at),
    )


def _iso(t) -> str | None:
    return t.isoformat() if t is not None else None
