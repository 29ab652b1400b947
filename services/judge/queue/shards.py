"""Fan-out across workers (docs/spec.md 4.10, docs/judging.md): one unit's tests claimed and run by other
worker loops, possibly on other hosts, through Redis. Every key and script of it lives here.

Theory of operation
-------------------
The worker judging a unit (its *owner*) claims its tests in process until it pushes the first shard
job; then it opens a board for it (`ShardBoard.open`, from its claim counter and end on), named by the
job, a random attempt id drawn for that run of the job, and the unit's index: a run of the job after
its owner died draws a new attempt id, so the reports of the old run's shards are never read. From
then on every lane that runs the unit's tests, the owner's own slots and other workers' shards alike,
claims the next test index from the board's counter (`claim`, a Lua script: INCR unless the counter passed the
board's end), and holds a lease on the index it claimed (`LEASE_S`, renewed by `poll`). A shard
writes each report by index (`post`); a test that ends the run (a failure under first_failure, a
compile error, a checker error, a starved run) lowers the end with a Lua `min`; a report past the
end is not written (discarded, counted by its worker). The owner keeps its own reports, reads the
shards' (`collect`) until every index up to the end has one, and re-claims an index claimed by a
shard whose lease lapsed (a dead or stuck shard worker) to run it itself.

When the fair queues are empty and live worker loops (services.judge.queue.presence) exceed busy ones,
the owner, while tests are left unclaimed, pushes shard jobs (`push`; the problem's digest, the code,
language, options, deadline and cancel key: no test data) to the RQ queue `<FRONTIER_JUDGE_QUEUE>-shards`,
which every judge loop takes from before its own. A shard carries the digest of the settings its
records depend on (`limits_digest`); a worker with other settings refuses it, so a unit's records are
those of one configuration.

Redis layout (P = settings.redis_prefix; F = <job>:<attempt>:<u>):
    P:fan:F:next      string  the next test index to claim (INCR)
    P:fan:F:end       string  the last test index that counts (n until a test ends the run; Lua min)
    P:fan:F:reports   hash    index -> a shard's report of that test (JSON: the report and a compile error)
    P:fan:F:lease:<i> string  held (PX LEASE_S) by whoever claimed test i, until its report is written
    P:fan:F:owner     string  the owner's presence (PX OWNER_S, renewed by its `poll`): a shard whose
                              owner is gone stops
All of them expire KEYS_TTL_S after the board opened, and the owner deletes them when it is done.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import threading
import time

import redis
from pydantic import BaseModel, ConfigDict
from rq import Queue
from rq.serializers import JSONSerializer

from services.settings import Settings

SHARD_FUNC = "services.judge.worker.shards.shard_job"
LEASE_S = 5.0  # a claimed test's lease; its holder renews it every poll
OWNER_S = 10.0  # the owner's presence key
KEYS_TTL_S = 6 * 3600
OFFER_EVERY_S = 0.5  # how often an owner looks for spare loops


def shard_queue_name(settings: Settings) -> str:
    """The RQ queue of shard jobs, which every judge loop takes from before its own."""
    return f"{settings.judge_queue}-shards"


def shard_queue(conn: redis.Redis, settings: Settings) -> Queue:
    return Queue(shard_queue_name(settings), connection=conn, serializer=JSONSerializer)


def limits_digest(settings: Settings) -> str:
    """The settings a test's record depends on (beside the problem and the options): a shard is run only
    by a worker whose digest is the owner's."""
    fields = (
        "sandbox_mode",
        "wall_time_multiplier",
        "wall_time_extra_ms",
        "output_limit_kb",
        "borderline_band",
        "isolation",
        "pids_max",
        "open_files_max",
        "stderr_keep_bytes",
        "tmp_size_mb",
    )
    values = {f: getattr(settings, f, None) for f in fields}
    return hashlib.sha256(json.dumps(values, sort_keys=True, default=str).encode()).hexdigest()[:16]


