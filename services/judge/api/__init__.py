"""The judge's HTTP API (SPEC section 4): problems, synchronous and asynchronous batches, health, metrics.

The API keeps no state of its own: problems, batches and results live in Redis (layout in
`services.judge.queue.batches`), so any number of API processes can serve one Redis and a restart loses
nothing already accepted. Run it with `frontier serve judge` or
`uvicorn --factory services.judge.api:create_app`.

Every route but /healthz is included with a dependency that asks for the bearer token
FRONTIER_API_TOKEN where one is set (`services.security`); uploads are held to FRONTIER_MAX_PROBLEM_MB /
_FILES and submissions to FRONTIER_MAX_CODE_KB (413).

The package: `models` (HTTP bodies), `problems` and `batches` (routes), `operations` (/healthz,
/metrics), `state` (what the routes share, reached through the `JudgeStateDep` dependency), `metrics`,
`middleware`, `errors`; the compat APIs and sessions bring their own routers.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading

from fastapi import FastAPI

from services.judge.api import batches, operations, problems, session_submit
from services.judge.api.compat import CompatState
from services.judge.api.compat import router as compat_router
from services.judge.api.errors import redis_down
from services.judge.api.middleware import Timed
from services.judge.api.sessions import SessionsState
from services.judge.api.sessions import router as sessions_router
from services.judge.api.state import JudgeState, reaper
from services.judge.queue.connection import RedisDown
from services.security import api_dependencies
from services.serving import guard
from services.settings import Settings, get_settings

__all__ = ["create_app"]


def create_app(settings: Settings | None = None) -> FastAPI:
    """The judge's app: its state (Redis, metrics) on `app.state.judge`, the routers, the middleware."""
    settings = settings or get_settings()
    state = JudgeState(settings)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI):
        stop = threading.Event()
        thread = threading.Thread(target=reaper, args=(state, stop), name="judge-reaper", daemon=True)
        thread.start()
        ticker = asyncio.create_task(state.loop_lag.run())
        try:
            yield
        finally:
            ticker.cancel()
            stop.set()
            await state.aconn.aclose()

    app = FastAPI(
        title="codefrontier judge",
        version="0.1.0",
        description="Sandboxed judging with nested test-coverage rewards R_k (SPEC sections 2-4).",
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.judge = state
    guard(app, settings)  # 413 past FRONTIER_MAX_BODY_MB, readable 422s (services/serving.py)
    for down in RedisDown:
        app.add_exception_handler(down, redis_down)
    app.add_middleware(Timed, histogram=state.metrics.request_seconds, clients=state.metrics.clients)
    problems.document_problem_upload(app)
    # every route but /healthz asks for the bearer token where one is set
    auth = api_dependencies(settings)
    app.include_router(problems.router, dependencies=auth)
    app.include_router(batches.router, dependencies=auth)
    app.include_router(operations.health)
    app.include_router(operations.router, dependencies=auth)
    # compat and sessions: routers with a state dependency each, counting in the judge's /metrics
    metrics = state.metrics
    app.state.compat = CompatState(
        settings,
        state.conn,
        state.aconn,
        registry=metrics.registry,
        deadline_events=metrics.deadlines,
        loop_lag=state.loop_lag,
    )
    app.state.sessions = SessionsState(settings, state.conn, state.aconn, registry=metrics.registry)
    app.include_router(compat_router, dependencies=auth)
    app.include_router(sessions_router, dependencies=auth)
    app.include_router(session_submit.router, dependencies=auth)
    return app
