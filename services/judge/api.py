"""The judge's HTTP API (SPEC section 4): problems, synchronous and asynchronous batches, health, metrics.

The API keeps no state of its own: problems, batches and results live in Redis (layout in
`services.judge.worker`), so any number of API processes can serve one Redis and a restart loses
nothing already accepted. Run it with `frontier serve judge` or
`uvicorn --factory services.judge.api:create_app`.

Every route but /healthz sits on one router that asks for the bearer token FRONTIER_API_TOKEN where one
is set (`services.security`); uploads are held to FRONTIER_MAX_PROBLEM_MB / _FILES and submissions to
FRONTIER_MAX_CODE_KB (413).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import threading
import time
import uuid
from typing import Annotated, Any

import pydantic_core
import redis
import redis.asyncio as aioredis
from fastapi import APIRouter, FastAPI, HTTPException, Path, Query, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.process_collector import ProcessCollector
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from rq import Worker

from services.judge import feedback
from services.judge.compat import router as compat_router
from services.judge.sessions.routes import router as sessions_router
from services.judge.models import JudgeResult, Mode, Submission
from services.judge.worker import (
    RATE_WINDOW_S,
    Keys,
    Unit,
    chunk_units,
    connect,
    job_datas,
    judge_queue,
    reap,
)
from services.problems.spec import PROBLEM_ID_RE, ProblemSpec, ProgramChecker
from services.problems.store import (
    Problem,
    ProblemError,
    ProblemLimits,
    ProblemTooLarge,
    build_problem,
    load_problem_tar,
    sha256,
)
from services.security import api_dependencies
from services.settings import Settings, get_settings

log = logging.getLogger(__name__)

GZIP_TYPES = ("application/gzip", "application/x-gzip", "application/x-tar+gzip", "application/tar+gzip")
_WAIT_STEP_S = 5.0
_REAP_INTERVAL_S = 1.0


# -- HTTP bodies ------------------------------------------------------------------------------------
class SubmissionIn(Submission):
    """One program to judge: `code`, or a model's `completion` to extract the code from."""

    @model_validator(mode="after")
    def _code_or_completion(self) -> SubmissionIn:
        if (self.code is None) == (self.completion is None):
            raise ValueError("give exactly one of 'code' and 'completion'")
        return self


class JudgeRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    submissions: list[SubmissionIn]
    mode: Mode = "first_failure"
    ks: list[Annotated[int, Field(ge=1, le=18)]] | None = Field(
        default=None, description="Which R_k to report; default: every k the problem's tests need."
    )
    feedback: bool = Field(
        default=False,
        description="Failing results carry `feedback` and `feedback_text` (docs/spec.md section 5.1); "
        "only public tests show their content.",
    )
    feedback_template: str | dict[str, str | int] | None = Field(
        default=None,
        description="How feedback_text is written: a style name ('rlef', 'stats') or an object of "
        "template parts; default FRONTIER_FEEDBACK_TEMPLATE.",
    )

    @field_validator("feedback_template")
    @classmethod
    def _template_ok(cls, v: str | dict | None) -> str | dict | None:
        if v is not None:
            feedback.parse_template(v)  # a ValueError names what is wrong (422)
        return v


class JudgeResponse(BaseModel):
    results: list[JudgeResult]


class BatchAccepted(BaseModel):
    batch_id: str


class BatchStatus(BaseModel):
    batch_id: str
    status: str = Field(description="queued | running | done")
    submissions: int
    distinct: int = Field(description="distinct (code, language, problem) units judged for the batch")
    judged: int = Field(description="distinct units judged so far")
    results: list[JudgeResult] | None = None


class TestIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    input: str
    output: str


class ProblemUpload(ProblemSpec):
    """problem.json's fields plus the tests; `statement` is the statement's Markdown text here."""

    # filled in from the URL before validation when absent (`_problem_from_json`), so never empty here
    id: str = Field(default="", description="The problem id; defaults to the URL's, must equal it if given.")
    statement: str = Field(default="", description="The statement's Markdown text.")
    tests: list[TestIn] = Field(min_length=1)


