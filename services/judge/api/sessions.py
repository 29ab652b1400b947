"""The session routes (docs/spec.md section 6.6): create, exec, files, delete, list.

Each request names the worker process that holds the session (`P:sess:s:<id>`) and goes to it through
Redis (services/judge/queue/session_bus.py); the death of that worker answers `dead` (exec) or 410 (the rest) instead of waiting.
A session's `submit` is the judge API's (services/judge/api/session_submit.py: it judges through the
API's own batch path), so these routes import nothing of the batch routes.
"""

from __future__ import annotations

import base64
import random
import time
from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Path, Request, Response
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

from services.ids import SESSION_ID, matches
from services.judge.api.session_models import (
    CreateSession,
    ExecRequest,
    ExecResult,
    FileWritten,
    SessionCreated,
    SessionInfo,
    SessionLimits,
)
from services.judge.core.paths import BadPath, check_path
from services.judge.queue import session_bus as bus
from services.judge.queue.batches import Keys
from services.judge.queue.connection import AsyncRedis, Redis, RedisError
from services.judge.queue.problems import stored_digest
from services.judge.queue.session_bus import SessionKeys, WorkerDead, WorkerTimeout
from services.security import ClientDep, check_owner, may_see
from services.serving import JsonRoute
from services.settings import Settings

CREATE_TIMEOUT_S = 60.0
OP_TIMEOUT_S = 60.0
EXEC_EXTRA_S = 20.0  # beyond the exec's own timeout: the grace after SIGINT and a shell restart


FilePath = Annotated[str, Path(description="relative to the session's working directory")]


class Dead(Exception):
    """The worker holding the session is gone."""


class SessionsState:
    """What the session routes share (one per app, reached through `SessionsDep`): the settings, the
    Redis connections and the session keys; its figures go to `registry` (the judge API's /metrics)."""

    def __init__(self, settings: Settings, conn: Redis, aconn: AsyncRedis, registry=None):
        self.settings, self.conn, self.aconn = settings, conn, aconn
        self.keys = SessionKeys(settings.redis_prefix)
        if registry is not None:
            registry.register(_SessionCollector(conn, self.keys))


async def sessions_state(request: Request) -> SessionsState:
    """The app's SessionsState (made by the judge's create_app)."""
    return request.app.state.sessions


SessionsDep = Annotated[SessionsState, Depends(sessions_state)]

# the judge API includes it behind its token (services/judge/api/__init__.py)
router = APIRouter(prefix="/sessions", tags=["sessions"], route_class=JsonRoute)


async def meta_of(s: SessionsState, sid: str, client: str) -> dict[str, str]:
    """The session's record, for the client that created it (or the operator); 404 otherwise, as
    for a session never created."""
    if not matches(SESSION_ID, sid):  # before it names a key: never another key's name
        raise HTTPException(404, f"unknown session {sid[:64]!r}: not a session id")
    raw = await bus.session_record(s.aconn, s.keys, sid)
    unknown = f"unknown session {sid!r} (never created, deleted, or expired)"
    if b"kind" not in raw:  # never created, or ended (a late write may leave a stray field)
        raise HTTPException(404, unknown)
    check_owner(client, raw.get(b"owner"), unknown)
    return {k.decode(): v.decode() for k, v in raw.items()}


async def mark_dead(s: SessionsState, sid: str) -> None:
    await bus.mark_lost(s.aconn, s.keys, sid)


async def on_worker(
    s: SessionsState, sid: str, meta: dict, msg: dict, timeout_s: float = OP_TIMEOUT_S
) -> dict:
    if meta.get("state") == "dead":
        raise Dead()
    try:
        reply = await bus.call(s.aconn, s.keys, meta["worker"], {**msg, "sid": sid}, timeout_s)
    except WorkerDead:
        await mark_dead(s, sid)
        raise Dead() from None
    except WorkerTimeout as err:
        raise HTTPException(504, f"session {sid}: {err}") from None
    if not reply["ok"]:
        raise HTTPException(reply["code"], reply["error"])
    return reply


