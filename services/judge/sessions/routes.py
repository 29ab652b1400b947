"""The session routes (docs/spec.md section 6.6): create, exec, files, submit, delete, list.

Each request names the worker process that holds the session (`P:sess:s:<id>`) and goes to it through
Redis (`bus`); the death of that worker answers `dead` (exec) or 410 (the rest) instead of waiting.
`submit` takes the program from the session and judges it through the judge's own batch path, so its
answer is the result object of `POST /judge`.
"""

from __future__ import annotations

import base64
import json
import random
import time
from typing import Annotated

import redis
import redis.asyncio as aioredis
from fastapi import APIRouter, HTTPException, Path, Request, Response
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from pydantic import ValidationError

from services.ids import SESSION_ID, matches
from services.judge.models import JudgeResult
from services.judge.options import JudgeOptions
from services.judge.sandbox.session import BadPath, check_path
from services.judge.sessions import bus
from services.judge.sessions.bus import SessionKeys, WorkerDead, WorkerTimeout
from services.judge.sessions.models import (
    CreateSession,
    ExecRequest,
    ExecResult,
    FileWritten,
    SessionCreated,
    SessionInfo,
    SessionLimits,
    SubmitRequest,
)
from services.security import api_dependencies
from services.settings import Settings

CREATE_TIMEOUT_S = 60.0
OP_TIMEOUT_S = 60.0
EXEC_EXTRA_S = 20.0  # beyond the exec's own timeout: the grace after SIGINT and a shell restart


FilePath = Annotated[str, Path(description="relative to the session's working directory")]


class _Dead(Exception):
    """The worker holding the session is gone."""