class ProblemStored(BaseModel):
    id: str
    digest: str
    created: bool
    tests: int
    blobs_new: int = Field(description="test files stored now")
    blobs_reused: int = Field(description="test files already stored (same content)")
    summary: dict[str, Any]


# -- errors a person can read -----------------------------------------------------------------------
def _describe(err: dict) -> str:
    loc = [str(p) for p in err.get("loc", ()) if p != "body"]
    where = ".".join(loc) or "body"
    if err.get("type") == "json_invalid":
        where = f" at character {loc[-1]}" if loc and loc[-1].isdigit() else ""
        return f"malformed JSON{where}: {err.get('ctx', {}).get('error', 'cannot be parsed')}"
    if err.get("type") == "literal_error" and loc and loc[-1] == "language":
        return f"{where}: unsupported language {err.get('input')!r}; supported: python, cpp"
    msg = err.get("msg", "invalid")
    value = err.get("input")
    if isinstance(value, str | int | float) and len(str(value)) <= 40 and err.get("type") != "missing":
        msg += f" (got {value!r})"
    return f"{where}: {msg}"


async def _validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
    errors = exc.errors()
    return JSONResponse(
        status_code=422,
        content={
            "detail": "; ".join(_describe(e) for e in errors[:20]),
            "errors": [
                {"loc": list(e.get("loc", ())), "msg": e.get("msg"), "type": e.get("type")} for e in errors
            ],
        },
    )


def _invalid(err: ValidationError, prefix: tuple = ("body",)) -> RequestValidationError:
    return RequestValidationError([{**e, "loc": (*prefix, *e["loc"])} for e in err.errors()])


async def _redis_down(request: Request, exc: Exception) -> JSONResponse:
    settings: Settings = request.app.state.settings
    return JSONResponse(
        status_code=503,
        headers={"Retry-After": "5"},
        content={
            "detail": f"the judge's Redis ({_safe_url(settings.redis_url)}) is unavailable: {exc}. "
            "Nothing was accepted by this request; retry when Redis is back."
        },
    )


def _safe_url(url: str) -> str:
    """The Redis URL without a password."""
    if "@" in url:
        scheme, rest = url.split("://", 1)
        return f"{scheme}://***@{rest.split('@', 1)[1]}"
    return url


class _BodyLimit:
    """ASGI middleware: 413 for a body over `max_bytes`, by Content-Length or while it streams in."""

    def __init__(self, app, max_bytes: int):
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        message = f"request body over the limit of {self.max_bytes // (1 << 20)} MB (FRONTIER_MAX_BODY_MB)"
        for name, value in scope.get("headers", ()):
            if name == b"content-length" and value.isdigit() and int(value) > self.max_bytes:
                response = JSONResponse(status_code=413, content={"detail": message})
                return await response(scope, receive, send)
        seen = 0

        async def limited():
            nonlocal seen
            msg = await receive()
            if msg["type"] == "http.request":
                seen += len(msg.get("body", b""))
                if seen > self.max_bytes:
                    raise HTTPException(status_code=413, detail=message)
            return msg

        return await self.app(scope, limited, send)


class _Timed:
    """ASGI middleware: request latency by method, route template and status."""

    def __init__(self, app, histogram: Histogram):
        self.app = app
        self.histogram = histogram

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        start = time.perf_counter()
        status = 500

        async def send_status(message):
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_status)
        finally:
            route = getattr(scope.get("route"), "path", "unmatched")
            self.histogram.labels(scope["method"], route, str(status)).observe(time.perf_counter() - start)


