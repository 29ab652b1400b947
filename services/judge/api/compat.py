"""The compat routes: SandboxFusion's `/run_code` and `/run_jupyter`, and Judge0's API under `/judge0`.

Each request becomes a run (services/judge/queue/runs.py) on the judge's own queue and workers; the routes only translate
(services/judge/compat/: `sandboxfusion`, `judge0`) and wait. They sit behind the same bearer token as every judge route, and
count in the judge's /metrics (`frontier_judge_compat_*`).
"""

from __future__ import annotations

import asyncio
import time
from functools import partial
from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from prometheus_client import CollectorRegistry, Counter
from pydantic import BaseModel, Field

from services.ids import HEX_ID, matches
from services.judge.compat import judge0, sandboxfusion
from services.judge.queue import carry, deadlines, runs
from services.judge.queue.connection import AsyncRedis, Redis
from services.judge.queue.run_models import RunOutcome, RunRequest
from services.judge.queue.waiting import LoopLag
from services.security import ClientDep, client_name, may_see
from services.serving import JsonRoute
from services.settings import Settings

MAX_BATCH = 20  # Judge0's max_submission_batch_size


class Judge0Batch(BaseModel):
    submissions: list[judge0.SubmissionIn] = Field(min_length=1, max_length=MAX_BATCH)


def _judge0_invalid(err: RequestValidationError) -> JSONResponse:
    """A malformed Judge0 request in Judge0's own shape, `{field: [message]}` (422), plus the `detail`
    and `errors` every 422 of the judge has."""
    fields: dict[str, list[str]] = {}
    described = []
    for e in err.errors():
        loc = [str(part) for part in e.get("loc", ())]
        field = loc[-1] if len(loc) > 1 else (loc[0] if loc else "request")
        fields.setdefault(field, []).append(e.get("msg", "is invalid"))
        described.append(f"{'.'.join(loc[1:]) or field}: {e.get('msg')}")
    errors = [
        {"loc": list(e.get("loc", ())), "msg": e.get("msg"), "type": e.get("type")} for e in err.errors()
    ]
    return JSONResponse(
        status_code=422, content={**fields, "detail": "; ".join(described[:20]), "errors": errors}
    )


class CountedRoute(JsonRoute):
    """A route that counts every answer by endpoint and HTTP status, refusals included (the app's
    `frontier_judge_compat_requests`), and answers a malformed Judge0 request in Judge0's error shape."""

    def get_route_handler(self):
        handler = super().get_route_handler()
        endpoint = f"{','.join(sorted(self.methods))} {self.path}"
        judge0_route = self.path.startswith("/judge0/")

        async def counted(request: Request):
            code = 500
            try:
                response = await handler(request)
                code = response.status_code
                return response
            except HTTPException as err:
                code = err.status_code
                raise
            except RequestValidationError as err:
                code = 422
                if judge0_route:
                    return _judge0_invalid(err)
                raise
            finally:
                request.app.state.compat.requests.labels(endpoint, str(code)).inc()

        return counted


class CompatState:
    """What the compat routes share (one per app, reached through `CompatDep`): the settings, the
    Redis connections, and counters in `registry` (the judge API's own, so they show in its /metrics);
    deadline events go to `deadline_events` (the judge API's `frontier_judge_deadline_events`)."""

    def __init__(
        self,
        settings: Settings,
        conn: Redis,
        aconn: AsyncRedis,
        registry: CollectorRegistry | None = None,
        deadline_events: Counter | None = None,
        loop_lag: LoopLag | None = None,
    ):
        self.settings, self.conn, self.aconn = settings, conn, aconn
        # how late the event loop runs: a deadline is answered that much earlier (docs/spec.md 6.7)
        self.loop_lag = loop_lag if loop_lag is not None else LoopLag()
        self.waiters = runs.RunWaiters(aconn, settings)  # every waiting route's lookups, together
        registry = registry if registry is not None else CollectorRegistry()
        if deadline_events is None:
            deadline_events = Counter(
                "frontier_judge_deadline_events",
                "Requests answered 504 at their deadline, refused as too late, or whose caller went away.",
                ["endpoint", "event"],
                registry=registry,
            )
        self.deadline_events = deadline_events
        self.requests = Counter(
            "frontier_judge_compat_requests",
            "Compat API requests answered, by endpoint and HTTP status (refusals included).",
            ["endpoint", "code"],
            registry=registry,
        )
        self.accepted = Counter(
            "frontier_judge_compat_runs",
            "Runs the compat APIs put on the judge's queue, by API.",
            ["api"],
            registry=registry,
        )
        self.finished = Counter(
            "frontier_judge_compat_sandboxfusion_results",
            "SandboxFusion answers with a run's result, by endpoint and status (Success, Failed, SandboxError).",
            ["endpoint", "status"],
            registry=registry,
        )
        self.code_limit = settings.max_code_kb << 10


