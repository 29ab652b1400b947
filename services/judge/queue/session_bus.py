"""How API processes reach the worker that holds a session: Redis lists, one per worker process.

Redis layout (P = settings.redis_prefix):
    P:sess:workers       set     worker ids (host.pid) that serve sessions
    P:sess:hb:<worker>   string  JSON {"sessions", "max"}; expires HEARTBEAT_TTL_S after the worker's
                                 last beat, so a killed worker is known dead within that time
    P:sess:req:<worker>  list    requests for that worker (JSON {"rid", "op", "sid", ...})
    P:sess:rep:<rid>     list    the one reply to request rid (expires): its JSON; where it says
                                 `"parts": [size, ...]`, each part is the string below
    P:sess:rep:<rid>:<i> string  part i of that reply (an exec's stdout, stderr: the bytes the answer
                                 carries, never escaped or copied into the JSON), written before the
                                 reply itself, read in pieces and deleted by the API (expires)
    P:sess:s:<sid>       hash    the session: worker, kind, problem_id, limits, created_s, expires_s,
                                 last_s, state (live | dead)
    P:sess:all           set     session ids, for GET /sessions
    P:sess:stats         hash    cluster counters for /metrics: created, ended:<reason>, exec:<status>

A request names its worker, waits on its reply list in short steps and, between steps, checks the
worker's heartbeat: the death of the worker (even by SIGKILL) answers "dead" within
HEARTBEAT_TTL_S, never a hang.
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass

import redis.asyncio as aioredis

HEARTBEAT_S = 0.5
# ten beats: a loaded host that keeps the lease keeper off a CPU for seconds kills no live session
HEARTBEAT_TTL_S = 5.0
REPLY_TTL_S = 120
REQUEST_TTL_S = 120
DEAD_TTL_S = 600  # how long a dead session is still answered "dead" before it is forgotten
PART_READ_BYTES = 1 << 20  # a reply's part (an exec's output) is read this much at a time


@dataclass(frozen=True)
class SessionKeys:
    prefix: str

    @property
    def workers(self) -> str:
        return f"{self.prefix}:sess:workers"

    def heartbeat(self, worker: str) -> str:
        return f"{self.prefix}:sess:hb:{worker}"

    def requests(self, worker: str) -> str:
        return f"{self.prefix}:sess:req:{worker}"

    def reply(self, rid: str) -> str:
        return f"{self.prefix}:sess:rep:{rid}"

    def reply_part(self, rid: str, i: int) -> str:
        return f"{self.prefix}:sess:rep:{rid}:{i}"

    def session(self, sid: str) -> str:
        return f"{self.prefix}:sess:s:{sid}"

    @property
    def all(self) -> str:
        return f"{self.prefix}:sess:all"

    @property
    def stats(self) -> str:
        return f"{self.prefix}:sess:stats"


_TOUCH_LUA = "if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HSET', KEYS[1], 'last_s', ARGV[1]) end"


def touch(pipe, keys: SessionKeys, sid: str, now_s: float) -> None:
    """A session's last use, on `pipe`: only while the session exists (an end racing this write must
    not leave a stray key)."""
    pipe.eval(_TOUCH_LUA, 1, keys.session(sid), f"{now_s:.3f}")


class WorkerDead(RuntimeError):
    """The worker holding the session stopped beating."""


class WorkerTimeout(RuntimeError):
    """The worker is alive but did not answer in time."""


async def call(aconn: aioredis.Redis, keys: SessionKeys, worker: str, msg: dict, timeout_s: float) -> dict:
    """Send one request to `worker` and wait for its reply; WorkerDead as soon as its heartbeat lapses."""
    rid = uuid.uuid4().hex
    async with aconn.pipeline(transaction=False) as pipe:
        pipe.exists(keys.heartbeat(worker))
        pipe.rpush(keys.requests(worker), json.dumps({**msg, "rid": rid}))
        pipe.expire(keys.requests(worker), REQUEST_TTL_S)
        alive, _, _ = await pipe.execute()
    if not alive:  # the request stays in a list no one reads, and expires with it
        raise WorkerDead(worker)
    deadline = time.monotonic() + timeout_s
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise WorkerTimeout(f"worker {worker} did not answer in {timeout_s:.0f} s")
        got = await aconn.blpop([keys.reply(rid)], timeout=min(left, HEARTBEAT_TTL_S / 2))
        if got is not None:
            return await reply_of(aconn, keys, rid, got[1])
        if not await aconn.exists(keys.heartbeat(worker)):
            raise WorkerDead(worker)


async def reply_of(aconn: aioredis.Redis, keys: SessionKeys, rid: str, head: bytes) -> dict:
    """The reply to request `rid` from its JSON `head`, with its `parts` (an exec's output bytes,
    written before the head, so already there) where it has them: each read PART_READ_BYTES at a
    time into one buffer of its size (redis-py's parser holds a value it reads about three times
    over), then dropped from Redis. A part that expired meanwhile reads as None."""
    reply = json.loads(head)
    sizes = reply.get("parts")
    if sizes:
        parts = []
        for i, size in enumerate(sizes):
            key = keys.reply_part(rid, i)
            buf: bytearray | None = bytearray(size)
            for at in range(0, size, PART_READ_BYTES):
                chunk = await aconn.getrange(key, at, min(size, at + PART_READ_BYTES) - 1)
                if len(chunk) != min(size, at + PART_READ_BYTES) - at:
                    buf = None
                    break
                buf[at : at + len(chunk)] = chunk
            parts.append(buf)
        await aconn.delete(*(keys.reply_part(rid, i) for i in range(len(sizes))))
        reply["parts"] = parts
    return reply


async def live_workers(aconn: aioredis.Redis, keys: SessionKeys) -> dict[str, dict]:
    """Workers whose heartbeat is current: id -> {"sessions", "max"}; forgets the ones that stopped."""
    workers = sorted(w.decode() for w in await aconn.smembers(keys.workers))
    if not workers:
        return {}
    beats = await aconn.mget([keys.heartbeat(w) for w in workers])
    alive, gone = {}, []
    for w, beat in zip(workers, beats, strict=True):
        if beat is None:
            gone.append(w)
        else:
            alive[w] = json.loads(beat)
    if gone:
        await aconn.srem(keys.workers, *gone)
    return alive


# -- a session's record (P:sess:s:<id>), as the API reads and ends it -------------------------------
async def session_record(aconn: aioredis.Redis, keys: SessionKeys, sid: str) -> dict[bytes, bytes]:
    """The session's hash ({} for one never created, deleted or expired)."""
    return await aconn.hgetall(keys.session(sid))


