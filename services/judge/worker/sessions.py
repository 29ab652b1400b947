"""The worker side of sessions: a judge worker process holds its sessions' sandboxes and serves the
requests the API routes to it through Redis (services/judge/queue/session_bus.py), with idle and lifetime reapers.

One thread takes requests off the worker's list and hands each to a pool; operations on one session
run one at a time (its lock), operations on different sessions in parallel. A heartbeat thread keeps
the worker's heartbeat key fresh and ends sessions past their lifetime or idle time. From the first create on, a
few sandboxes of each kind are kept started ahead of time (FRONTIER_SESSION_WARM), so a create only
sets the session's limits and files: starting a sandbox (namespaces, private root, interpreter) takes
about a tenth of a second, taking a warm one a few milliseconds. A worker that only judges starts none.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import os
import shutil
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from services.judge.core.paths import BadPath
from services.judge.core.sandbox.cgroups import CgroupError, detect
from services.judge.core.sandbox.seccomp import SeccompUnavailable, filter_bpf
from services.judge.core.sandbox.session import (
    FileOpError,
    SessionSandbox,
    SessionSandboxError,
)
from services.judge.queue.connection import RedisError
from services.judge.queue.session_bus import HEARTBEAT_S, HEARTBEAT_TTL_S, REPLY_TTL_S, SessionKeys, touch
from services.judge.worker.admission import Grant, MemoryLedger, NoRoom
from services.judge.worker.lease import shared_keeper
from services.problems.store import Problem, TestStore
from services.redis_conn import open_redis
from services.settings import Settings

log = logging.getLogger(__name__)

EXAMPLE_INPUT_BYTES = 1 << 20  # a public test with a larger input is left out of the session's files


@dataclass
class _Session:
    sid: str
    sandbox: SessionSandbox
    expires_s: float
    idle_s: float
    last_s: float = field(default_factory=time.time)
    lock: threading.Lock = field(default_factory=threading.Lock)
    busy: int = 0
    grant: Grant | None = None  # its memory limit, counted against the host's budget (admission.py)


class _Refused(Exception):
    """A request this worker answers with an error: `code` is the HTTP status the API gives it."""

    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code = code


class SessionManager:
    def __init__(self, settings: Settings):
        if settings.sandbox_mode != "strict":
            raise SessionSandboxError("sessions need the strict sandbox (FRONTIER_SANDBOX_MODE=strict)")
        try:
            self.cgroup_host = detect()
            self.seccomp = filter_bpf()
        except (CgroupError, OSError, SeccompUnavailable) as err:
            raise SessionSandboxError(f"sessions cannot be isolated here: {err}") from None
        self.settings = settings
        self.keys = SessionKeys(settings.redis_prefix)
        self.worker_id = f"{socket.gethostname()}.{os.getpid()}"
        self.max_sessions = settings.session_max_per_worker
        self.state_dir = Path(settings.state_dir)
        self.store = TestStore(self.state_dir / "tests")  # the engine's test store: the same blobs
        self.ledger = MemoryLedger.from_settings(settings)
        self.conn = open_redis(settings, answer_s=10)
        self.sessions: dict[str, _Session] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._pool = ThreadPoolExecutor(max(8, 2 * self.max_sessions), thread_name_prefix="session")
        self._threads: list[threading.Thread] = []
        self.warm_per_kind = settings.session_warm
        self._warm: dict[str, list[SessionSandbox]] = {"python": [], "bash": []}
        self._refill = threading.Event()
        # sandboxes whose cgroup still listed a process when they were closed: retried every beat
        self._leftovers: list[SessionSandbox] = []
        # the warm pool fills from the first create on: a worker that only judges starts no sandbox
        self._in_use = threading.Event()

    # -- life cycle -------------------------------------------------------------------------------
    def start(self) -> SessionManager:
        self._remove_stale_dirs()
        self._beat()
        self.conn.sadd(self.keys.workers, self.worker_id)
        # the heartbeat's expiry is also extended by the lease keeper, a process of its own: a
        # judgement holding the GIL does not make the API declare these sessions dead (issue 28)
        shared_keeper(self.conn).hold(
            f"sessions:{self.worker_id}",
            HEARTBEAT_S,
            kind="touch",
            key=self.keys.heartbeat(self.worker_id),
            ttl_ms=int(HEARTBEAT_TTL_S * 1000),
        )
        threads = (
            (self._serve, "sessions-serve"),
            (self._keep_alive, "sessions-beat"),
            (self._keep_warm, "sessions-warm"),
        )
        for target, name in threads:
            t = threading.Thread(target=target, name=name, daemon=True)
            t.start()
            self._threads.append(t)
        log.info("sessions: worker %s holds up to %d sessions", self.worker_id, self.max_sessions)
        return self

    def close(self) -> None:
        shared_keeper(self.conn).release(f"sessions:{self.worker_id}")
        self._stop.set()
        for t in self._threads:
            t.join(timeout=5)
        with self._lock:
            sids = list(self.sessions)
        for sid in sids:
            self._end(sid, "worker_stopped")
        with self._lock:
            warm = [box for boxes in self._warm.values() for box in boxes]
            self._warm = {"python": [], "bash": []}
        for box in warm:
            self._close_box(box)
        self._finish_leftovers()
        self._pool.shutdown(wait=False, cancel_futures=True)
        try:
            self.conn.delete(self.keys.heartbeat(self.worker_id))
            self.conn.srem(self.keys.workers, self.worker_id)
        except RedisError:
            pass

    def _close_box(self, box: SessionSandbox) -> None:
        try:
            done = box.close()
        except Exception as err:  # noqa: BLE001 - retried with the leftovers
            log.warning("sessions: closing sandbox %s: %s", box.tag, err)
            done = False
        if not done:
            with self._lock:
                self._leftovers.append(box)

    def _finish_leftovers(self) -> None:
        with self._lock:
            boxes, self._leftovers = self._leftovers, []
        for box in boxes:
            try:
                done = box.finish_close()
            except Exception as err:  # noqa: BLE001
                log.warning("sessions: sandbox %s: %s", box.tag, err)
                done = False
            if not done:
                with self._lock:
                    self._leftovers.append(box)

    def _remove_stale_dirs(self) -> None:
        """Session directories of worker processes that no longer exist (killed before their clean-up)."""
        root = self.state_dir / "sessions"
        for d in root.glob("*-s*") if root.is_dir() else ():
            pid = d.name.split("-", 1)[0]
            if pid.isdigit() and int(pid) != os.getpid() and not Path(f"/proc/{pid}").exists():
                shutil.rmtree(d, ignore_errors=True)
        try:
            self.cgroup_host.remove_stale()
        except OSError as err:
            log.warning("sessions: stale cgroups: %s", err)

    def _beat(self) -> None:
        with self._lock:
            n = len(self.sessions)
        beat = json.dumps({"sessions": n, "max": self.max_sessions})
        self.conn.set(self.keys.heartbeat(self.worker_id), beat, px=int(HEARTBEAT_TTL_S * 1000))

    def _keep_alive(self) -> None:
        while not self._stop.wait(HEARTBEAT_S):
            try:
                self._beat()
                self.conn.sadd(self.keys.workers, self.worker_id)
            except RedisError as err:
                log.warning("sessions: heartbeat: %s", err)
            now = time.time()
            with self._lock:
                due = [
                    (s.sid, "expired" if now >= s.expires_s else "idle")
                    for s in self.sessions.values()
                    if not s.busy and (now >= s.expires_s or now - s.last_s >= s.idle_s)
                ]
            for sid, reason in due:
                self._pool.submit(self._end, sid, reason)
            self._finish_leftovers()

    # -- warm sandboxes ---------------------------------------------------------------------------
    def _new_box(self, kind: str) -> SessionSandbox:
        s = self.settings
        return SessionSandbox(
            kind,
            state_dir=self.state_dir,
            cgroup_host=self.cgroup_host,
            seccomp_bpf=self.seccomp,
            memory_limit_mb=512,
            cpu_limit_s=10.0,
            output_limit_kb=1024,
            disk_mb=s.session_disk_mb,
            pids_max=s.pids_max,
            open_files_max=s.open_files_max,
            idle_cpus=s.session_idle_cpus or None,
        )

    def _keep_warm(self) -> None:
        """Keep `warm_per_kind` started sandboxes of each kind, within the worker's session capacity."""
        while not self._stop.is_set():
            self._refill.wait(1.0)
            self._refill.clear()
            if not self._in_use.is_set():
                continue
            for kind in ("python", "bash"):
                while not self._stop.is_set():
                    with self._lock:
                        room = self.max_sessions - len(self.sessions) - sum(map(len, self._warm.values()))
                        if len(self._warm[kind]) >= self.warm_per_kind or room <= 0:
                            break
                    box = self._new_box(kind)
                    try:
                        box.start()
                    except (SessionSandboxError, OSError) as err:
                        log.warning("sessions: a warm %s sandbox could not start: %s", kind, err)
                        self._close_box(box)
                        self._stop.wait(5.0)
                        break
                    with self._lock:
                        self._warm[kind].append(box)

    def _take_box(self, kind: str, limits: dict) -> SessionSandbox | None:
        """A warm sandbox of `kind` with the session's limits set, or None when there is none."""
        while True:
            with self._lock:
                box = self._warm[kind].pop() if self._warm[kind] else None
            self._refill.set()
            if box is None:
                return None
            if box.alive:
                try:
                    box.configure(limits["memory_mb"], limits["cpu_s"], limits["output_kb"])
                    return box
                except OSError as err:
                    log.warning("sessions: a warm sandbox could not take its limits: %s", err)
            self._close_box(box)

    # -- requests ---------------------------------------------------------------------------------
    def _serve(self) -> None:
        conn = open_redis(self.settings, blocking_s=1, answer_s=4)  # BLPOP's 1 s below
        key = self.keys.requests(self.worker_id)
        while not self._stop.is_set():
            try:
                got = conn.blpop([key], timeout=1)
            except RedisError as err:
                log.warning("sessions: %s", err)
                self._stop.wait(0.5)
                continue
            if got is not None:
                self._pool.submit(self._handle, json.loads(got[1]))

    def _handle(self, msg: dict) -> None:
        try:
            reply = {"ok": True, **self._dispatch(msg)}
        except _Refused as err:
            reply = {"ok": False, "code": err.code, "error": str(err)}
        except BadPath as err:
            reply = {"ok": False, "code": 422, "error": str(err)}
        except FileOpError as err:
            code = {"ENOENT": 404, "EFBIG": 413, "EISDIR": 422, "EINVAL": 422, "ELOOP": 422, "ENOSPC": 507}
            reply = {"ok": False, "code": code.get(err.errno_name, 422), "error": str(err)}
        except SessionSandboxError as err:
            log.warning("session %s: %s", msg.get("sid"), err)
            if msg["op"] == "create":
                reply = {"ok": False, "code": 503, "error": f"the session's sandbox could not start: {err}"}
            else:
                self._end(msg.get("sid", ""), "broken")
                reply = {
                    "ok": False,
                    "code": 410,
                    "error": f"the session's sandbox failed and was ended: {err}",
                }
                if msg["op"] == "exec":  # an exec result like any other: nothing more runs there
                    reply = {"ok": True, "result": _dead(), "count": "exec:dead"}
        except Exception as err:  # noqa: BLE001 - answer every request, whatever went wrong
            log.exception("session request %s", msg.get("op"))
            reply = {"ok": False, "code": 500, "error": f"internal error: {type(err).__name__}: {err}"}
        if reply.get("result", {}).get("status") == "dead":
            self._end(msg["sid"], "broken")  # its keeper is gone: end the session now
        count = reply.pop("count", None)
        try:
            with self.conn.pipeline(transaction=False) as pipe:
                push_reply(pipe, self.keys, msg["rid"], reply)
                if count:
                    pipe.hincrby(self.keys.stats, count, 1)
                if reply["ok"] and msg["op"] in ("exec", "put", "get"):
                    # only while the session exists: an end racing this write must not leave a stray key
                    touch(pipe, self.keys, msg["sid"], time.time())
                pipe.execute()
        except RedisError as err:
            log.warning("sessions: could not answer request %s: %s", msg.get("rid"), err)

    def _dispatch(self, msg: dict) -> dict:
        op = msg["op"]
        if op == "create":
            return self._create(msg)
        if op == "delete":
            self._end(msg["sid"], "deleted")
            return {}
        session = self._get(msg["sid"])
        # one call at a time: a second one is refused at once rather than queued behind an exec
        # whose end its caller could not wait for
        if not session.lock.acquire(blocking=False):
            raise _Refused(409, f"session {msg['sid']} is busy with another call; retry when it answers")
        try:
            if session.sandbox.closed:
                raise _Refused(404, f"session {msg['sid']} has ended")
            session.busy += 1
            try:
                return self._on_session(session, op, msg)
            finally:
                session.busy -= 1
                session.last_s = time.time()
        finally:
            session.lock.release()

    def _on_session(self, session: _Session, op: str, msg: dict) -> dict:
        box = session.sandbox
        if op == "exec":
            # an exec never outlives the session
            timeout_s = max(0.001, min(msg["timeout_s"], session.expires_s - time.time()))
            result, out, err = box.exec_raw(msg["text"], timeout_s)
            # the output travels as the bytes read, beside the reply's JSON (bus.py)
            return {"result": result.__dict__, "count": f"exec:{result.status}", "parts": [out, err]}
        if op == "put":
            data = base64.b64decode(msg["data"])
            box.put_file(msg["path"], data)
            return {"bytes": len(data)}
        if op == "get":
            data = box.get_file(msg["path"], msg["max_bytes"])
            return {"data": base64.b64encode(data).decode()}
        raise _Refused(422, f"unknown operation {op!r}")

    def _get(self, sid: str) -> _Session:
        with self._lock:
            session = self.sessions.get(sid)
        if session is None:
            raise _Refused(404, f"session {sid} is not held by worker {self.worker_id} (ended or expired)")
        return session

    def _create(self, msg: dict) -> dict:
        sid, limits = msg["sid"], msg["limits"]
        with self._lock:
            if len(self.sessions) >= self.max_sessions:
                raise _Refused(
                    503, f"worker {self.worker_id} holds its maximum of {self.max_sessions} sessions"
                )
        files = self._problem_files(msg["problem_digest"]) if msg.get("problem_digest") else {}
        try:
            grant = self.ledger.admit(limits["memory_mb"], f"session {sid}")
        except NoRoom as err:
            raise _Refused(503, str(err)) from None
        try:
            return self._create_admitted(msg, files, grant)
        except BaseException:
            grant.release()
            raise

    def _create_admitted(self, msg: dict, files: dict[str, bytes], grant: Grant) -> dict:
        sid, limits = msg["sid"], msg["limits"]
        self._in_use.set()
        warm = self._take_box(msg["kind"], limits)
        box = warm or self._new_box(msg["kind"])
        if warm is None:
            box.memory_limit_mb = limits["memory_mb"]
            box.cpu_limit_s = limits["cpu_s"]
            box.output_limit_bytes = limits["output_kb"] << 10
        now = time.time()
        session = _Session(
            sid, box, expires_s=now + limits["lifetime_s"], idle_s=limits["idle_s"], grant=grant
        )
        session.busy = 1  # the reapers leave it alone until it is ready
        with self._lock:
            if len(self.sessions) >= self.max_sessions:
                self._close_box(box)
                raise _Refused(
                    503, f"worker {self.worker_id} holds its maximum of {self.max_sessions} sessions"
                )
            self.sessions[sid] = session
        try:
            if warm is None:
                box.start()
            for path, data in files.items():
                box.put_file(path, data)
        except BaseException:
            with self._lock:
                self.sessions.pop(sid, None)
            self._close_box(box)
            raise
        meta = {
            "worker": self.worker_id,
            "kind": msg["kind"],
            "problem_id": msg.get("problem_id") or "",
            "owner": msg.get("owner") or "anonymous",  # the client that created it (docs/spec.md 9.7)
            "limits": json.dumps(limits),
            "created_s": f"{now:.3f}",
            "expires_s": f"{session.expires_s:.3f}",
            "state": "live",
        }
        with self.conn.pipeline(transaction=True) as pipe:
            pipe.hset(self.keys.session(sid), mapping=meta)
            pipe.expireat(self.keys.session(sid), int(session.expires_s) + 60)
            pipe.sadd(self.keys.all, sid)
            pipe.hincrby(self.keys.stats, "created", 1)
            pipe.execute()
        session.last_s = time.time()
        session.busy = 0
        self._beat()
        return {"id": sid, "expires_at": session.expires_s, "files": sorted(files)}

    def _problem_files(self, digest: str) -> dict[str, bytes]:
        """statement.md and the public tests (`tests/<name>.in|.out`, docs/spec.md section 6.6) of the
        problem whose definition is `digest`, read from this worker's own test store (a blob it lacks
        is fetched into it once, as for judging). A test with an input over EXAMPLE_INPUT_BYTES, or
        one that would take the files past FRONTIER_SESSION_PROBLEM_FILES_MB in all, is left out."""
        from services.judge.queue.batches import Keys  # the judge's key names

        keys = Keys(self.settings.redis_prefix)
        raw = self.conn.get(keys.pdef(digest))
        if raw is None:
            raise _Refused(404, f"problem definition {digest[:12]} is no longer stored; upload it again")
        problem = Problem.model_validate_json(raw)
        budget = self.settings.session_problem_files_mb << 20
        statement = problem.statement.encode()[:budget]
        files, total = {"statement.md": statement}, len(statement)
        public = problem.spec.public_tests
        if isinstance(public, int):  # a count (normalised to names when the problem is built): the smallest
            public = [t.name for t in problem.tests[:public]]
        wanted = set(public)
        for test in problem.tests:
            if test.name not in wanted or test.input_bytes > EXAMPLE_INPUT_BYTES:
                continue
            sizes = [self._blob_size(keys, d) for d in (test.input_sha256, test.output_sha256)]
            if None in sizes or total + sum(sizes) > budget:
                continue
            pair = [self._blob(keys, d) for d in (test.input_sha256, test.output_sha256)]
            files[f"tests/{test.name}.in"], files[f"tests/{test.name}.out"] = pair
            total += sum(sizes)
        return files

    def _blob_size(self, keys, digest: str) -> int | None:
        path = self.store.path(digest)
        try:
            return path.stat().st_size
        except FileNotFoundError:
            n = self.conn.strlen(keys.blob(digest))
            return n if n else (0 if self.conn.exists(keys.blob(digest)) else None)

    def _blob(self, keys, digest: str) -> bytes:
        if not self.store.has(digest):
            data = self.conn.get(keys.blob(digest))
            if data is None or hashlib.sha256(data).hexdigest() != digest:
                raise _Refused(503, f"test data {digest[:12]} is missing or corrupt in Redis")
            self.store.put(data)
        return self.store.get(digest)

    def _end(self, sid: str, reason: str) -> None:
        """Close the session's sandbox (nothing of it is left after) and forget it."""
        with self._lock:
            session = self.sessions.pop(sid, None)
        if session is None:
            return
        with session.lock:
            self._close_box(session.sandbox)
            if session.grant is not None:
                session.grant.release()
        try:
            with self.conn.pipeline(transaction=True) as pipe:
                pipe.delete(self.keys.session(sid))
                pipe.srem(self.keys.all, sid)
                pipe.hincrby(self.keys.stats, f"ended:{reason}", 1)
                pipe.execute()
            self._beat()
        except RedisError as err:
            log.warning("session %s: %s", sid, err)
        log.info("session %s ended (%s)", sid, reason)