def gone(sid: str, meta: dict) -> HTTPException:
    return HTTPException(410, f"session {sid} is dead: its worker ({meta.get('worker')}) is gone")


# -- create -------------------------------------------------------------------------------------
@router.post("", status_code=201, response_model=SessionCreated, responses={404: {}, 422: {}, 503: {}})
async def create_session(body: CreateSession, s: SessionsDep, client: ClientDep) -> SessionCreated:
    """Start a session: a sandbox with a persistent Python interpreter or bash shell."""
    digest = (
        await _problem_digest(s.aconn, s.settings.redis_prefix, body.problem_id) if body.problem_id else None
    )
    workers = await bus.live_workers(s.aconn, s.keys)
    candidates = [w for w, beat in workers.items() if beat["sessions"] < beat["max"]]
    if not candidates:
        reason = (
            "every worker holds its maximum of sessions" if workers else "no judge worker serves sessions"
        )
        raise HTTPException(503, f"{reason}; retry later", headers={"Retry-After": "5"})
    random.shuffle(candidates)
    candidates.sort(key=lambda w: workers[w]["sessions"])
    sid = f"s{int(time.time() * 1000):x}{random.getrandbits(48):012x}"
    msg = {
        "op": "create",
        "sid": sid,
        "kind": body.kind,
        "problem_id": body.problem_id,
        "owner": client,
        "limits": body.limits.model_dump(),
        # the worker reads the problem's files from its own test store, never from this message
        "problem_digest": digest,
    }
    refused = None  # the last worker's reason, for the 503 when none could take it
    for worker in candidates:
        try:
            reply = await bus.call(s.aconn, s.keys, worker, msg, CREATE_TIMEOUT_S)
        except (WorkerDead, WorkerTimeout):
            continue
        if reply["ok"]:
            return SessionCreated(
                id=sid,
                kind=body.kind,
                problem_id=body.problem_id,
                expires_at=reply["expires_at"],
                files=sorted(reply.get("files", [])),
            )
        if reply["code"] != 503:
            raise HTTPException(reply["code"], reply["error"])
        refused = reply["error"]
    reason = f" ({refused})" if refused else ""
    raise HTTPException(
        503, f"no judge worker could start the session{reason}; retry later", headers={"Retry-After": "5"}
    )


# -- exec ---------------------------------------------------------------------------------------
@router.post("/{sid}/exec", response_model=ExecResult, responses={404: {}, 422: {}})
async def exec_in_session(sid: str, body: ExecRequest, s: SessionsDep, client: ClientDep) -> ExecResult:
    """Run code (python) or a command (bash) in the session's shell; its state persists."""
    meta = await meta_of(s, sid, client)
    kind = meta["kind"]
    if (kind == "python") != (body.code is not None):
        wanted = "'code'" if kind == "python" else "'command'"
        raise HTTPException(422, f"session {sid} is a {kind} session: send {wanted}")
    text = body.code if body.code is not None else body.command
    if len(text) * 4 > s.settings.max_code_kb << 10 and len(text.encode()) > s.settings.max_code_kb << 10:
        raise HTTPException(
            413, f"exec text over the limit of {s.settings.max_code_kb} KB (FRONTIER_MAX_CODE_KB)"
        )
    msg = {"op": "exec", "text": text, "timeout_s": body.timeout_s}
    try:
        reply = await on_worker(s, sid, meta, msg, body.timeout_s + EXEC_EXTRA_S)
    except Dead:
        return ExecResult(stdout="", stderr="", exit_code=None, status="dead", cpu_ms=0, wall_ms=0)
    if "parts" not in reply:  # a reply with its output in its JSON (a dead shell; an older worker)
        return ExecResult.model_validate(reply["result"])
    parts = reply.pop("parts")
    if not parts or len(parts) != 2:  # its reply list expired between the two reads
        raise HTTPException(504, f"session {sid}: the worker's answer expired before it was read")
    return Response(exec_answer(reply["result"], parts), media_type="application/json")