async def compat_state(request: Request) -> CompatState:
    """The app's CompatState (made by the judge's create_app)."""
    return request.app.state.compat


CompatDep = Annotated[CompatState, Depends(compat_state)]

# the judge API includes it behind its token (services/judge/api/__init__.py)
router = APIRouter(route_class=CountedRoute)


def too_large(c: CompatState, code: str) -> bool:
    return len(code) * 4 > c.code_limit and len(code.encode()) > c.code_limit


async def start(c: CompatState, request: RunRequest, api_name: str, http: Request) -> str:
    """Put the run on its client's fair queue (the name of the token that opened the request)."""
    request = request.model_copy(update={"client": client_name(http)})
    try:
        run_id = await asyncio.to_thread(runs.submit, c.conn, c.settings, request)
    except runs.QueueFull as err:
        raise HTTPException(429, f"{err}; retry in 5 s", headers={"Retry-After": "5"}) from None
    c.accepted.labels(api_name).inc()
    return run_id


def answer_by(c: CompatState, http: Request, arrival_s: float, client_rule_s: float | None) -> float | None:
    """When a run's answer is due (docs/spec.md 6.7): the caller's deadline (its headers, or the
    client's known rule `client_rule_s`, whichever is earlier) less FRONTIER_DEADLINE_MARGIN_S."""
    try:
        given = deadlines.parse_headers(http.headers, arrival_s)
    except deadlines.BadDeadline as err:
        raise HTTPException(422, str(err)) from None
    deadline = deadlines.earliest(given, client_rule_s)
    return None if deadline is None else deadline - c.settings.deadline_margin_s


async def wait_run(
    c: CompatState,
    http: Request,
    endpoint: str,
    run_id: str,
    due_s: float | None,
    cancel_on_wait: bool = True,
    carry_key: carry.CarryKey | None = None,
) -> tuple[RunOutcome | None, str | None]:
    """The run's outcome by `due_s`, or (None, why): past its deadline, with its caller gone, or (with
    `cancel_on_wait`: a caller answered 504 keeps nothing) past FRONTIER_JUDGE_WAIT_S the run is
    cancelled (a worker stops it, or never starts it); an abandoned outcome is a late one, `why` its
    reason (`no_time`: the start rule refused it, docs/spec.md 6.7). With `carry_key`, a run a worker
    took that is still running at its deadline is not cancelled but carried to the retry
    (queue/carry.py): (None, "carried")."""

    outcome, why = await deadlines.wait_for(
        partial(c.waiters.outcome, run_id),
        http.is_disconnected,
        due_s,
        c.settings.judge_wait_s,
        c.loop_lag.now,
    )
    if outcome is None and why == "deadline" and carry_key is not None:
        state = await carry.begin(c.aconn, c.settings, run_id, carry_key)
        if state == "carried":  # it runs on to its limits; the same request sent again gets its outcome
            c.deadline_events.labels(endpoint, "deadline").inc()
            return None, "carried"
        if state == "done":  # its outcome came at the deadline: answered with it
            outcome = await runs.wait(c.aconn, c.settings, run_id, 0)
            why = "deadline" if outcome is None else None
    if outcome is not None and outcome.status == "refused":  # no worker had the memory for it
        raise HTTPException(503, f"run {run_id} was not run: {outcome.message}", headers={"Retry-After": "5"})
    if outcome is not None and outcome.status == "abandoned":
        outcome, why = (
            None,
            outcome.reason if outcome.reason in ("no_time", "caller_gone") else "deadline",
        )
    if why in ("deadline", "caller_gone", "no_time") or (why == "wait" and cancel_on_wait):
        await deadlines.acancel(c.aconn, c.settings.redis_prefix, run_id, c.settings.result_ttl_s, why)
        c.deadline_events.labels(endpoint, why).inc()
    return outcome, why


TOO_CLOSE = (
    "deadline too close to run: its limits could not finish before the request's deadline "
    "(less FRONTIER_DEADLINE_MARGIN_S; docs/spec.md 6.7); nothing was queued"
)