class ShardPayload(BaseModel):
    """A shard job: which board to claim from, and what a worker needs to run the unit's tests."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    board: str  # <job>:<attempt>:<u>
    n: int  # the problem's tests
    problem: str  # the problem definition's digest
    language: str
    code: str
    options: dict  # JudgeOptions, ks and isolation resolved
    batch: str  # the cancel key's owner
    answer_by_s: float | None = None
    cancellable: bool = False
    limits: str  # limits_digest of the owner
    owner: str  # the owner's process (presence.process_name)


def board_id(job_id: str, u: int | str) -> str:
    """A board for unit `u` of one run of job `job_id`: a fresh attempt id each time."""
    return f"{job_id}:{secrets.token_hex(6)}:{u}"


_CLAIM_LUA = """
-- KEYS: next, end, owner; ARGV: n, lease ms, lease key prefix, holder
if redis.call('EXISTS', KEYS[3]) == 0 then return -2 end
local n = tonumber(ARGV[1])
local e = tonumber(redis.call('GET', KEYS[2]) or ARGV[1])
local i = tonumber(redis.call('GET', KEYS[1]) or '0')
if i >= n or i > e then return -1 end
redis.call('INCR', KEYS[1])
redis.call('SET', ARGV[3] .. i, ARGV[4], 'PX', tonumber(ARGV[2]))
return i
"""

_POST_LUA = """
-- KEYS: reports, end, lease of i; ARGV: i, record, ends (1/0). 1: written; 0: past the end, discarded
local i = tonumber(ARGV[1])
local e = tonumber(redis.call('GET', KEYS[2]) or '-1')
redis.call('DEL', KEYS[3])
if i > e then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
if ARGV[3] == '1' and i < e then redis.call('SET', KEYS[2], i, 'KEEPTTL') end
return 1
"""

_LOWER_LUA = """
-- KEYS: end; ARGV: i. The end becomes min(end, i); returns it
local e = tonumber(redis.call('GET', KEYS[1]) or ARGV[1])
local i = tonumber(ARGV[1])
if i < e then redis.call('SET', KEYS[1], i, 'KEEPTTL') return i end
return e
"""

_RECLAIM_LUA = """
-- KEYS: lease of i; ARGV: lease ms, holder. 1: the lease had lapsed and is the holder's now
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', tonumber(ARGV[1]))
return 1
"""


class ShardBoard:
    """One unit's board (see the module's doc): its owner's (`open`) or a shard's (`join`) view of it.
    Thread-safe: every lane of a worker that runs the unit's tests shares one."""

    def __init__(
        self,
        conn: redis.Redis,
        prefix: str,
        board: str,
        n: int,
        holder: str,
        *,
        owner: bool,
        lease_s: float = LEASE_S,
    ):
        self.conn, self.board, self.n, self.holder, self.owner = conn, board, n, holder, owner
        self.lease_ms = int(lease_s * 1000)
        base = f"{prefix}:fan:{board}"
        self.k_next, self.k_end, self.k_reports, self.k_owner = (
            f"{base}:next",
            f"{base}:end",
            f"{base}:reports",
            f"{base}:owner",
        )
        self.k_lease = f"{base}:lease:"
        self._held: set[int] = set()
        self._lock = threading.Lock()
        self._claim = conn.register_script(_CLAIM_LUA)
        self._post = conn.register_script(_POST_LUA)
        self._lower = conn.register_script(_LOWER_LUA)
        self._reclaim = conn.register_script(_RECLAIM_LUA)

    # -- the owner ----------------------------------------------------------------------------------
    @classmethod
    def open(
        cls,
        conn: redis.Redis,
        prefix: str,
        board: str,
        n: int,
        holder: str,
        claimed: int = 0,
        end: int | None = None,
        **kw,
    ) -> ShardBoard:
        """The owner's board, its keys written: the tests before `claimed` claimed already (by the
        owner, in process), the end at `end` (n: none yet), the owner present."""
        self = cls(conn, prefix, board, n, holder, owner=True, **kw)
        with conn.pipeline(transaction=True) as pipe:
            pipe.set(self.k_next, claimed, ex=KEYS_TTL_S)
            pipe.set(self.k_end, n if end is None else min(end, n), ex=KEYS_TTL_S)
            pipe.set(self.k_owner, holder, px=int(OWNER_S * 1000))
            pipe.execute()
        return self

    @classmethod
    def join(cls, conn: redis.Redis, prefix: str, board: str, n: int, holder: str, **kw) -> ShardBoard:
        """A shard's view of another worker's board."""
        return cls(conn, prefix, board, n, holder, owner=False, **kw)

    def lower_end(self, i: int) -> int:
        """A test the owner ran ends the run at `i`: the end becomes min(end, i)."""
        return int(self._lower(keys=[self.k_end], args=[i]))

    def collect(self, missing: list[int]) -> tuple[dict[int, dict], list[int]]:
        """For the owner: the shards' reports of the `missing` indices that have one, and of the rest,
        those claimed whose lease lapsed, each now leased to the owner to run (ascending)."""
        if not missing:
            return {}, []
        with self.conn.pipeline(transaction=False) as pipe:
            pipe.hmget(self.k_reports, [str(i) for i in missing])
            pipe.get(self.k_next)
            for i in missing:
                pipe.exists(self.k_lease + str(i))
            raw, claimed, *leased = pipe.execute()
        claimed = int(claimed or 0)
        found = {i: json.loads(r) for i, r in zip(missing, raw, strict=True) if r is not None}
        lapsed = []
        for i, held in zip(missing, leased, strict=True):
            if i in found or held or i >= claimed:
                continue
            if self._reclaim(keys=[self.k_lease + str(i)], args=[self.lease_ms, self.holder]):
                # a report may have come in meanwhile: read again before running it
                if self.conn.hexists(self.k_reports, str(i)):
                    found[i] = json.loads(self.conn.hget(self.k_reports, str(i)))
                    continue
                lapsed.append(i)
        return found, lapsed

    def close(self) -> None:
        """The owner is done: the board's keys go (a shard still running finds its owner gone and stops)."""
        leases = [self.k_lease + str(i) for i in range(self.n)]
        self.conn.delete(self.k_next, self.k_end, self.k_reports, self.k_owner, *leases)

    # -- both ---------------------------------------------------------------------------------------
    def claim(self) -> int | None:
        """The next test index to run, now leased to this holder; None when none is left (all claimed,
        or past the end) or the owner is gone."""
        i = int(
            self._claim(
                keys=[self.k_next, self.k_end, self.k_owner],
                args=[self.n, self.lease_ms, self.k_lease, self.holder],
            )
        )
        if i < 0:
            return None
        with self._lock:
            self._held.add(i)
        return i

    def post(self, i: int, record: dict, ends: bool) -> bool:
        """A shard's report of test `i` (its lease ends); False when it lies past the end (discarded)."""
        with self._lock:
            self._held.discard(i)
        keys = [self.k_reports, self.k_end, self.k_lease + str(i)]
        return bool(self._post(keys=keys, args=[i, json.dumps(record), 1 if ends else 0]))

    def release(self, i: int) -> None:
        """Give up test `i` without a report (its lane broke): the owner re-claims it at once."""
        with self._lock:
            self._held.discard(i)
        self.conn.delete(self.k_lease + str(i))

    def drop(self) -> None:
        """Give up every test this holder claimed and did not report (a shard that ends)."""
        with self._lock:
            held, self._held = sorted(self._held), set()
        if held:
            self.conn.delete(*[self.k_lease + str(i) for i in held])

    def poll(self) -> tuple[int, bool]:
        """The end, and whether the owner is still there; renews this holder's leases (and, for the
        owner, its presence)."""
        with self._lock:
            held = sorted(self._held)
        with self.conn.pipeline(transaction=False) as pipe:
            pipe.get(self.k_end)
            if self.owner:
                pipe.set(self.k_owner, self.holder, px=int(OWNER_S * 1000))
            else:
                pipe.exists(self.k_owner)
            for i in held:
                pipe.pexpire(self.k_lease + str(i), self.lease_ms)
            end, alive, *_ = pipe.execute()
        return (int(end) if end is not None else -1), bool(alive)