# -- metrics ----------------------------------------------------------------------------------------
class _Metrics:
    """This API process's counters and histograms, plus cluster-wide figures read from Redis at scrape."""

    def __init__(self, state: _State):
        self.registry = CollectorRegistry()
        r = self.registry
        self.submissions = Counter(
            "frontier_judge_submissions", "Submissions accepted by this API process.", registry=r
        )
        self.distinct = Counter(
            "frontier_judge_distinct_submissions",
            "Distinct (code, language, problem) units among them: what the workers judge.",
            registry=r,
        )
        self.batches = Counter(
            "frontier_judge_batches", "Batches accepted, by endpoint.", ["endpoint"], registry=r
        )
        self.rejected = Counter(
            "frontier_judge_rejected", "Requests refused, by reason.", ["reason"], registry=r
        )
        self.batch_seconds = Histogram(
            "frontier_judge_batch_seconds",
            "POST /judge latency, request to answer.",
            buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600),
            registry=r,
        )
        self.request_seconds = Histogram(
            "frontier_judge_http_request_seconds",
            "HTTP request latency by route.",
            ["method", "route", "status"],
            buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30, 300),
            registry=r,
        )
        ProcessCollector(registry=r)
        r.register(_ClusterCollector(state))


class _ClusterCollector:
    """Queue depth, worker count, tests/s and verdict counts of the whole cluster, from Redis."""

    def __init__(self, state: _State):
        self.state = state

    def collect(self):
        up = GaugeMetricFamily("frontier_judge_redis_up", "1 when Redis answered this scrape.")
        try:
            figures = self._read()
        except redis.RedisError:
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        yield from figures

    def _read(self) -> list:
        s = self.state
        conn, keys = s.conn, s.keys
        queue = judge_queue(conn, s.settings)
        second = int(time.time())
        with conn.pipeline(transaction=False) as pipe:
            pipe.llen(queue.key)
            pipe.get(keys.queued)
            pipe.hgetall(keys.stats)
            for sec in range(second - RATE_WINDOW_S, second):
                pipe.hget(keys.rate(sec), "tests")
            jobs, queued, stats, *rates = pipe.execute()
        stats = {k.decode(): int(v) for k, v in stats.items()}
        out = []
        g = GaugeMetricFamily("frontier_judge_queue_jobs", "Jobs waiting in the RQ queue.")
        g.add_metric([], jobs)
        out.append(g)
        g = GaugeMetricFamily(
            "frontier_judge_queue_depth",
            "Distinct submissions accepted and not yet judged (429 past the limit).",
        )
        g.add_metric([], int(queued or 0))
        out.append(g)
        g = GaugeMetricFamily(
            "frontier_judge_workers", "RQ worker loops (one per sandbox slot) on the queue."
        )
        g.add_metric([], Worker.count(queue=queue))
        out.append(g)
        g = GaugeMetricFamily(
            "frontier_judge_tests_per_second", f"Tests run per second over the last {RATE_WINDOW_S} s."
        )
        g.add_metric([], sum(int(x or 0) for x in rates) / RATE_WINDOW_S)
        out.append(g)
        c = CounterMetricFamily("frontier_judge_judged", "Distinct submissions judged by the workers.")
        c.add_metric([], stats.get("judged", 0))
        out.append(c)
        c = CounterMetricFamily("frontier_judge_tests", "Tests run by the workers (not counting SKIPPED).")
        c.add_metric([], stats.get("tests", 0))
        out.append(c)
        for name, field, doc in (
            ("frontier_judge_verdicts", "verdict", "Per-test verdicts."),
            ("frontier_judge_outcomes", "outcome", "Outcome classes of judged submissions."),
            ("frontier_judge_results", "status", "Results by status (ok, judge_error)."),
        ):
            c = CounterMetricFamily(name, doc, labels=[field])
            for key, value in sorted(stats.items()):
                if key.startswith(field + ":"):
                    c.add_metric([key.split(":", 1)[1]], value)
            out.append(c)
        return out