def too_close(c: CompatState, request: RunRequest, due: float | None) -> bool:
    """Whether a run is refused at arrival: its answer is due already, or (the start rule with
    `limits`) its limits could not finish by then even on a free slot. With `estimate` the API has
    no measurements (the workers keep them): the worker applies the rule when it takes the run."""
    if due is None:
        return False
    if c.settings.deadline_start_rule != "limits":
        return due <= time.time()
    return due <= time.time() or deadlines.no_time(c.settings, due, deadlines.run_cost_s(c.settings, request))


def late_detail(c: CompatState, run_id: str, why: str | None) -> str:
    if why == "carried":
        return (
            f"run {run_id} not finished by the request's deadline (less FRONTIER_DEADLINE_MARGIN_S); "
            "it goes on to its own limits, and the same request sent again gets its outcome "
            "(FRONTIER_DEADLINE_CARRY_S, docs/spec.md 6.7): retry"
        )
    if why == "wait":
        return f"run {run_id} not finished after {c.settings.judge_wait_s} s (FRONTIER_JUDGE_WAIT_S); stopped"
    if why == "no_time":
        return (
            f"run {run_id} not started: its limits could not finish before the request's deadline "
            "(less FRONTIER_DEADLINE_MARGIN_S; the start rule, docs/spec.md 6.7): retry"
        )
    return (
        f"run {run_id} not finished by the request's deadline (less FRONTIER_DEADLINE_MARGIN_S); "
        "it was stopped, not judged (docs/spec.md 6.7): retry"
    )


def sandboxfusion_late(model, endpoint: str, message: str) -> JSONResponse:
    late = model(status="SandboxError", message=message)
    return JSONResponse(status_code=504, content={**late.model_dump(), "detail": message})


def sandboxfusion_refused(model, err: sandboxfusion.RequestRefused) -> JSONResponse:
    """A request SandboxFusion's API cannot run: 400, in `model`'s shape with a SandboxError."""
    refused = model(status="SandboxError", message=str(err))
    return JSONResponse(status_code=400, content={**refused.model_dump(), "detail": str(err)})


async def sandboxfusion_outcome(
    c: CompatState, http: Request, endpoint: str, model, request: RunRequest, due: float | None
) -> RunOutcome | JSONResponse:
    """/run_code's and /run_jupyter's run, queued and waited for by `due`: its outcome, or `model`'s
    504 when it was refused at arrival as too close to its deadline or is not done by then. With
    FRONTIER_DEADLINE_CARRY_S, the same request of the same client after a 504 (its retry) waits on
    the run carried past that 504 instead of queueing a new one (queue/carry.py)."""
    request = request.model_copy(update={"client": client_name(http)})
    key, last = None, False

    async def late(run_id: str | None, why: str | None) -> JSONResponse:
        if key is not None:  # its client sends it again, while it has attempts left
            await carry.answered_504(c.aconn, c.settings, key)
        return sandboxfusion_late(
            model, endpoint, TOO_CLOSE if run_id is None else late_detail(c, run_id, why)
        )

    if c.settings.deadline_carry_s > 0 and due is not None:
        # off the event loop: hashing the request costs work in its size
        key = await asyncio.to_thread(carry.carry_key, c.settings, endpoint, request)
        # its client's last attempt: no retry would take a run carried past its deadline
        last = await carry.is_last_attempt(c.aconn, c.settings, key)
        carried = await carry.find(c.aconn, c.settings, key)
        if carried is not None:
            outcome, why = await wait_carried(c, http, endpoint, carried, due, last)
            if outcome is not None:
                return outcome
            if why is not None:
                return await late(carried, why)
            # it ended without an outcome of the program (stopped, failed on our side): run it anew
    if too_close(c, request, due):
        c.deadline_events.labels(endpoint, "too_late").inc()
        return await late(None, None)
    carrying = key is not None and not last
    request = request.model_copy(update={"answer_by_s": due, "cancellable": True, "carry": carrying})
    run_id = await start(c, request, "sandboxfusion", http)
    outcome, why = await wait_run(c, http, endpoint, run_id, due, carry_key=key if carrying else None)
    if outcome is None:
        return await late(run_id, why)
    return outcome


