"""Admission to the judge's queue: the one script that counts units in, for a batch's distinct
submissions (services/judge/api/batches.py) and for a compat run (services/judge/queue/runs.py) alike
(docs/spec.md 10.2, per client 6.8).

Keys (layout in services/judge/queue/batches.py and fair.py): P:queued, the units accepted and not yet
judged, and P:queued:<client>, the same per client. A unit is counted out when its result is recorded
(batches.record_results, fair's record_run) or, here, when what was admitted could not be enqueued.
"""

from __future__ import annotations

import redis
import redis.asyncio as aioredis

from services.judge.queue.batches import Keys
from services.judge.queue.fair import FairKeys
from services.settings import Settings

# what `admit` answers when it refuses: the judge's whole queue is full, or the client's share of it
QUEUE_FULL = -1
CLIENT_FULL = -2

# KEYS: the judge's depth, the client's. ARGV: units, the judge's limit, the client's limit.
# INCRBY both; past either limit take both back: -1 (the judge's), -2 (the client's); else the depth.
ADMIT_LUA = """
local depth = redis.call('INCRBY', KEYS[1], ARGV[1])
local mine = redis.call('INCRBY', KEYS[2], ARGV[1])
if depth > tonumber(ARGV[2]) or mine > tonumber(ARGV[3]) then
  redis.call('DECRBY', KEYS[1], ARGV[1])
  redis.call('DECRBY', KEYS[2], ARGV[1])
  if depth > tonumber(ARGV[2]) then return -1 end
  return -2
end
return depth
"""


def _call(settings: Settings, client: str, units: int) -> tuple:
    keys = (Keys(settings.redis_prefix).queued, FairKeys(settings.redis_prefix).client_depth(client))
    return (ADMIT_LUA, 2, *keys, units, settings.max_queue_depth, settings.client_queue_limit())


def admit(conn: redis.Redis, settings: Settings, client: str, units: int) -> int:
    """Count `units` into the judge's queue and the client's share, atomically: the new depth, or
    QUEUE_FULL / CLIENT_FULL with nothing counted."""
    return int(conn.eval(*_call(settings, client, units)))


async def aadmit(aconn: aioredis.Redis, settings: Settings, client: str, units: int) -> int:
    """`admit`, on the API's async connection."""
    return int(await aconn.eval(*_call(settings, client, units)))


def release(conn: redis.Redis, settings: Settings, client: str, units: int) -> None:
    """Take back what `admit` counted, for units that were never enqueued."""
    conn.decrby(Keys(settings.redis_prefix).queued, units)
    conn.decrby(FairKeys(settings.redis_prefix).client_depth(client), units)


async def arelease(aconn: aioredis.Redis, settings: Settings, client: str, units: int) -> None:
    """`release`, on the API's async connection."""
    await aconn.decrby(Keys(settings.redis_prefix).queued, units)
    await aconn.decrby(FairKeys(settings.redis_prefix).client_depth(client), units)
