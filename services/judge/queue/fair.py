"""Fair shares between clients (docs/spec.md 6.8): each client's jobs wait in a queue of its own, and
the RQ queue the workers take from is filled from them in weighted turns.

Theory of operation
-------------------
A batch's or run's jobs are created as RQ creates them (`FairQueue`, a Queue whose `push_job_id` puts
a job's id on its client's list instead of the RQ queue), each with a cost: the distinct submissions
it carries. The RQ queue itself holds only a short lookahead (`P:fq:target`, the number of worker
loops): `pump` (a Lua script, so any number of APIs and workers may call it) moves job ids onto it
while it is shorter than that, each time from the active client with the least virtual time, and
adds cost / weight to that client's virtual time. A client that becomes active starts at the virtual
time of the last job served (never below its own), so an idle client neither loses its turn nor saves
turns up. Workers pump before and after each dequeue, the API after each enqueue, the reaper every
second. The result: with clients A (weight 2) and B (weight 1) both waiting, two of A's units go for
each of B's, whatever arrived first; a small client's request waits behind at most the lookahead, not
behind a large client's whole burst. Jobs RQ requeues for a lost worker go straight to the RQ queue.

A run whose caller can no longer take its answer (its deadline passed or its connection closed: the
API set its cancel key) is dropped by the pump instead of moved (`_PUMP_LUA`): answered abandoned, its
queue units freed, its RQ job deleted, counted `abandoned:dropped`. No worker takes it, so it costs
no worker loop its per-job round trips (under a saturated queue most 504s are runs still queued at
their deadline, and verl retries every one of them).

Redis layout (P = settings.redis_prefix), beside the worker's:
    P:fq:q:<client>  list    the client's job ids, in arrival order
    P:fq:active      zset    clients with jobs waiting, by virtual time
    P:fq:vt          hash    client -> its virtual time when it last went idle
    P:fq:clock       string  the virtual time of the last job served
    P:fq:weight      hash    client -> weight (FRONTIER_CLIENT_WEIGHTS, written at each enqueue)
    P:fq:cost        hash    job id -> its cost, until pumped
    P:fq:owner       hash    job id -> its run's id, until pumped (a run the pump may drop)
    P:fq:target      string  how many jobs the RQ queue holds ahead (the worker loops; at least 1)
    P:fq:clients     set     every client seen (for /metrics and the reaper's reset)
    P:queued:<client> int    the client's units accepted and not yet judged (its own 429 limit)
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import redis
from rq import Queue
from rq.job import Job
from rq.serializers import JSONSerializer

from services.judge.queue.deadlines import abandoned_message
from services.settings import Settings

# a dropped run's outcome (queue/runs.py RunOutcome), by why its cancel key was set
DROPPED = {
    reason: json.dumps({"status": "abandoned", "reason": reason, "message": abandoned_message(reason, False)})
    for reason in ("deadline", "caller_gone")
}


@dataclass(frozen=True)
class FairKeys:
    prefix: str

    def client_queue(self, client: str) -> str:
        return f"{self.prefix}:fq:q:{client}"

    def client_depth(self, client: str) -> str:
        return f"{self.depth}:{client}"

    @property
    def depth(self) -> str:
        """The judge's units accepted and not yet judged (services.judge.queue.batches.Keys.queued)."""
        return f"{self.prefix}:queued"

    @property
    def active(self) -> str:
        return f"{self.prefix}:fq:active"

    @property
    def vt(self) -> str:
        return f"{self.prefix}:fq:vt"

    @property
    def clock(self) -> str:
        return f"{self.prefix}:fq:clock"

    @property
    def weight(self) -> str:
        return f"{self.prefix}:fq:weight"

    @property
    def cost(self) -> str:
        return f"{self.prefix}:fq:cost"

    @property
    def owner(self) -> str:
        return f"{self.prefix}:fq:owner"

    @property
    def target(self) -> str:
        return f"{self.prefix}:fq:target"

    @property
    def clients(self) -> str:
        return f"{self.prefix}:fq:clients"