async def wait_carried(
    c: CompatState, http: Request, endpoint: str, run_id: str, due: float, last: bool = False
) -> tuple[RunOutcome | None, str | None]:
    """A retry waits on the run carried for it, by its own deadline: (outcome, None) for an outcome
    of the program (the run counts as reused); (None, why) past the retry's deadline ("carried": the
    run goes on for a later attempt; on its client's `last` attempt it is stopped instead: no retry
    would take it) or with its caller gone or past FRONTIER_JUDGE_WAIT_S (the run is cancelled:
    nobody waits for it any more); (None, None) when it ended without an outcome of the program
    (stopped, or failed on our side), which the caller runs anew."""

    outcome, why = await deadlines.wait_for(
        partial(c.waiters.outcome, run_id), http.is_disconnected, due, c.settings.judge_wait_s, c.loop_lag.now
    )
    if outcome is None:
        if why in ("caller_gone", "wait") or last:
            await deadlines.acancel(c.aconn, c.settings.redis_prefix, run_id, c.settings.result_ttl_s, why)
        c.deadline_events.labels(endpoint, why).inc()
        return None, "carried" if why == "deadline" and not last else why
    if outcome.status != "ok":
        return None, None
    await carry.claim(c.aconn, c.settings, run_id)
    return outcome, None


# -- SandboxFusion ------------------------------------------------------------------------------
@router.post(
    "/run_code",
    tags=["compat"],
    response_model=sandboxfusion.RunCodeResponse,
    responses={400: {}, 413: {}, 422: {}, 429: {}, 504: {}},
)
async def run_code(c: CompatDep, body: sandboxfusion.RunCodeRequest, http: Request) -> Any:
    """SandboxFusion's /run_code: run one program on one stdin in the judge's sandbox. Answered by
    the client's deadline: compile_timeout + run_timeout + FRONTIER_SANDBOXFUSION_CLIENT_SLACK_S
    from arrival (verl's rule) or the X-Deadline / X-Timeout-Ms headers, less the margin; else 504."""
    arrival = time.time()
    rule = deadlines.sandboxfusion_deadline(
        arrival, body.compile_timeout, body.run_timeout, c.settings.sandboxfusion_client_slack_s
    )
    due = answer_by(c, http, arrival, rule)
    try:
        # off the event loop: decoding the files' base64 costs work in their size
        request = await asyncio.to_thread(sandboxfusion.to_run, body, c.settings.compile_time_limit_ms)
    except sandboxfusion.RequestRefused as err:
        return sandboxfusion_refused(sandboxfusion.RunCodeResponse, err)
    if too_large(c, request.code):
        raise HTTPException(413, f"code over the limit of {c.settings.max_code_kb} KB (FRONTIER_MAX_CODE_KB)")
    outcome = await sandboxfusion_outcome(c, http, "/run_code", sandboxfusion.RunCodeResponse, request, due)
    if isinstance(outcome, JSONResponse):
        return outcome
    answer = sandboxfusion.from_run(outcome, request.language, body.fetch_files)
    c.finished.labels("/run_code", answer.status).inc()
    return answer


@router.post(
    "/run_jupyter",
    tags=["compat"],
    response_model=sandboxfusion.RunJupyterResponse,
    responses={400: {}, 413: {}, 422: {}, 429: {}, 504: {}},
)
async def run_jupyter(c: CompatDep, body: sandboxfusion.RunJupyterRequest, http: Request) -> Any:
    """SandboxFusion's /run_jupyter: cells in turn in one Python interpreter, in one sandboxed run
    (by the X-Deadline / X-Timeout-Ms deadline where one is given, else 504)."""
    due = answer_by(c, http, time.time(), None)
    try:
        request = sandboxfusion.to_jupyter_run(body)
    except sandboxfusion.RequestRefused as err:
        return sandboxfusion_refused(sandboxfusion.RunJupyterResponse, err)
    if too_large(c, request.stdin):
        raise HTTPException(
            413, f"cells over the limit of {c.settings.max_code_kb} KB (FRONTIER_MAX_CODE_KB)"
        )
    outcome = await sandboxfusion_outcome(
        c, http, "/run_jupyter", sandboxfusion.RunJupyterResponse, request, due
    )
    if isinstance(outcome, JSONResponse):
        return outcome
    answer = sandboxfusion.from_jupyter_run(outcome, body.fetch_files)
    c.finished.labels("/run_jupyter", answer.status).inc()
    return answer


# -- Judge0 -------------------------------------------------------------------------------------
J0 = "/judge0"