# -- state ------------------------------------------------------------------------------------------
class _State:
    def __init__(self, settings: Settings):
        self.settings = settings
        self.keys = Keys(settings.redis_prefix)
        self.conn = connect(settings)
        # blocking waits hold a connection each; they get their own pool and a socket timeout above the wait
        self.aconn = aioredis.Redis.from_url(
            settings.redis_url, socket_connect_timeout=2, socket_timeout=_WAIT_STEP_S + 10
        )
        self.metrics = _Metrics(self)
        self._workers = (0.0, 0)

    def n_workers(self) -> int:
        """Worker loops on the queue (cached for 2 s): how finely a batch is cut into jobs."""
        at, n = self._workers
        if time.monotonic() - at > 2:
            n = Worker.count(queue=judge_queue(self.conn, self.settings))
            self._workers = (time.monotonic(), n)
        return n


def _reaper(state: _State, stop: threading.Event) -> None:
    while not stop.wait(_REAP_INTERVAL_S):
        try:
            reap(state.conn, state.settings)
        except redis.RedisError as err:
            log.debug("reaper: %s", err)
        except Exception:  # noqa: BLE001 - the reaper must outlive any one bad job
            log.exception("reaper")


# -- the app ----------------------------------------------------------------------------------------
def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()
    state = _State(settings)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI):
        stop = threading.Event()
        thread = threading.Thread(target=_reaper, args=(state, stop), name="judge-reaper", daemon=True)
        thread.start()
        try:
            yield
        finally:
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
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(redis.ConnectionError, _redis_down)
    app.add_exception_handler(redis.TimeoutError, _redis_down)
    app.add_middleware(_BodyLimit, max_bytes=settings.max_body_mb << 20)
    metrics = state.metrics
    app.add_middleware(_Timed, histogram=metrics.request_seconds)
    _document_problem_upload(app)
    # every route but /healthz sits on this router, which asks for the bearer token where one is set
    api = APIRouter(dependencies=api_dependencies(settings))
    limits = ProblemLimits.from_settings(settings)

    # -- problems -----------------------------------------------------------------------------------
    @api.put(
        "/problems/{problem_id}",
        response_model=ProblemStored,
        responses={201: {"model": ProblemStored}, 413: {}, 422: {}},
        openapi_extra={
            "requestBody": {
                "required": True,
                "content": {
                    "application/json": {"schema": {"$ref": "#/components/schemas/ProblemUpload"}},
                    "application/gzip": {"schema": {"type": "string", "format": "binary"}},
                },
            }
        },
    )
    async def put_problem(
        request: Request,
        # the pattern is documented here and checked below, with a message that names it
        problem_id: Annotated[str, Path(json_schema_extra={"pattern": PROBLEM_ID_RE.pattern})],
    ) -> JSONResponse:
        """Upload a problem: problem.json's fields plus `tests` as JSON, or the problem directory as a
        tar.gz (`Content-Type: application/gzip`). Idempotent; each test file is stored once by hash."""
        if not PROBLEM_ID_RE.match(problem_id):
            raise HTTPException(422, f"bad problem id {problem_id!r}: {PROBLEM_ID_RE.pattern}")
        body = await request.body()
        ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
        blobs = _Blobs()
        try:
            if ctype in GZIP_TYPES:
                problem = await asyncio.to_thread(load_problem_tar, body, blobs, limits)
                if problem.id != problem_id:
                    raise HTTPException(
                        422, f"the archive's problem.json has id {problem.id!r}, the URL says {problem_id!r}"
                    )
            elif ctype in ("application/json", ""):
                problem = await asyncio.to_thread(_problem_from_json, body, problem_id, blobs, limits)
            else:
                raise HTTPException(
                    415, f"Content-Type {ctype!r}: send application/json or application/gzip (a tar.gz)"
                )
        except ProblemTooLarge as err:
            metrics.rejected.labels("problem_too_large").inc()
            raise HTTPException(413, str(err)) from None
        except ProblemError as err:
            raise HTTPException(422, str(err)) from None
        stored = await asyncio.to_thread(_store_problem, state, problem, blobs)
        return JSONResponse(status_code=201 if stored.created else 200, content=stored.model_dump())

    @api.get("/problems")
    async def list_problems() -> list[dict[str, Any]]:
        """Every problem's metadata, test count and input sizes."""
        raw = await state.aconn.hgetall(state.keys.summaries)
        return sorted((json.loads(v) for v in raw.values()), key=lambda s: s["id"])

    @api.get("/problems/{problem_id}", responses={404: {}})
    async def get_problem(problem_id: str) -> dict[str, Any]:
        """One problem: metadata, statement, and each test's name, input size and content hashes."""
        digest = await state.aconn.hget(state.keys.problems, problem_id)
        raw = await state.aconn.get(state.keys.pdef(digest.decode())) if digest else None
        if raw is None:
            raise HTTPException(
                404, f"unknown problem {problem_id!r}; upload it with PUT /problems/{problem_id}"
            )
        problem = Problem.model_validate_json(raw)
        return {
            **problem.summary(),
            "digest": digest.decode(),
            "statement": problem.statement,
            "tests": [{**t.model_dump(), "public": problem.is_public(t.name)} for t in problem.tests],
        }

    # -- batches ------------------------------------------------------------------------------------
    @api.post(
        "/judge",
        response_model=JudgeResponse,
        responses={404: {}, 413: {}, 422: {}, 429: {}, 503: {}, 504: {}},
    )
    async def judge(body: JudgeRequest) -> Response:
        """Judge a batch; answers when every submission is judged, in the request's order and ids."""
        start = time.perf_counter()
        batch_id = await _accept(state, body, "judge")
        if not await _wait_done(state, batch_id, settings.judge_wait_s):
            return JSONResponse(
                status_code=504,
                content={
                    "detail": f"batch {batch_id} not finished after {settings.judge_wait_s} s "
                    f"(FRONTIER_JUDGE_WAIT_S); it keeps running: GET /submissions/{batch_id}",
                    "batch_id": batch_id,
                },
            )
        content = b'{"results":' + await _results_json(state, batch_id) + b"}"
        metrics.batch_seconds.observe(time.perf_counter() - start)
        return Response(content=content, media_type="application/json")

    @api.post(
        "/submissions",
        status_code=202,
        response_model=BatchAccepted,
        responses={404: {}, 413: {}, 422: {}, 429: {}, 503: {}},
    )
    async def submit(body: JudgeRequest) -> BatchAccepted:
        """Accept a batch at once; its state and results are kept in Redis (FRONTIER_RESULT_TTL_S)."""
        return BatchAccepted(batch_id=await _accept(state, body, "submissions"))

    @api.get("/submissions/{batch_id}", response_model=BatchStatus, responses={404: {}})
    async def batch_status(batch_id: str, wait_s: Annotated[float, Query(ge=0, le=300)] = 0) -> Response:
        """A batch's status, and its results once done. `wait_s` waits up to that long for it to finish."""
        meta = await state.aconn.hgetall(state.keys.batch(batch_id))
        if not meta:
            raise HTTPException(404, f"unknown batch {batch_id!r} (never accepted, or expired)")
        if wait_s > 0:
            await _wait_done(state, batch_id, wait_s)
        judged = await state.aconn.hlen(state.keys.results(batch_id))
        n_units = int(meta[b"n_units"])
        head = {
            "batch_id": batch_id,
            "status": "done" if judged >= n_units else ("running" if judged else "queued"),
            "submissions": int(meta[b"n_subs"]),
            "distinct": n_units,
            "judged": judged,
        }
        if judged < n_units:
            return JSONResponse(head)
        results = await _results_json(state, batch_id)
        body = json.dumps(head)[:-1].encode() + b',"results":' + results + b"}"
        return Response(content=body, media_type="application/json")

    # -- operations ---------------------------------------------------------------------------------
    @app.get("/healthz", responses={503: {}})
    async def healthz() -> dict[str, Any]:
        """200 when Redis answers; says how many worker loops serve the queue."""
        await state.aconn.ping()
        workers = await asyncio.to_thread(state.n_workers)
        queued = int(await state.aconn.get(state.keys.queued) or 0)
        return {"status": "ok", "redis": "ok", "workers": workers, "queue_depth": queued}

    @api.get("/metrics")
    def prometheus_metrics() -> Response:
        """Prometheus text format."""
        return Response(generate_latest(metrics.registry), media_type=CONTENT_TYPE_LATEST)

    app.include_router(api)
    app.include_router(compat_router(settings, state.conn, state.aconn, registry=metrics.registry))
    app.include_router(sessions_router(settings, state.conn, state.aconn, registry=metrics.registry))
    return app