class FairQueue(Queue):
    """The judge's RQ queue as one client enqueues on it: jobs are created as RQ creates them, but their
    ids go on the client's own list (`pump` moves them onto the RQ queue in weighted turns)."""

    def __init__(self, *args, client: str, keys: FairKeys, **kwargs):
        super().__init__(*args, **kwargs)
        self.client = client
        self.fair_keys = keys

    def push_job_id(self, job_id: str, pipeline=None, at_front: bool = False):
        connection = pipeline if pipeline is not None else self.connection
        target = self.fair_keys.client_queue(self.client)
        (connection.lpush if at_front else connection.rpush)(target, job_id)


def fair_queue(conn: redis.Redis, settings: Settings, client: str) -> FairQueue:
    return FairQueue(
        settings.judge_queue,
        connection=conn,
        serializer=JSONSerializer,
        client=client,
        keys=FairKeys(settings.redis_prefix),
    )


def weights(settings: Settings) -> dict[str, float]:
    """FRONTIER_CLIENT_WEIGHTS (`name:weight,...`) as {name: weight}; a client not named weighs 1."""
    out: dict[str, float] = {}
    for i, entry in enumerate(settings.client_weights.split(","), 1):
        entry = entry.strip()
        if not entry:
            continue
        name, _, value = entry.partition(":")
        try:
            weight = float(value)
        except ValueError:
            weight = -1.0
        if not name.strip() or not 0 < weight <= 1000:
            raise ValueError(f"FRONTIER_CLIENT_WEIGHTS entry {i}: write name:weight, a weight in (0, 1000]")
        out[name.strip()] = weight
    return out


# KEYS: active, vt, clock, weight, clients. ARGV: client, weight. A client with jobs waiting (its list
# was just pushed to in the same transaction) becomes active at max(its own vt, the clock).
_ACTIVATE_LUA = """
redis.call('HSET', KEYS[4], ARGV[1], ARGV[2])
redis.call('SADD', KEYS[5], ARGV[1])
if redis.call('ZSCORE', KEYS[1], ARGV[1]) == false then
  local own = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0')
  local clock = tonumber(redis.call('GET', KEYS[3]) or '0')
  redis.call('ZADD', KEYS[1], math.max(own, clock), ARGV[1])
end
return 1
"""

# A run's outcome, written as a Lua function both scripts that answer runs share: queue/runs.py's
# `_record` (the worker's answer) and the pump's drops. The first outcome written stands and frees the
# run's queue units (the judge's depth and its client's); every call wakes the run's waiters.
RECORD_RUN_LUA = """
local function record_run(res, done, depth, mine, outcome, ttl)
  if redis.call('SET', res, outcome, 'NX', 'EX', ttl) then
    if redis.call('DECR', depth) < 0 then redis.call('SET', depth, 0) end
    if redis.call('DECR', mine) < 0 then redis.call('SET', mine, 0) end
  end
  redis.call('RPUSH', done, '1')
  redis.call('EXPIRE', done, ttl)
end
"""

MAX_DROPS = 1000  # cancelled runs one pump call drops at the most (it holds Redis while it runs)

# KEYS: active, vt, clock, weight, cost, target, rq queue, owner, stats, depth. ARGV: the client-list key
# prefix, P (the Redis prefix), the result ttl_s, RQ's job key prefix, then a dropped run's outcome JSON
# when its deadline passed and when its caller went away. Moves job ids onto the RQ queue while it holds
# fewer than `target`, dropping those of runs whose cancel key is set (at most MAX_DROPS a call);
# returns how many it moved. A run's keys are P:run:<id>:res and :done, its cancel key P:cancel:<id>
# (services/judge/queue/runs.py, services/judge/queue/deadlines.py).
_PUMP_LUA = (
    RECORD_RUN_LUA
    + """
local target = tonumber(redis.call('GET', KEYS[6]) or '1')
local moved, dropped = 0, 0
while redis.call('LLEN', KEYS[7]) < target and dropped < MAX_DROPS do
  local top = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  if #top == 0 then break end
  local client, vt = top[1], tonumber(top[2])
  local list = ARGV[1] .. client
  local id = redis.call('LPOP', list)
  if id then
    local owner = redis.call('HGET', KEYS[8], id)
    local why = false
    if owner then
      redis.call('HDEL', KEYS[8], id)
      why = redis.call('GET', ARGV[2] .. ':cancel:' .. owner)
    end
    if why then
      local reason = (why == 'deadline') and 'deadline' or 'caller_gone'
      local run = ARGV[2] .. ':run:' .. owner
      local outcome = (reason == 'deadline') and ARGV[5] or ARGV[6]
      record_run(run .. ':res', run .. ':done', KEYS[10], KEYS[10] .. ':' .. client, outcome, ARGV[3])
      redis.call('HINCRBY', KEYS[9], 'abandoned:dropped', 1)
      redis.call('HINCRBY', KEYS[9], 'abandoned_why:' .. reason, 1)
      redis.call('HDEL', KEYS[5], id)
      redis.call('DEL', ARGV[4] .. id)
      dropped = dropped + 1
    else
      redis.call('RPUSH', KEYS[7], id)
      local cost = tonumber(redis.call('HGET', KEYS[5], id) or '1')
      redis.call('HDEL', KEYS[5], id)
      local weight = tonumber(redis.call('HGET', KEYS[4], client) or '1')
      redis.call('SET', KEYS[3], tostring(vt))
      vt = vt + cost / weight
      moved = moved + 1
    end
  end
  if redis.call('LLEN', list) == 0 then
    redis.call('ZREM', KEYS[1], client)
    redis.call('HSET', KEYS[2], client, tostring(vt))
  else
    redis.call('ZADD', KEYS[1], vt, client)
  end
end
return moved
""".replace("MAX_DROPS", str(MAX_DROPS))
)