@router.get(f"{J0}/languages", tags=["compat"])
async def j0_languages() -> list[dict]:
    return judge0.LANGUAGES


@router.get(f"{J0}/languages/{{language_id}}", tags=["compat"], responses={404: {}})
async def j0_language(language_id: int) -> Any:
    for language in judge0.LANGUAGES:
        if language["id"] == language_id:
            return language
    detail = f"language with id {language_id} doesn't exist"
    return JSONResponse(status_code=404, content={"error": detail, "detail": detail})


@router.get(f"{J0}/statuses", tags=["compat"])
async def j0_statuses() -> list[dict]:
    return [{"id": i, "description": d} for i, d in judge0.STATUSES.items()]


@router.get(f"{J0}/about", tags=["compat"])
async def j0_about() -> dict:
    return judge0.about()


@router.get(f"{J0}/config_info", tags=["compat"])
async def j0_config_info(c: CompatDep) -> dict:
    return judge0.config_info(c.settings)


def fields_of(fields: str | None) -> list[str] | None:
    return [f.strip() for f in fields.split(",") if f.strip()] if fields else None


def j0_request(c: CompatState, sub: judge0.SubmissionIn, base64_encoded: bool) -> RunRequest:
    request = judge0.to_run(
        sub,
        base64_encoded,
        callback_hosts=c.settings.judge0_callback_hosts,
        max_files_bytes=c.settings.tmp_size_mb << 20,
    )
    if too_large(c, request.code):
        raise judge0.SubmissionRefused({"source_code": [f"is over the limit of {c.settings.max_code_kb} KB"]})
    return request


async def j0_tag(c: CompatState, token: str, client: str) -> dict | None:
    """A Judge0 submission's tag; None, as Judge0 answers an unknown token, for a token of another
    shape (checked before it names a key: `<token>:res` must not reach the run's result) and for
    another client's token (docs/spec.md 9.7)."""
    if not matches(HEX_ID, token):
        return None
    tag = await runs.tag(c.aconn, c.settings, token)
    if tag is None or "judge0" not in tag or not may_see(client, tag.get("client")):
        return None
    return tag


async def j0_answer(
    c: CompatState, token: str, client: str, base64_encoded: bool, fields: str | None, wait_s: float
) -> dict | None:
    """A refused run (no memory for it) reads as Judge0's status 13 with the reason, as its callback
    does; a POST that waits for it is a 503 (wait_run)."""
    tag = await j0_tag(c, token, client)
    if tag is None:
        return None
    outcome = await runs.wait(c.aconn, c.settings, token, wait_s)
    running = outcome is None and await runs.started(c.aconn, c.settings, token)
    return judge0.submission(token, tag, outcome, base64_encoded, fields_of(fields), running)


@router.post(f"{J0}/submissions", tags=["compat"], status_code=201, responses={413: {}, 422: {}, 429: {}})
async def j0_submit(
    c: CompatDep,
    body: judge0.SubmissionIn,
    http: Request,
    base64_encoded: bool = False,
    wait: bool = False,
    fields: Annotated[str | None, Query(max_length=1000)] = None,
) -> Any:
    """Judge0's POST /submissions: a token at once, or with `wait=true` the finished submission.
    A deadline (X-Deadline / X-Timeout-Ms; with `wait=true` by default the run's wall limit plus
    FRONTIER_SANDBOXFUSION_CLIENT_SLACK_S) stops what is not done by then (spec 6.7)."""
    arrival = time.time()
    try:
        # off the event loop: base64 and an additional_files zip cost work in their size
        request = await asyncio.to_thread(j0_request, c, body, base64_encoded)
    except judge0.SubmissionRefused as err:
        # Judge0's own shape ({field: [messages]}), plus the `detail` every 4xx of the judge has
        code = 413 if isinstance(err, judge0.SubmissionTooLarge) else 422
        return JSONResponse(status_code=code, content={**err.errors, "detail": str(err)})
    rule = None
    if wait:  # a Judge0 request sets no compile limit of its own: the judge's (a compiled
        # language), its wall limit and the slack
        compile_s = 0.0
        if deadlines.compiled(request.language):
            compile_s = (request.compile_time_limit_ms or c.settings.compile_time_limit_ms) / 1000
        rule = arrival + compile_s + request.wall_limit_ms / 1000 + c.settings.sandboxfusion_client_slack_s
    due = answer_by(c, http, arrival, rule)
    if wait and too_close(c, request, due):
        c.deadline_events.labels("POST /judge0/submissions", "too_late").inc()
        return JSONResponse(status_code=504, content={"error": TOO_CLOSE, "detail": TOO_CLOSE})
    request = request.model_copy(update={"answer_by_s": due, "cancellable": wait})
    token = await start(c, request, "judge0", http)
    if not wait:
        return {"token": token}
    outcome, why = await wait_run(c, http, "POST /judge0/submissions", token, due, cancel_on_wait=False)
    if outcome is None and why != "wait":
        detail = late_detail(c, token, why)
        return JSONResponse(status_code=504, content={"error": detail, "detail": detail})
    return await j0_answer(c, token, client_name(http), base64_encoded, fields, 0)