def exec_answer(result: dict, parts: list) -> bytes:
    """The exec's JSON answer from the worker's reply: `result` and its output's raw `parts` (stdout,
    stderr; emptied here, each dropped once it is text), so that an output is held about twice at
    most: its bytes and its text, then its text and the answer."""
    for i, name in enumerate(("stdout", "stderr")):
        raw, parts[i] = parts[i], None
        result[name] = (
            raw.decode("utf-8") if result[f"{name}_encoding"] == "utf-8" else base64.b64encode(raw).decode()
        )
        del raw
    return _EXEC_JSON.to_json(ExecResult.model_validate(result))


_EXEC_JSON = ExecResult.__pydantic_serializer__


# -- files --------------------------------------------------------------------------------------
@router.put(
    "/{sid}/files/{path:path}",
    response_model=FileWritten,
    responses={404: {}, 410: {}, 413: {}, 422: {}},
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/octet-stream": {"schema": {"type": "string", "format": "binary"}}},
        }
    },
)
async def put_file(
    sid: str, path: FilePath, request: Request, s: SessionsDep, client: ClientDep
) -> FileWritten:
    """Write a file (the raw request body) into the session's working directory."""
    path = checked_path(path)
    meta = await meta_of(s, sid, client)
    data = await request.body()
    if len(data) > s.settings.session_max_file_mb << 20:
        raise HTTPException(
            413,
            f"file over the limit of {s.settings.session_max_file_mb} MB (FRONTIER_SESSION_MAX_FILE_MB)",
        )
    try:
        reply = await on_worker(
            s, sid, meta, {"op": "put", "path": path, "data": base64.b64encode(data).decode()}
        )
    except Dead:
        raise gone(sid, meta) from None
    return FileWritten(path=path, bytes=reply["bytes"])


@router.get(
    "/{sid}/files/{path:path}",
    response_class=Response,
    responses={200: {"content": {"application/octet-stream": {}}}, 404: {}, 410: {}, 413: {}, 422: {}},
)
async def get_file(sid: str, path: FilePath, s: SessionsDep, client: ClientDep) -> Response:
    """Read a file of the session's working directory (raw bytes)."""
    path = checked_path(path)
    meta = await meta_of(s, sid, client)
    msg = {"op": "get", "path": path, "max_bytes": s.settings.session_max_file_mb << 20}
    try:
        reply = await on_worker(s, sid, meta, msg)
    except Dead:
        raise gone(sid, meta) from None
    return Response(base64.b64decode(reply["data"]), media_type="application/octet-stream")


# -- delete and list ----------------------------------------------------------------------------
@router.delete("/{sid}", status_code=204, response_class=Response, responses={404: {}})
async def delete_session(sid: str, s: SessionsDep, client: ClientDep) -> Response:
    """End the session: every process, its cgroup and its files are gone when this answers."""
    meta = await meta_of(s, sid, client)
    try:
        await on_worker(s, sid, meta, {"op": "delete"})
    except Dead:
        await bus.forget_session(s.aconn, s.keys, sid)
    return Response(status_code=204)


@router.get("", response_model=list[SessionInfo])
async def list_sessions(s: SessionsDep, client: ClientDep) -> list[SessionInfo]:
    """The client's sessions (the operator's token: every session of the cluster), live or dead,
    oldest first."""
    sids = await bus.session_ids(s.aconn, s.keys)
    alive = await bus.live_workers(s.aconn, s.keys)
    out, forgotten = [], []
    for sid in sids:
        raw = await bus.session_record(s.aconn, s.keys, sid)
        if b"kind" not in raw:
            forgotten.append(sid)
            continue
        if not may_see(client, raw.get(b"owner")):
            continue
        meta = {k.decode(): v.decode() for k, v in raw.items()}
        if meta["state"] == "live" and meta["worker"] not in alive:
            await mark_dead(s, sid)
            meta["state"] = "dead"
        out.append(_info(sid, meta))
    await bus.forget_ids(s.aconn, s.keys, forgotten)
    return sorted(out, key=lambda info: info.created_at)