def _document_problem_upload(app: FastAPI) -> None:
    """PUT /problems reads its body itself (JSON or tar.gz); put the JSON form's schema in the OpenAPI."""
    make_schema = app.openapi

    def openapi() -> dict:
        if app.openapi_schema is None:
            schema = make_schema()
            upload = ProblemUpload.model_json_schema(ref_template="#/components/schemas/{model}")
            components = schema.setdefault("components", {}).setdefault("schemas", {})
            components.update(upload.pop("$defs", {}))
            components["ProblemUpload"] = upload
        return app.openapi_schema

    app.openapi = openapi


# -- problems: JSON uploads and storing -------------------------------------------------------------
class _Blobs:
    """Collects test bytes by content hash; stands in for TestStore.put while a problem is built."""

    def __init__(self):
        self.data: dict[str, bytes] = {}

    def put(self, data: bytes) -> str:
        digest = sha256(data)
        self.data[digest] = data
        return digest


def _problem_from_json(body: bytes, problem_id: str, blobs: _Blobs, limits: ProblemLimits) -> Problem:
    try:
        # pydantic's parser, as for every other body: it refuses lone surrogates, which no file can hold
        raw = pydantic_core.from_json(body)
    except ValueError as err:
        raise RequestValidationError(
            [{"type": "json_invalid", "loc": ("body",), "msg": str(err), "ctx": {"error": str(err)}}]
        ) from None
    if not isinstance(raw, dict):
        raise HTTPException(422, "the body must be a JSON object: problem.json's fields plus 'tests'")
    if raw.setdefault("id", problem_id) != problem_id:
        raise HTTPException(422, f"body id {raw['id']!r} differs from the URL's {problem_id!r}")
    try:
        upload = ProblemUpload.model_validate(raw)
    except ValidationError as err:
        raise _invalid(err) from None
    checker_source = None
    if isinstance(upload.checker, ProgramChecker):
        if not upload.checker.source:
            raise HTTPException(422, "checker: a program checker uploaded over HTTP needs its 'source'")
        checker_source = upload.checker.source
    spec = ProblemSpec.model_validate(upload.model_dump(exclude={"tests", "statement"}))
    tests = [(t.name, t.input.encode(), t.output.encode()) for t in upload.tests]
    return build_problem(spec, tests, blobs, upload.statement, checker_source, limits)


