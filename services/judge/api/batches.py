"""Batches: POST /judge (answers when every submission is judged), POST /submissions (accepted at once)
and GET /submissions/{batch_id}. A batch is deduplicated, admitted against the queue limit
(FRONTIER_MAX_QUEUE_DEPTH, 429 past it) and enqueued as jobs on the judge's queue."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import time
import uuid
from typing import Annotated

from fastapi import APIRouter, HTTPException, Query, Request, Response
from fastapi.responses import JSONResponse
from pydantic_core import to_json

from services.ids import HEX_ID, matches
from services.judge.api.metrics import Metrics
from services.judge.api.models import BatchAccepted, BatchStatus, JudgeRequest, JudgeResponse
from services.judge.api.state import JudgeState, JudgeStateDep
from services.judge.queue import deadlines, depth
from services.judge.queue import problems as pstore
from services.judge.queue.batches import (
    RATE_WINDOW_S,
    Unit,
    batch_meta,
    batch_rows_and_results,
    depth_and_rate,
    enqueue_batch,
    judged_units,
)
from services.judge.queue.connection import RedisError
from services.security import ANONYMOUS, ClientDep, check_owner, client_name
from services.serving import JsonRoute
from services.settings import Settings

log = logging.getLogger("services.judge.api")

router = APIRouter(route_class=JsonRoute)


@router.post(
    "/judge",
    response_model=JudgeResponse,
    responses={404: {}, 413: {}, 422: {}, 429: {}, 503: {}, 504: {}},
)
async def judge(state: JudgeStateDep, body: JudgeRequest, request: Request) -> Response:
    """Judge a batch; answers when every submission is judged, in the request's order and ids.
    With a deadline (`X-Deadline`, `X-Timeout-Ms` or `timeout_ms`), a 504 comes before it, and what
    is left of the batch is not judged; a caller that goes away leaves nothing running (spec 6.7)."""
    start = time.perf_counter()
    settings = state.settings
    answer_by = request_answer_by(state, request, body.timeout_ms)
    if answer_by is not None and answer_by <= time.time():
        return _too_late(state, "/judge", None)
    if answer_by is not None and settings.deadline_start_rule == "limits":
        too_long = await _limits_too_long(state, body, answer_by)
        if too_long is not None:  # the start rule at arrival (docs/spec.md 6.7): nothing is queued
            return _too_late(state, "/judge", None, "no_time", too_long)
    batch_id = await accept_batch(state, body, "judge", answer_by, True, client_name(request))

    async def done(wait_s: float) -> bool | None:
        return True if await wait_batch(state, batch_id, wait_s) else None

    finished, why = await deadlines.wait_for(
        done, request.is_disconnected, answer_by, settings.judge_wait_s, state.loop_lag.now
    )
    if not finished:
        if why == "wait":
            return JSONResponse(
                status_code=504,
                content={
                    "detail": f"batch {batch_id} not finished after {settings.judge_wait_s} s "
                    f"(FRONTIER_JUDGE_WAIT_S); it keeps running: GET /submissions/{batch_id}",
                    "batch_id": batch_id,
                },
            )
        await deadlines.acancel(state.aconn, settings.redis_prefix, batch_id, settings.result_ttl_s, why)
        state.metrics.deadlines.labels("/judge", why).inc()
        return _too_late(state, "/judge", batch_id, why)
    results = await batch_results_json(state, batch_id)
    if answer_by is not None and _not_started(results):
        # the start rule (docs/spec.md 6.7) answered part of it unjudged before its deadline: a 504 now,
        # so a client that retries on 504 does (GET /submissions/<batch_id> still reads what was judged)
        state.metrics.deadlines.labels("/judge", "no_time").inc()
        return _too_late(state, "/judge", batch_id, "no_time")
    content = b'{"results":' + results + b"}"
    state.metrics.batch_seconds.observe(time.perf_counter() - start)
    return Response(content=content, media_type="application/json")


def _not_started(results: bytes) -> bool:
    """Whether a finished batch holds a unit the start rule did not start (docs/spec.md 6.7)."""
    return any(
        r.get("status") == "judge_error" and (r.get("message") or "").startswith("not judged:")
        for r in json.loads(results)
    )


@router.post(
    "/submissions",
    status_code=202,
    response_model=BatchAccepted,
    responses={404: {}, 413: {}, 422: {}, 429: {}, 503: {}},
)
async def submit(state: JudgeStateDep, body: JudgeRequest, request: Request) -> BatchAccepted:
    """Accept a batch at once; its state and results are kept in Redis (FRONTIER_RESULT_TTL_S). With a
    deadline, what is not judged by then never is (its results say so: docs/spec.md 6.7)."""
    answer_by = request_answer_by(state, request, body.timeout_ms)
    batch_id = await accept_batch(state, body, "submissions", answer_by, False, client_name(request))
    return BatchAccepted(batch_id=batch_id)


def request_answer_by(state: JudgeState, request: Request, timeout_ms: float | None) -> float | None:
    """When the judge must have answered (epoch seconds): the request's deadline (headers, body) less
    FRONTIER_DEADLINE_MARGIN_S; None without a deadline. A malformed header is a 422."""
    now = time.time()
    try:
        deadline = deadlines.parse_headers(request.headers, now)
    except deadlines.BadDeadline as err:
        raise HTTPException(422, str(err)) from None
    if timeout_ms is not None:
        deadline = deadlines.earliest(deadline, now + timeout_ms / 1000)
    return None if deadline is None else deadline - state.settings.deadline_margin_s


async def _limits_too_long(state: JudgeState, body: JudgeRequest, answer_by_s: float) -> str | None:
    """With FRONTIER_DEADLINE_START_RULE=limits: the first submission whose unit's limits cost (its
    problem's tests at a busy test's cost, plus the compile limit of a compiled language) could not
    finish by `answer_by_s` even on a free slot, so the worker would not start it and the batch would
    be answered 504 `no_time` anyway; None when every unit fits (or a problem is unknown: the batch's
    404 comes from accept_batch)."""
    problem_ids = list(dict.fromkeys(s.problem_id for s in body.submissions))
    if not problem_ids:
        return None
    raw = await pstore.summaries(state.aconn, state.keys, problem_ids)
    if any(r is None for r in raw):
        return None
    summaries = {p: json.loads(r) for p, r in zip(problem_ids, raw, strict=True)}
    now = time.time()
    for s in body.submissions:
        summary = summaries[s.problem_id]
        if not isinstance(summary.get("test_count"), int) or not isinstance(
            summary.get("time_limit_ms"), int
        ):
            continue  # a summary without its limits: the worker applies the rule
        compile_ms = state.settings.compile_time_limit_ms if deadlines.compiled(s.language) else None
        cost = deadlines.limits_cost_s(
            state.settings, summary["test_count"], summary["time_limit_ms"], compile_ms
        )
        if deadlines.no_time(state.settings, answer_by_s, cost, now):
            return f"submission {s.id!r} (problem {s.problem_id!r}, {s.language}: {cost:.1f} s at its limits)"
    return None


def _too_late(
    state: JudgeState, endpoint: str, batch_id: str | None, why: str = "deadline", what: str | None = None
) -> JSONResponse:
    """The 504 of a request whose deadline came (or whose caller left) before its answer; `what`: the
    submission whose limits could not finish by it (the start rule at arrival)."""
    if batch_id is None:
        state.metrics.deadlines.labels(endpoint, "too_late").inc()
        detail = "the request's deadline is too close to judge anything (docs/spec.md 6.7); nothing was run"
        if what is not None:
            detail = (
                f"{what}: its limits could not finish before the request's deadline (less "
                "FRONTIER_DEADLINE_MARGIN_S; the start rule, docs/spec.md 6.7); nothing was queued"
            )
    elif why == "no_time":
        detail = (
            f"batch {batch_id}: some of it was not started, as its limits could not finish before the "
            "request's deadline (less FRONTIER_DEADLINE_MARGIN_S; the start rule, docs/spec.md 6.7): retry"
        )
    else:
        detail = (
            f"batch {batch_id} not finished by the request's deadline (less FRONTIER_DEADLINE_MARGIN_S); "
            "what was left of it is not judged (docs/spec.md 6.7): retry"
        )
    content = {"detail": detail, "batch_id": batch_id, "deadline": why}
    return JSONResponse(status_code=504, content=content)


@router.get("/submissions/{batch_id}", response_model=BatchStatus, responses={404: {}})
async def batch_status(
    state: JudgeStateDep,
    batch_id: str,
    client: ClientDep,
    wait_s: Annotated[float, Query(ge=0, le=300)] = 0,
) -> Response:
    """A batch's status, and its results once done. `wait_s` waits up to that long for it to finish.
    Only the client that submitted it (or the operator) sees it."""
    if not matches(HEX_ID, batch_id):  # before it names a key: `<id>:res` is a results hash
        raise HTTPException(404, f"unknown batch {batch_id[:64]!r}: not a batch id")
    meta = await batch_meta(state.aconn, state.keys, batch_id)
    unknown = f"unknown batch {batch_id!r} (never accepted, or expired)"
    if not meta:
        raise HTTPException(404, unknown)
    check_owner(client, meta.get(b"client"), unknown)
    if wait_s > 0:
        await wait_batch(state, batch_id, wait_s)
    judged = await judged_units(state.aconn, state.keys, batch_id)
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
    results = await batch_results_json(state, batch_id)
    body = json.dumps(head)[:-1].encode() + b',"results":' + results + b"}"
    return Response(content=body, media_type="application/json")


async def accept_batch(
    state: JudgeState,
    body: JudgeRequest,
    endpoint: str,
    answer_by_s: float | None = None,
    cancellable: bool = False,
    client: str = ANONYMOUS,
) -> str:
    """Dedupe, admit against the queue limit, and enqueue a batch; returns its id. `client`: the name
    of the token that opened the request (logs, fair shares)."""
    settings, keys, metrics = state.settings, state.keys, state.metrics
    _check_code_sizes(body, settings, metrics)
    problem_ids = list(dict.fromkeys(s.problem_id for s in body.submissions))
    digests = await pstore.digests(state.aconn, keys, problem_ids)
    unknown = [p for p, d in digests.items() if d is None]
    if unknown:
        shown = ", ".join(repr(p) for p in unknown[:10]) + (" ..." if len(unknown) > 10 else "")
        raise HTTPException(404, f"unknown problem(s) {shown}; upload with PUT /problems/{{id}}")
    units: list[Unit] = []
    index: dict[tuple, int] = {}
    rows = []
    for s in body.submissions:
        digest = digests[s.problem_id].decode()
        # one unit per distinct program within this batch; mode, ks, feedback and isolation are the batch's, so a
        # result is never shared with a batch that asked for other ones (no cache across batches)
        key = (s.code, s.completion, s.language, digest)
        u = index.get(key)
        if u is None:
            u = index[key] = len(units)
            units.append(
                Unit(
                    u=u,
                    id=s.id,
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
        admitted = await depth.aadmit(state.aconn, settings, client, len(units))
        if admitted < 0:
            mine = admitted == depth.CLIENT_FULL
            metrics.rejected.labels("client_queue_full" if mine else "queue_full").inc()
            retry_after = await _retry_after(state)
            whose = (
                f"client {client}'s share of the judge's queue is full ({settings.client_queue_limit()} "
                "distinct submissions waiting, FRONTIER_MAX_CLIENT_QUEUE_DEPTH)"
                if mine
                else f"the judge's queue is full ({settings.max_queue_depth} distinct submissions waiting)"
            )
            raise HTTPException(
                429, f"{whose}; retry in {retry_after} s", headers={"Retry-After": str(retry_after)}
            )
    try:
        await asyncio.to_thread(
            _enqueue, state, batch_id, body, units, rows, answer_by_s, cancellable, client
        )
    except BaseException:
        with contextlib.suppress(RedisError):
            await depth.arelease(state.aconn, settings, client, len(units))
        raise
    metrics.submissions.inc(len(rows))
    metrics.distinct.inc(len(units))
    metrics.batches.labels(endpoint).inc()
    log.info("batch %s from client %s: %d submissions, %d distinct", batch_id, client, len(rows), len(units))
    return batch_id


def _check_code_sizes(body: JudgeRequest, settings: Settings, metrics: Metrics) -> None:
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


async def _retry_after(state: JudgeState) -> int:
    """Seconds until the queue has room, from the recent judging rate; 5 when nothing is known."""
    queued, rates = await depth_and_rate(state.aconn, state.keys)
    per_s = sum(rates) / RATE_WINDOW_S
    if per_s <= 0:
        return 5
    excess = max(1, queued - state.settings.max_queue_depth // 2)
    return max(1, min(60, math.ceil(excess / per_s)))


def _enqueue(
    state: JudgeState,
    batch_id: str,
    body: JudgeRequest,
    units: list[Unit],
    rows: list,
    answer_by_s: float | None = None,
    cancellable: bool = False,
    client: str = ANONYMOUS,
) -> None:
    enqueue_batch(
        state.conn,
        state.settings,
        batch_id,
        mode=body.mode,
        ks=body.ks,
        options=body.options,
        units=units,
        rows=rows,
        n_workers=state.n_workers(),
        answer_by_s=answer_by_s,
        cancellable=cancellable,
        client=client,
    )


async def wait_batch(state: JudgeState, batch_id: str, wait_s: float) -> bool:
    """Whether the batch is done within `wait_s` (its done list holds its token; looked up with every
    other waiting request's batch, services/judge/queue/waiting.py)."""
    return await state.batch_waiters.wait(batch_id, wait_s) is not None


async def batch_results_json(state: JudgeState, batch_id: str) -> bytes:
    """The results list `[...]` in request order. A unit's result carries the id of the batch's first
    submission of it; a later submission of the same program is answered with it under its own id."""
    rows, results = await batch_rows_and_results(state.aconn, state.keys, batch_id)
    if rows is None:
        raise HTTPException(404, f"batch {batch_id} expired before its results were read")
    parts = []
    cut: dict[int, int] = {}  # unit -> where its stored result's fields after the id begin
    for sub_id, _problem_id, u in json.loads(rows):
        stored = results[str(u).encode()]
        head = b'{"id":' + to_json(sub_id) + b","  # JudgeResult's first field
        if u not in cut:
            # the unit's first submission, whose id its result carries (one stored by a worker of an
            # earlier version carries none: `{"problem_id": ...`)
            cut[u] = len(head) if stored.startswith(head) else 1
        parts.append(stored if stored.startswith(head) else head + stored[cut[u] :])
    return b"[" + b",".join(parts) + b"]"
