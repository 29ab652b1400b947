"""Carry to the retry (docs/spec.md 6.7): a SandboxFusion run (`/run_code`, `/run_jupyter`) still
running when its answer is due is answered 504 as before, but it is not stopped: it runs on to its
own limits and its outcome is kept, so that the client's retry of the same request (verl's sandbox
client sends exactly the same request again on a 504, up to 3 attempts) waits on it, or is answered
with it at once, instead of starting again from zero on a new run.

A carried run is found by a digest of the request as the client sent it: the client (the name of the
token that opened it) and every field of the run that decides its result (language, code, stdin,
files, limits, args, compiler flags, fetched paths), never its deadline or tag. Only the same client
finds it (the digest covers the client, and the key's value names it again); only a request that
follows the 504 does (two identical requests in flight at once are two runs); only a run whose
worker took it is carried (one still queued at its deadline is cancelled as before), and only an
outcome of the program (status ok) is reused: a run stopped or failed on our side is run again.

The client's last attempt (FRONTIER_SANDBOXFUSION_CLIENT_ATTEMPTS, verl's 3) is not carried: no
retry would take its run, so it is stopped at its deadline like a run without carry. A request's
attempt is 1 + the 504s answered to the same request of the same client inside the window.

Redis layout (P = settings.redis_prefix), each key expiring after the run's limits cost plus
FRONTIER_DEADLINE_CARRY_S from the 504:
    P:carry:<digest>   string  {"run": run id, "client": name}: where the retry finds the run
    P:tries:<digest>   int     504s answered to this request (its attempts so far, less one)
    P:run:<id>:carry   string  the carried run's state: running, claimed (a retry was answered with
                               its outcome before the worker counted its end), ended:<slot ms>
                               (finished, not yet taken by a retry), reused, stopped
The counters (P:stats, /metrics): `carried` (runs carried past their deadline), `carried_ended:<how>`
(reused, unclaimed, stopped) and `carried_slot_ms:<how>` (reused, unclaimed). A run counted
unclaimed moves to reused when a retry is answered with it later, inside its window.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass

import redis
import redis.asyncio as aioredis

from services.ids import HEX_ID, matches
from services.judge.queue import deadlines
from services.judge.queue.batches import Keys
from services.judge.queue.run_models import RunRequest
from services.judge.queue.runs import _key
from services.settings import Settings

# what a run's outcome does not depend on: its deadline, whose caller it is (the client is hashed
# apart), what the compat layer keeps for itself, and this flag
NOT_IN_DIGEST = {"answer_by_s", "cancellable", "tag", "client", "carry", "callback"}


@dataclass(frozen=True)
class CarryKey:
    """Where a request's run would be carried: the request's digest, its client, and how long the
    carry's keys live (its limits cost plus the window)."""

    digest: str
    client: str
    ttl_s: int


def digest(endpoint: str, request: RunRequest) -> str:
    """The request's digest: its endpoint, its client, and every field of its run that decides the
    result (linear work in the request's size)."""
    fields = request.model_dump(mode="json", exclude=NOT_IN_DIGEST)
    h = hashlib.blake2b(digest_size=32, person=b"frontier-carry")
    for part in (endpoint, request.client):
        data = part.encode("utf-8", "surrogatepass")
        h.update(len(data).to_bytes(8, "big") + data)  # length-prefixed: no two splits hash the same
    h.update(json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode())
    return h.hexdigest()


def carry_key(settings: Settings, endpoint: str, request: RunRequest) -> CarryKey:
    ttl = math.ceil(deadlines.run_cost_s(settings, request) + settings.deadline_carry_s) + 1
    return CarryKey(digest(endpoint, request), request.client, ttl)


def _found(settings: Settings, key_digest: str) -> str:
    return f"{settings.redis_prefix}:carry:{key_digest}"


def _state(settings: Settings, run_id: str) -> str:
    return _key(settings, run_id, "carry")


def _tries(settings: Settings, key_digest: str) -> str:
    return f"{settings.redis_prefix}:tries:{key_digest}"


async def is_last_attempt(aconn: aioredis.Redis, settings: Settings, key: CarryKey) -> bool:
    """Whether this request is its client's last attempt (FRONTIER_SANDBOXFUSION_CLIENT_ATTEMPTS):
    the 504s answered to it so far are one fewer. 0 attempts: never (every attempt carried)."""
    most = settings.sandboxfusion_client_attempts
    if not most:
        return False
    return 1 + int(await aconn.get(_tries(settings, key.digest)) or 0) >= most


async def answered_504(aconn: aioredis.Redis, settings: Settings, key: CarryKey) -> None:
    """Count a 504 answered to this request (its client retries it, while it has attempts left)."""
    async with aconn.pipeline(transaction=False) as pipe:
        pipe.incr(_tries(settings, key.digest))
        pipe.expire(_tries(settings, key.digest), key.ttl_s)
        await pipe.execute()