def _store_problem(state: _State, problem: Problem, blobs: _Blobs) -> ProblemStored:
    """Blobs only where absent (each test file stored once), then the definition under its digest."""
    conn, keys = state.conn, state.keys
    digests = sorted(blobs.data)
    with conn.pipeline(transaction=False) as pipe:
        for d in digests:
            pipe.exists(keys.blob(d))
        present = pipe.execute()
    new = [d for d, there in zip(digests, present, strict=True) if not there]
    with conn.pipeline(transaction=False) as pipe:
        for d in new:
            pipe.set(keys.blob(d), blobs.data[d], nx=True)
        stored = pipe.execute()
    definition = problem.model_dump_json()
    digest = sha256(definition.encode())
    summary = problem.summary()
    with conn.pipeline(transaction=True) as pipe:
        pipe.set(keys.pdef(digest), definition)
        pipe.hset(keys.problems, problem.id, digest)
        pipe.hset(keys.summaries, problem.id, json.dumps({**summary, "digest": digest}))
        created = pipe.execute()[1] == 1
    n_new = sum(1 for s in stored if s)
    return ProblemStored(
        id=problem.id,
        digest=digest,
        created=created,
        tests=len(problem.tests),
        blobs_new=n_new,
        blobs_reused=len(digests) - n_new,
        summary=summary,
    )


