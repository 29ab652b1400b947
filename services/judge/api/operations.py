"""Operations: GET /healthz (no token: what load balancers and `make up` probe) and GET /metrics
(Prometheus text format)."""

from __future__ import annotations

import asyncio
import time
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query, Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from services.judge.api.state import JudgeStateDep
from services.judge.queue.batches import depth_and_starved
from services.serving import JsonRoute

# /healthz answers without the bearer token
health = APIRouter(route_class=JsonRoute)
router = APIRouter(route_class=JsonRoute)


@health.get("/healthz", responses={503: {}})
async def healthz(
    state: JudgeStateDep,
    min_workers: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
) -> dict[str, Any]:
    """200 when Redis answers; says how many worker loops are alive (services/judge/queue/presence.py).
    With `min_workers`, 503 while fewer are: a readiness probe that waits for a worker
    (deploy/helm: `/healthz?min_workers=1`)."""
    await state.aconn.ping()
    workers = await asyncio.to_thread(state.n_workers)
    queued, starved_at = await depth_and_starved(state.aconn, state.keys)
    if workers < min_workers:
        raise HTTPException(503, detail=f"{workers} judge worker loop(s) alive, {min_workers} wanted")
    out = {"status": "ok", "redis": "ok", "workers": workers, "queue_depth": queued, "host": "ok"}
    if starved_at is not None:  # docs/spec.md 4.1: a worker's host kept a run waiting for a CPU
        out["host"] = "oversubscribed"
        out["host_note"] = (
            f"a run was starved (kept waiting for a CPU at its wall limit) {int(time.time()) - starved_at} s "
            f"ago; its test was run again, or answered judge_error: FRONTIER_SLOTS against the CPUs "
            "the workers may use, or other work on their hosts (docs/spec.md 4.1)"
        )
    return out


@router.get("/metrics")
def prometheus_metrics(state: JudgeStateDep) -> Response:
    """Prometheus text format."""
    return Response(generate_latest(state.metrics.registry), media_type=CONTENT_TYPE_LATEST)
