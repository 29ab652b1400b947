"""A problem's keys (layout in services/judge/queue/batches.py): its test files stored once each by
content hash, and its definition under its digest with its id, summary and owner, in one step."""

from __future__ import annotations

import secrets

import redis
import redis.asyncio as aioredis

from services.judge.queue.batches import Keys

# KEYS: pdef, problems, summaries, owners. ARGV: id, digest, definition, summary JSON, client,
# operator's name. The owner is checked and the definition stored in one step; the first upload
# names the owner, which a replacement (the owner's, or the operator's) keeps. -> created, or owner.
_STORE_LUA = """
local owner = redis.call('HGET', KEYS[4], ARGV[1])
if owner and owner ~= ARGV[5] and ARGV[5] ~= ARGV[6] then return {-1, owner} end
redis.call('SET', KEYS[1], ARGV[3])
local created = redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[4])
if not owner then redis.call('HSET', KEYS[4], ARGV[1], ARGV[5]) end
return {created, ''}
"""


def store_blobs(conn: redis.Redis, keys: Keys, blobs: dict[str, bytes]) -> None:
    """Each test file under its digest, only where absent (each stored once)."""
    digests = sorted(blobs)
    with conn.pipeline(transaction=False) as pipe:
        for d in digests:
            pipe.exists(keys.blob(d))
        present = pipe.execute()
    new = [d for d, there in zip(digests, present, strict=True) if not there]
    with conn.pipeline(transaction=False) as pipe:
        for d in new:
            pipe.set(keys.blob(d), blobs[d], nx=True)
        pipe.execute()


def store_definition(
    conn: redis.Redis,
    keys: Keys,
    problem_id: str,
    digest: str,
    definition: str,
    summary_json: str,
    client: str,
    operator: str,
) -> tuple[bool | None, bytes | None]:
    """Store a problem's definition unless another client owns its id: (created, None), or (None,
    the owner) when `client` (not the operator) may not replace it."""
    created, owner = conn.eval(
        _STORE_LUA,
        4,
        keys.pdef(digest),
        keys.problems,
        keys.summaries,
        keys.problem_owners,
        problem_id,
        digest,
        definition,
        summary_json,
        client,
        operator,
    )
    if created == -1:
        return None, owner
    return created == 1, None


def digest_salt(conn: redis.Redis, keys: Keys) -> bytes:
    """This Redis's random salt of definition digests, made by the first upload (SET NX, so every API
    process of one Redis agrees and the same upload keeps its digest)."""
    conn.set(keys.digest_salt, secrets.token_hex(32), nx=True)
    return conn.get(keys.digest_salt)


async def stored_digest(aconn: aioredis.Redis, keys: Keys, problem_id: str) -> str | None:
    """The stored problem's definition digest; None for a problem never uploaded (or whose definition
    is gone)."""
    digest = await aconn.hget(keys.problems, problem_id)
    if digest is None or not await aconn.exists(keys.pdef(digest.decode())):
        return None
    return digest.decode()


async def owner(aconn: aioredis.Redis, keys: Keys, problem_id: str) -> bytes | None:
    """The client that first uploaded the problem (None for a problem never uploaded)."""
    return await aconn.hget(keys.problem_owners, problem_id)


async def summaries(aconn: aioredis.Redis, keys: Keys, problem_ids: list[str] | None = None) -> list:
    """Summary JSONs (GET /problems): every problem's, or those of `problem_ids` in order (None where
    one was never uploaded)."""
    if problem_ids is None:
        return list((await aconn.hgetall(keys.summaries)).values())
    return await aconn.hmget(keys.summaries, problem_ids)


async def digests(aconn: aioredis.Redis, keys: Keys, problem_ids: list[str]) -> dict[str, bytes | None]:
    """Each problem's definition digest (None where it was never uploaded)."""
    if not problem_ids:
        return {}
    return dict(zip(problem_ids, await aconn.hmget(keys.problems, problem_ids), strict=True))


async def definition(aconn: aioredis.Redis, keys: Keys, problem_id: str) -> tuple[str, bytes] | None:
    """(digest, the stored Problem JSON) of a problem; None for one never uploaded (or expired)."""
    digest = await aconn.hget(keys.problems, problem_id)
    raw = await aconn.get(keys.pdef(digest.decode())) if digest else None
    return None if raw is None else (digest.decode(), raw)