@router.post(f"{J0}/submissions/batch", tags=["compat"], status_code=201, responses={422: {}, 429: {}})
async def j0_submit_batch(
    c: CompatDep, body: Judge0Batch, http: Request, base64_encoded: bool = False
) -> list[dict]:
    """Judge0's batch submit: a token, or the submission's errors, for each in order."""
    answers: list[dict] = []
    for sub in body.submissions:
        try:
            request = await asyncio.to_thread(j0_request, c, sub, base64_encoded)
        except judge0.SubmissionRefused as err:
            answers.append(err.errors)
            continue
        answers.append({"token": await start(c, request, "judge0", http)})
    return answers


@router.get(f"{J0}/submissions/batch", tags=["compat"], responses={404: {}})
async def j0_get_batch(
    c: CompatDep,
    client: ClientDep,
    tokens: Annotated[str, Query(max_length=20 * 40)],
    base64_encoded: bool = False,
    fields: Annotated[str | None, Query(max_length=1000)] = None,
) -> dict:
    """Judge0's batch read: `tokens` comma-separated; an unknown token answers null in its place."""
    wanted = [t.strip() for t in tokens.split(",") if t.strip()]
    if not wanted or len(wanted) > MAX_BATCH:
        raise HTTPException(422, f"tokens: give 1 to {MAX_BATCH} comma-separated tokens")
    return {"submissions": [await j0_answer(c, t, client, base64_encoded, fields, 0) for t in wanted]}


@router.get(f"{J0}/submissions/{{token}}", tags=["compat"], responses={404: {}})
async def j0_get(
    c: CompatDep,
    token: str,
    client: ClientDep,
    base64_encoded: bool = False,
    fields: Annotated[str | None, Query(max_length=1000)] = None,
) -> Any:
    """Judge0's GET /submissions/{token}: status 1 (In Queue), then 2 (Processing) once a worker
    took it, then its result."""
    answer = await j0_answer(c, token, client, base64_encoded, fields, 0)
    if answer is None:
        detail = f"unknown submission token {token!r} (never accepted, or expired)"
        return JSONResponse(status_code=404, content={"error": "Not Found", "detail": detail})
    return answer


@router.delete(f"{J0}/submissions/{{token}}", tags=["compat"], responses={400: {}, 404: {}})
async def j0_delete(
    c: CompatDep, token: str, client: ClientDep, fields: Annotated[str | None, Query(max_length=1000)] = None
) -> Any:
    """Judge0's DELETE /submissions/{token}: where FRONTIER_JUDGE0_SUBMISSION_DELETE allows it, a
    finished submission is forgotten and answered one last time, base64-encoded (as Judge0 does)."""
    if not c.settings.judge0_submission_delete:
        detail = "delete not allowed (FRONTIER_JUDGE0_SUBMISSION_DELETE is off)"
        return JSONResponse(status_code=400, content={"error": "delete not allowed", "detail": detail})
    tag = await j0_tag(c, token, client)
    if tag is None:
        detail = f"unknown submission token {token!r} (never accepted, or expired)"
        return JSONResponse(status_code=404, content={"error": "Not Found", "detail": detail})
    outcome = await runs.wait(c.aconn, c.settings, token, 0)
    if outcome is None:
        sid = 2 if await runs.started(c.aconn, c.settings, token) else 1
        error = f"submission cannot be deleted because its status is {sid} ({judge0.STATUSES[sid]})"
        return JSONResponse(status_code=400, content={"error": error, "detail": error})
    answer = judge0.submission(token, tag, outcome, True, fields_of(fields))
    await runs.forget(c.aconn, c.settings, token)
    return answer