def push_reply(pipe, keys: SessionKeys, rid: str, reply: dict) -> None:
    """Queue the reply to request `rid` on `pipe`: each of its `parts` (an exec's stdout and stderr)
    as a string of the bytes they are, then its JSON naming their sizes (bus.py reads them back).
    Nothing of an output is copied here: redis-py sends a view as it is."""
    parts = reply.pop("parts", ())
    for i, part in enumerate(parts):
        pipe.set(keys.reply_part(rid, i), part, ex=REPLY_TTL_S)
    head = {**reply, "parts": [memoryview(p).nbytes for p in parts]} if parts else reply
    # UTF-8 as it is: an ASCII-escaped reply would grow a non-ASCII text up to six-fold
    pipe.rpush(keys.reply(rid), json.dumps(head, ensure_ascii=False))
    pipe.expire(keys.reply(rid), REPLY_TTL_S)


def _dead() -> dict:
    return {
        "stdout": "",
        "stderr": "",
        "exit_code": None,
        "status": "dead",
        "cpu_ms": 0,
        "wall_ms": 0,
        "restarted": False,
    }


def start_session_manager(settings: Settings) -> SessionManager | None:
    """The worker process's session manager, started; None where this worker holds no sessions."""
    if settings.session_max_per_worker <= 0:
        return None
    try:
        return SessionManager(settings).start()
    except (SessionSandboxError, RedisError, OSError) as err:
        log.warning("this worker serves no sessions: %s", err)
        return None