def enqueue(
    conn: redis.Redis,
    settings: Settings,
    pipe,
    client: str,
    datas: list,
    costs: list[int],
    owners: list[str | None] | None = None,
) -> None:
    """Put a client's prepared jobs (`Queue.prepare_data`, each with its `job_id`) on its own list, in
    `pipe` (the caller executes it, then calls `pump`). `owners`: per job, the id of the run it is,
    which the pump drops once the run's cancel key is set (None: a job the pump always moves)."""
    keys = FairKeys(settings.redis_prefix)
    queue = fair_queue(conn, settings, client)
    for data, cost, owner in zip(datas, costs, owners or [None] * len(datas), strict=True):
        pipe.hset(keys.cost, data.job_id, cost)
        if owner is not None:
            pipe.hset(keys.owner, data.job_id, owner)
    queue.enqueue_many(datas, pipeline=pipe)
    weight = weights(settings).get(client, 1.0)
    pipe.eval(_ACTIVATE_LUA, 5, keys.active, keys.vt, keys.clock, keys.weight, keys.clients, client, weight)


def pump(conn: redis.Redis, settings: Settings, target: int | None = None) -> int:
    """Move waiting jobs onto the RQ queue in fair turns, up to the lookahead (setting it first when
    `target` is given: the API's count of worker loops). Returns how many moved."""
    keys = FairKeys(settings.redis_prefix)
    if target is not None:
        conn.set(keys.target, max(1, target))
    rq_key = Queue(settings.judge_queue, connection=conn).key
    prefix = settings.redis_prefix
    return int(
        conn.eval(
            _PUMP_LUA,
            10,
            keys.active,
            keys.vt,
            keys.clock,
            keys.weight,
            keys.cost,
            keys.target,
            rq_key,
            keys.owner,
            f"{prefix}:stats",  # queue.Keys.stats
            keys.depth,  # a client's is this with ":<client>" (client_depth)
            keys.client_queue(""),
            prefix,
            settings.result_ttl_s,
            Job.redis_job_namespace_prefix,
            DROPPED["deadline"],
            DROPPED["caller_gone"],
        )
    )


def waiting(conn: redis.Redis, settings: Settings) -> dict[str, int]:
    """Jobs waiting in each client's own list (not yet on the RQ queue)."""
    keys = FairKeys(settings.redis_prefix)
    clients = sorted(c.decode() for c in conn.smembers(keys.clients))
    if not clients:
        return {}
    with conn.pipeline(transaction=False) as pipe:
        for c in clients:
            pipe.llen(keys.client_queue(c))
        return dict(zip(clients, pipe.execute(), strict=True))


def depths(conn: redis.Redis, settings: Settings) -> dict[str, int]:
    """Each client's units accepted and not yet judged."""
    keys = FairKeys(settings.redis_prefix)
    clients = sorted(c.decode() for c in conn.smembers(keys.clients))
    if not clients:
        return {}
    values = conn.mget([keys.client_depth(c) for c in clients])
    return {c: max(0, int(v or 0)) for c, v in zip(clients, values, strict=True)}