@router.get("/{sid}", response_model=SessionInfo, responses={404: {}})
async def session_info(sid: str, s: SessionsDep, client: ClientDep) -> SessionInfo:
    """One session, as `GET /sessions` lists it."""
    meta = await meta_of(s, sid, client)
    if meta["state"] == "live" and not await bus.worker_beats(s.aconn, s.keys, meta["worker"]):
        await mark_dead(s, sid)
        meta["state"] = "dead"
    return _info(sid, meta)


def checked_path(path: str) -> str:
    try:
        return check_path(path)
    except BadPath as err:
        raise HTTPException(422, str(err)) from None


def _info(sid: str, meta: dict) -> SessionInfo:
    return SessionInfo(
        id=sid,
        kind=meta["kind"],
        problem_id=meta.get("problem_id") or None,
        worker=meta["worker"],
        state=meta["state"],
        created_at=float(meta["created_s"]),
        expires_at=float(meta["expires_s"]),
        last_used_at=float(meta["last_s"]) if meta.get("last_s") else None,
        limits=SessionLimits.model_validate_json(meta["limits"]),
    )


async def _problem_digest(aconn: AsyncRedis, prefix: str, problem_id: str) -> str:
    """The stored problem's definition digest; 404 for a problem never uploaded."""
    digest = await stored_digest(aconn, Keys(prefix), problem_id)
    if digest is None:
        raise HTTPException(404, f"unknown problem {problem_id!r}; upload it with PUT /problems/{problem_id}")
    return digest


class _SessionCollector:
    """Sessions of the whole cluster for /metrics, read from Redis at scrape time."""

    def __init__(self, conn: Redis, keys: SessionKeys):
        self.conn = conn
        self.keys = keys

    def collect(self):
        try:
            figures = self._read()
        except RedisError:
            return
        yield from figures

    def _read(self) -> list:
        beats, metas, stats = bus.cluster_figures(self.conn, self.keys)
        counts: dict[tuple[str, str], int] = {}
        for kind, state in metas:
            if kind is not None:
                key = (kind.decode(), state.decode())
                counts[key] = counts.get(key, 0) + 1
        out = []
        g = GaugeMetricFamily(
            "frontier_judge_sessions", "Sessions by kind and state (live, dead).", labels=["kind", "state"]
        )
        for kind in ("python", "bash"):
            for state in ("live", "dead"):
                g.add_metric([kind, state], counts.get((kind, state), 0))
        out.append(g)
        g = GaugeMetricFamily("frontier_judge_session_workers", "Worker processes serving sessions.")
        g.add_metric([], len(beats))
        out.append(g)
        g = GaugeMetricFamily("frontier_judge_session_capacity", "Sessions the live workers can hold in all.")
        g.add_metric([], sum(b["max"] for b in beats))
        out.append(g)
        c = CounterMetricFamily("frontier_judge_sessions_created", "Sessions started.")
        c.add_metric([], stats.get("created", 0))
        out.append(c)
        for name, field, doc in (
            (
                "frontier_judge_sessions_ended",
                "reason",
                "Sessions ended, by reason (deleted, idle, expired, worker_lost, ...).",
            ),
            ("frontier_judge_session_execs", "status", "Execs in sessions, by status."),
        ):
            c = CounterMetricFamily(name, doc, labels=[field])
            tag = "ended:" if field == "reason" else "exec:"
            for key, value in sorted(stats.items()):
                if key.startswith(tag):
                    c.add_metric([key[len(tag) :]], value)
            out.append(c)
        return out