# -- when to push shards, and pushing them ------------------------------------------------------------
def spare_loops(conn: redis.Redis, settings: Settings, own_name: str, own_busy: int) -> int:
    """Loops of other worker processes that no job keeps busy, beyond the shard jobs already waiting;
    0 while any judge job waits (the fair queues or the RQ queue are not empty)."""
    from services.judge.queue.fair import FairKeys
    from services.judge.queue.presence import live_key, live_loops

    shards = shard_queue(conn, settings)
    judge = Queue(settings.judge_queue, connection=conn, serializer=JSONSerializer)
    with conn.pipeline(transaction=False) as pipe:
        pipe.zcard(FairKeys(settings.redis_prefix).active)
        pipe.llen(judge.key)
        pipe.llen(shards.key)
        pipe.zcard(judge.started_job_registry.key)
        pipe.zcard(shards.started_job_registry.key)
        pipe.get(live_key(settings.redis_prefix, own_name))
        waiting, queued, shards_waiting, busy, busy_shards, own_live = pipe.execute()
    if waiting or queued:
        return 0
    others_live = live_loops(conn, settings.redis_prefix) - int(own_live or 0)
    others_busy = max(0, busy + busy_shards - own_busy)
    return max(0, others_live - others_busy - shards_waiting)


def push(conn: redis.Redis, settings: Settings, payload: ShardPayload, count: int) -> int:
    """Put `count` shard jobs of `payload` on the shard queue; returns how many."""
    queue = shard_queue(conn, settings)
    data = [
        Queue.prepare_data(
            SHARD_FUNC,
            args=(payload.model_dump(mode="json"),),
            timeout=-1,
            result_ttl=0,
            failure_ttl=300,
            description=f"shard of {payload.board}",
        )
        for _ in range(count)
    ]
    if data:
        queue.enqueue_many(data)
    return len(data)


class Offers:
    """An owner's decision to push shard jobs, taken at most every OFFER_EVERY_S, and never more than the
    unit's tests less one in all."""

    def __init__(self, n: int):
        self.n, self.pushed, self._at = n, 0, 0.0
        self._lock = threading.Lock()

    def due(self) -> bool:
        with self._lock:
            now = time.monotonic()
            if now < self._at or self.pushed >= self.n - 1:
                return False
            self._at = now + OFFER_EVERY_S
            return True