async def find(aconn: aioredis.Redis, settings: Settings, key: CarryKey) -> str | None:
    """The id of the run carried for this request (still running, or finished inside its window), or
    None: nothing carried, expired, or not this client's."""
    raw = await aconn.get(_found(settings, key.digest))
    if raw is None:
        return None
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(value, dict) or value.get("client") != key.client:
        return None
    run_id = value.get("run")
    if not isinstance(run_id, str) or not matches(HEX_ID, run_id):
        return None
    if not await aconn.exists(_state(settings, run_id)):
        return None
    return run_id


# KEYS: res, started, state, found, stats. ARGV: ttl_s, found's value. Atomic against the worker's
# outcome: either the outcome is here (answer it), or the state is set before the worker counts its end.
_BEGIN_LUA = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 'done' end
if redis.call('EXISTS', KEYS[2]) == 0 then return 'not_started' end
if redis.call('SET', KEYS[3], 'running', 'NX', 'EX', ARGV[1]) then
  redis.call('HINCRBY', KEYS[5], 'carried', 1)
end
redis.call('SET', KEYS[4], ARGV[2], 'EX', ARGV[1])
return 'carried'
"""


async def begin(aconn: aioredis.Redis, settings: Settings, run_id: str, key: CarryKey) -> str:
    """At the run's deadline: "carried" (a worker took it: it goes on, and the retry finds it),
    "not_started" (still queued: cancel it, as without carry) or "done" (its outcome just came)."""
    keys = [
        _key(settings, run_id, "res"),
        _key(settings, run_id, "started"),
        _state(settings, run_id),
        _found(settings, key.digest),
        Keys(settings.redis_prefix).stats,
    ]
    value = json.dumps({"run": run_id, "client": key.client})
    got = await aconn.eval(_BEGIN_LUA, len(keys), *keys, key.ttl_s, value)
    return got.decode() if isinstance(got, bytes) else str(got)


# KEYS: state, stats
_CLAIM_LUA = """
local s = redis.call('GET', KEYS[1])
if s == 'running' then
  redis.call('SET', KEYS[1], 'claimed', 'KEEPTTL')
  return 1
end
if s and string.sub(s, 1, 6) == 'ended:' then
  local ms = tonumber(string.sub(s, 7)) or 0
  redis.call('HINCRBY', KEYS[2], 'carried_ended:unclaimed', -1)
  redis.call('HINCRBY', KEYS[2], 'carried_slot_ms:unclaimed', -ms)
  redis.call('HINCRBY', KEYS[2], 'carried_ended:reused', 1)
  redis.call('HINCRBY', KEYS[2], 'carried_slot_ms:reused', ms)
  redis.call('SET', KEYS[1], 'reused', 'KEEPTTL')
  return 1
end
return 0
"""


async def claim(aconn: aioredis.Redis, settings: Settings, run_id: str) -> None:
    """A retry is answered with the carried run's outcome: the run counts as reused (once)."""
    keys = [_state(settings, run_id), Keys(settings.redis_prefix).stats]
    await aconn.eval(_CLAIM_LUA, len(keys), *keys)


# KEYS: state, stats. ARGV: slot_ms, how ("ran" or "stopped")
_END_LUA = """
local s = redis.call('GET', KEYS[1])
if not s then return 0 end
if ARGV[2] == 'stopped' then
  if s == 'running' or s == 'claimed' then
    redis.call('HINCRBY', KEYS[2], 'carried_ended:stopped', 1)
    redis.call('SET', KEYS[1], 'stopped', 'KEEPTTL')
  end
  return 1
end
if s == 'claimed' then
  redis.call('HINCRBY', KEYS[2], 'carried_ended:reused', 1)
  redis.call('HINCRBY', KEYS[2], 'carried_slot_ms:reused', ARGV[1])
  redis.call('SET', KEYS[1], 'reused', 'KEEPTTL')
elseif s == 'running' then
  redis.call('HINCRBY', KEYS[2], 'carried_ended:unclaimed', 1)
  redis.call('HINCRBY', KEYS[2], 'carried_slot_ms:unclaimed', ARGV[1])
  redis.call('SET', KEYS[1], 'ended:' .. ARGV[1], 'KEEPTTL')
end
return 1
"""


def end(conn: redis.Redis, settings: Settings, run_id: str, slot_ms: int, stopped: bool) -> None:
    """The worker's side, after the run's outcome is written: if the run was carried, count how it
    ended (a run answered in time has no state, and nothing is counted)."""
    keys = [_state(settings, run_id), Keys(settings.redis_prefix).stats]
    conn.eval(_END_LUA, len(keys), *keys, int(slot_ms), "stopped" if stopped else "ran")