# -- batches: accept, wait, answer ------------------------------------------------------------------
async def _accept(state: _State, body: JudgeRequest, endpoint: str) -> str:
    """Dedupe, admit against the queue limit, and enqueue a batch; returns its id."""
    settings, keys, metrics = state.settings, state.keys, state.metrics
    _check_code_sizes(body, settings, metrics)
    problem_ids = list(dict.fromkeys(s.problem_id for s in body.submissions))
    digests = (
        dict(zip(problem_ids, await state.aconn.hmget(keys.problems, problem_ids), strict=True))
        if problem_ids
        else {}
    )
    unknown = [p for p, d in digests.items() if d is None]
    if unknown:
        shown = ", ".join(repr(p) for p in unknown[:10]) + (" ..." if len(unknown) > 10 else "")
        raise HTTPException(404, f"unknown problem(s) {shown}; upload with PUT /problems/{{id}}")
    units: list[Unit] = []
    index: dict[tuple, int] = {}
    rows = []
    for s in body.submissions:
        digest = digests[s.problem_id].decode()
        # one unit per distinct program within this batch; mode, ks and feedback are the batch's, so a
        # result is never shared with a batch that asked for other ones (no cache across batches)
        key = (s.code, s.completion, s.language, digest)
        u = index.get(key)
        if u is None:
            u = index[key] = len(units)
            units.append(
                Unit(
                    u=u,
                    problem_id=s.problem_id,
                    problem=digest,
                    language=s.language,
                    code=s.code,
                    completion=s.completion,
                )
            )
        rows.append((s.id, s.problem_id, u))
    if len(units) > settings.max_queue_depth:
        metrics.rejected.labels("too_large").inc()
        raise HTTPException(
            413,
            f"{len(units)} distinct submissions in one batch exceed the judge's queue capacity of "
            f"{settings.max_queue_depth} (FRONTIER_MAX_QUEUE_DEPTH); split the batch",
        )
    batch_id = uuid.uuid4().hex
    if units:
        depth = await state.aconn.eval(_ADMIT_LUA, 1, keys.queued, len(units), settings.max_queue_depth)
        if depth < 0:
            metrics.rejected.labels("queue_full").inc()
            retry_after = await _retry_after(state)
            raise HTTPException(
                429,
                f"the judge's queue is full ({settings.max_queue_depth} distinct submissions waiting); "
                f"retry in {retry_after} s",
                headers={"Retry-After": str(retry_after)},
            )
    try:
        await asyncio.to_thread(_enqueue, state, batch_id, body, units, rows)
    except BaseException:
        with contextlib.suppress(redis.RedisError):
            await state.aconn.decrby(keys.queued, len(units))
        raise
    metrics.submissions.inc(len(rows))
    metrics.distinct.inc(len(units))
    metrics.batches.labels(endpoint).inc()
    return batch_id