def router(settings: Settings, conn: redis.Redis, aconn: aioredis.Redis, registry=None) -> APIRouter:
    """The session router, behind the judge API's token; its figures go to `registry` (/metrics)."""
    keys = SessionKeys(settings.redis_prefix)
    prefix = settings.redis_prefix
    api = APIRouter(prefix="/sessions", tags=["sessions"], dependencies=api_dependencies(settings))
    if registry is not None:
        registry.register(_SessionCollector(conn, keys))

    async def meta_of(sid: str) -> dict[str, str]:
        if not matches(SESSION_ID, sid):  # before it names a key: never another key's name
            raise HTTPException(404, f"unknown session {sid[:64]!r}: not a session id")
        raw = await aconn.hgetall(keys.session(sid))
        if b"kind" not in raw:  # never created, or ended (a late write may leave a stray field)
            raise HTTPException(404, f"unknown session {sid!r} (never created, deleted, or expired)")
        return {k.decode(): v.decode() for k, v in raw.items()}

    async def mark_dead(sid: str) -> None:
        if await aconn.hget(keys.session(sid), "state") == b"live":
            async with aconn.pipeline(transaction=False) as pipe:
                pipe.hset(keys.session(sid), "state", "dead")
                pipe.expire(keys.session(sid), bus.DEAD_TTL_S)
                pipe.hincrby(keys.stats, "ended:worker_lost", 1)
                await pipe.execute()

    async def on_worker(sid: str, meta: dict, msg: dict, timeout_s: float = OP_TIMEOUT_S) -> dict:
        if meta.get("state") == "dead":
            raise _Dead()
        try:
            reply = await bus.call(aconn, keys, meta["worker"], {**msg, "sid": sid}, timeout_s)
        except WorkerDead:
            await mark_dead(sid)
            raise _Dead() from None
        except WorkerTimeout as err:
            raise HTTPException(504, f"session {sid}: {err}") from None
        if not reply["ok"]:
            raise HTTPException(reply["code"], reply["error"])
        return reply

    def gone(sid: str, meta: dict) -> HTTPException:
        return HTTPException(410, f"session {sid} is dead: its worker ({meta.get('worker')}) is gone")

    # -- create -------------------------------------------------------------------------------------
    @api.post("", status_code=201, response_model=SessionCreated, responses={404: {}, 422: {}, 503: {}})
    async def create_session(body: CreateSession) -> SessionCreated:
        """Start a session: a sandbox with a persistent Python interpreter or bash shell."""
        digest = await _problem_digest(aconn, prefix, body.problem_id) if body.problem_id else None
        workers = await bus.live_workers(aconn, keys)
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
            "limits": body.limits.model_dump(),
            # the worker reads the problem's files from its own test store, never from this message
            "problem_digest": digest,
        }
        refused = None  # the last worker's reason, for the 503 when none could take it
        for worker in candidates:
            try:
                reply = await bus.call(aconn, keys, worker, msg, CREATE_TIMEOUT_S)
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
    @api.post("/{sid}/exec", response_model=ExecResult, responses={404: {}, 422: {}})
    async def exec_in_session(sid: str, body: ExecRequest) -> ExecResult:
        """Run code (python) or a command (bash) in the session's shell; its state persists."""
        meta = await meta_of(sid)
        kind = meta["kind"]
        if (kind == "python") != (body.code is not None):
            wanted = "'code'" if kind == "python" else "'command'"
            raise HTTPException(422, f"session {sid} is a {kind} session: send {wanted}")
        text = body.code if body.code is not None else body.command
        if len(text) * 4 > settings.max_code_kb << 10 and len(text.encode()) > settings.max_code_kb << 10:
            raise HTTPException(
                413, f"exec text over the limit of {settings.max_code_kb} KB (FRONTIER_MAX_CODE_KB)"
            )
        msg = {"op": "exec", "text": text, "timeout_s": body.timeout_s}
        try:
            reply = await on_worker(sid, meta, msg, body.timeout_s + EXEC_EXTRA_S)
        except _Dead:
            return ExecResult(stdout="", stderr="", exit_code=None, status="dead", cpu_ms=0, wall_ms=0)
        return ExecResult.model_validate(reply["result"])

    # -- files --------------------------------------------------------------------------------------
    @api.put(
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
    async def put_file(sid: str, path: FilePath, request: Request) -> FileWritten:
        """Write a file (the raw request body) into the session's working directory."""
        path = _checked(path)
        meta = await meta_of(sid)
        data = await request.body()
        if len(data) > settings.session_max_file_mb << 20:
            raise HTTPException(
                413,
                f"file over the limit of {settings.session_max_file_mb} MB (FRONTIER_SESSION_MAX_FILE_MB)",
            )
        try:
            reply = await on_worker(
                sid, meta, {"op": "put", "path": path, "data": base64.b64encode(data).decode()}
            )
        except _Dead:
            raise gone(sid, meta) from None
        return FileWritten(path=path, bytes=reply["bytes"])

    @api.get(
        "/{sid}/files/{path:path}",
        response_class=Response,
        responses={200: {"content": {"application/octet-stream": {}}}, 404: {}, 410: {}, 413: {}, 422: {}},
    )
    async def get_file(sid: str, path: FilePath) -> Response:
        """Read a file of the session's working directory (raw bytes)."""
        path = _checked(path)
        meta = await meta_of(sid)
        msg = {"op": "get", "path": path, "max_bytes": settings.session_max_file_mb << 20}
        try:
            reply = await on_worker(sid, meta, msg)
        except _Dead:
            raise gone(sid, meta) from None
        return Response(base64.b64decode(reply["data"]), media_type="application/octet-stream")

    # -- submit -------------------------------------------------------------------------------------
    @api.post(
        "/{sid}/submit", response_model=JudgeResult, responses={404: {}, 409: {}, 410: {}, 413: {}, 422: {}}
    )
    async def submit(sid: str, body: SubmitRequest, request: Request) -> Response:
        """Judge a program of the session (a file, or code) on the session's problem: POST /judge's result."""
        # the judge's own batch path (imported here: the judge's API package imports this module)
        from services.judge.api import batches
        from services.judge.api.models import JudgeRequest

        meta = await meta_of(sid)
        problem_id = meta.get("problem_id")
        if not problem_id:
            raise HTTPException(409, f"session {sid} was created without a problem_id: nothing to submit to")
        code = body.code
        if code is None:
            path = _checked(body.path)
            msg = {"op": "get", "path": path, "max_bytes": settings.max_code_kb << 10}
            try:
                reply = await on_worker(sid, meta, msg)
            except _Dead:
                raise gone(sid, meta) from None
            try:
                code = base64.b64decode(reply["data"]).decode("utf-8")
            except UnicodeDecodeError:
                raise HTTPException(422, f"{path!r} is not UTF-8 text") from None
        try:
            batch = JudgeRequest(
                submissions=[{"id": sid, "problem_id": problem_id, "language": body.language, "code": code}],
                **JudgeOptions.of(body).model_dump(),
            )
        except ValidationError as err:
            raise HTTPException(422, f"cannot judge this program: {err.errors()[0]['msg']}") from None
        state = request.app.state.judge
        batch_id = await batches.accept_batch(state, batch, "sessions")
        if not await batches.wait_batch(state, batch_id, settings.judge_wait_s):
            raise HTTPException(504, f"batch {batch_id} not finished; GET /submissions/{batch_id}")
        results = await batches.batch_results_json(state, batch_id)
        return Response(json.dumps(json.loads(results)[0]), media_type="application/json")

    # -- delete and list ----------------------------------------------------------------------------
    @api.delete("/{sid}", status_code=204, response_class=Response, responses={404: {}})
    async def delete_session(sid: str) -> Response:
        """End the session: every process, its cgroup and its files are gone when this answers."""
        meta = await meta_of(sid)
        try:
            await on_worker(sid, meta, {"op": "delete"})
        except _Dead:
            async with aconn.pipeline(transaction=False) as pipe:
                pipe.delete(keys.session(sid))
                pipe.srem(keys.all, sid)
                await pipe.execute()
        return Response(status_code=204)

    @api.get("", response_model=list[SessionInfo])
    async def list_sessions() -> list[SessionInfo]:
        """Every session of the cluster (for operators), live or dead, oldest first."""
        sids = sorted(s.decode() for s in await aconn.smembers(keys.all))
        alive = await bus.live_workers(aconn, keys)
        out, forgotten = [], []
        for sid in sids:
            raw = await aconn.hgetall(keys.session(sid))
            if b"kind" not in raw:
                forgotten.append(sid)
                continue
            meta = {k.decode(): v.decode() for k, v in raw.items()}
            if meta["state"] == "live" and meta["worker"] not in alive:
                await mark_dead(sid)
                meta["state"] = "dead"
            out.append(_info(sid, meta))
        if forgotten:
            await aconn.srem(keys.all, *forgotten)
        return sorted(out, key=lambda s: s.created_at)

    @api.get("/{sid}", response_model=SessionInfo, responses={404: {}})
    async def session_info(sid: str) -> SessionInfo:
        """One session, as `GET /sessions` lists it."""
        meta = await meta_of(sid)
        if meta["state"] == "live" and not await aconn.exists(keys.heartbeat(meta["worker"])):
            await mark_dead(sid)
            meta["state"] = "dead"
        return _info(sid, meta)

    return api


def _checked(path: str) -> str:
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


async def _problem_digest(aconn: aioredis.Redis, prefix: str, problem_id: str) -> str:
    """The stored problem's definition digest; 404 for a problem never uploaded."""
    digest = await aconn.hget(f"{prefix}:problems", problem_id)
    if digest is None or not await aconn.exists(f"{prefix}:pdef:{digest.decode()}"):
        raise HTTPException(404, f"unknown problem {problem_id!r}; upload it with PUT /problems/{problem_id}")
    return digest.decode()


class _SessionCollector:
    """Sessions of the whole cluster for /metrics, read from Redis at scrape time."""

    def __init__(self, conn: redis.Redis, keys: SessionKeys):
        self.conn = conn
        self.keys = keys

    def collect(self):
        try:
            figures = self._read()
        except redis.RedisError:
            return
        yield from figures

    def _read(self) -> list:
        conn, keys = self.conn, self.keys
        workers = sorted(w.decode() for w in conn.smembers(keys.workers))
        beats = (
            [json.loads(b) for b in conn.mget([keys.heartbeat(w) for w in workers]) if b] if workers else []
        )
        sids = [s.decode() for s in conn.smembers(keys.all)]
        with conn.pipeline(transaction=False) as pipe:
            for sid in sids:
                pipe.hmget(keys.session(sid), ["kind", "state"])
            metas = pipe.execute() if sids else []
        stats = {k.decode(): int(v) for k, v in conn.hgetall(keys.stats).items()}
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