async def session_ids(aconn: aioredis.Redis, keys: SessionKeys) -> list[str]:
    """Every session of the cluster the index holds, live or dead."""
    return sorted(raw.decode() for raw in await aconn.smembers(keys.all))


async def forget_ids(aconn: aioredis.Redis, keys: SessionKeys, sids: list[str]) -> None:
    """Drop ids whose record is gone from the index."""
    if sids:
        await aconn.srem(keys.all, *sids)


async def mark_lost(aconn: aioredis.Redis, keys: SessionKeys, sid: str) -> None:
    """A live session whose worker died: dead, kept DEAD_TTL_S to be answered so, and counted."""
    if await aconn.hget(keys.session(sid), "state") == b"live":
        async with aconn.pipeline(transaction=False) as pipe:
            pipe.hset(keys.session(sid), "state", "dead")
            pipe.expire(keys.session(sid), DEAD_TTL_S)
            pipe.hincrby(keys.stats, "ended:worker_lost", 1)
            await pipe.execute()


async def forget_session(aconn: aioredis.Redis, keys: SessionKeys, sid: str) -> None:
    """A deleted session whose worker is gone: its record and its index entry."""
    async with aconn.pipeline(transaction=False) as pipe:
        pipe.delete(keys.session(sid))
        pipe.srem(keys.all, sid)
        await pipe.execute()


async def worker_beats(aconn: aioredis.Redis, keys: SessionKeys, worker: str) -> bool:
    """Whether the worker's heartbeat key is there (it beat within HEARTBEAT_TTL_S)."""
    return bool(await aconn.exists(keys.heartbeat(worker)))


def cluster_figures(conn, keys: SessionKeys) -> tuple[list[dict], list, dict[str, int]]:
    """For /metrics, read at scrape time: the live workers' heartbeats, each session's [kind, state]
    and the session counters."""
    workers = sorted(w.decode() for w in conn.smembers(keys.workers))
    beats = [json.loads(b) for b in conn.mget([keys.heartbeat(w) for w in workers]) if b] if workers else []
    sids = [s.decode() for s in conn.smembers(keys.all)]
    with conn.pipeline(transaction=False) as pipe:
        for sid in sids:
            pipe.hmget(keys.session(sid), ["kind", "state"])
        metas = pipe.execute() if sids else []
    stats = {k.decode(): int(v) for k, v in conn.hgetall(keys.stats).items()}
    return beats, metas, stats