def _check_code_sizes(body: JudgeRequest, settings: Settings, metrics: _Metrics) -> None:
    """413 naming the first submission whose code (or completion) is over FRONTIER_MAX_CODE_KB."""
    limit = settings.max_code_kb << 10
    for s in body.submissions:
        text = s.code if s.code is not None else s.completion
        # UTF-8 takes at most 4 bytes a character: only a long text needs encoding to be measured
        if text is not None and len(text) * 4 > limit and len(text.encode()) > limit:
            metrics.rejected.labels("code_too_large").inc()
            field = "code" if s.code is not None else "completion"
            raise HTTPException(
                413,
                f"submission {s.id!r}: {field} is {len(text.encode()) >> 10} KB, over the limit of "
                f"{settings.max_code_kb} KB per submission (FRONTIER_MAX_CODE_KB)",
            )


# INCRBY the depth; past the limit take it back and answer -1
_ADMIT_LUA = """
local depth = redis.call('INCRBY', KEYS[1], ARGV[1])
if depth > tonumber(ARGV[2]) then
  redis.call('DECRBY', KEYS[1], ARGV[1])
  return -1
end
return depth
"""


async def _retry_after(state: _State) -> int:
    """Seconds until the queue has room, from the recent judging rate; 5 when nothing is known."""
    second = int(time.time())
    async with state.aconn.pipeline(transaction=False) as pipe:
        pipe.get(state.keys.queued)
        for sec in range(second - RATE_WINDOW_S, second):
            pipe.hget(state.keys.rate(sec), "units")
        queued, *rates = await pipe.execute()
    per_s = sum(int(r or 0) for r in rates) / RATE_WINDOW_S
    if per_s <= 0:
        return 5
    excess = max(1, int(queued or 0) - state.settings.max_queue_depth // 2)
    return max(1, min(60, math.ceil(excess / per_s)))


def _enqueue(state: _State, batch_id: str, body: JudgeRequest, units: list[Unit], rows: list) -> None:
    settings, keys, conn = state.settings, state.keys, state.conn
    queue = judge_queue(conn, settings)
    ttl = settings.result_ttl_s
    jobs = chunk_units(units, state.n_workers(), settings.job_chunk_size)
    with conn.pipeline(transaction=True) as pipe:
        pipe.hset(
            keys.batch(batch_id),
            mapping={
                "n_subs": len(rows),
                "n_units": len(units),
                "mode": body.mode,
                "ks": json.dumps(body.ks),
                "created_s": f"{time.time():.3f}",
            },
        )
        pipe.expire(keys.batch(batch_id), ttl)
        pipe.set(keys.subs(batch_id), json.dumps(rows), ex=ttl)
        if not units:
            pipe.rpush(keys.done(batch_id), "1")
            pipe.expire(keys.done(batch_id), ttl)
        datas = job_datas(
            queue, settings, batch_id, body.mode, body.ks, jobs, body.feedback, body.feedback_template
        )
        queue.enqueue_many(datas, pipeline=pipe)
        pipe.execute()


async def _wait_done(state: _State, batch_id: str, wait_s: float) -> bool:
    """Block on the batch's done list (BLMOVE onto itself keeps the token for other readers)."""
    key = state.keys.done(batch_id)
    deadline = time.monotonic() + wait_s
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        if await state.aconn.blmove(key, key, min(left, _WAIT_STEP_S), "LEFT", "RIGHT") is not None:
            return True


async def _results_json(state: _State, batch_id: str) -> bytes:
    """The results list `[...]` in request order: each distinct result spliced with its submissions' ids."""
    keys = state.keys
    async with state.aconn.pipeline(transaction=False) as pipe:
        pipe.get(keys.subs(batch_id))
        pipe.hgetall(keys.results(batch_id))
        rows, results = await pipe.execute()
    if rows is None:
        raise HTTPException(404, f"batch {batch_id} expired before its results were read")
    parts = []
    for sub_id, _problem_id, u in json.loads(rows):
        # a stored result is `{"problem_id": ...}` without its id: put the submission's id first
        parts.append(b'{"id":' + json.dumps(sub_id).encode() + b"," + results[str(u).encode()][1:])
    return b"[" + b",".join(parts) + b"]"
