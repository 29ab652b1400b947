"""Fan-out across workers, the worker's side (docs/spec.md 4.10; the Redis side and its theory of
operation: services/judge/queue/shards.py).

- The owner: a judge job gives each unit a `Spread`; once a test has passed, the engine's lanes ask it
  how many shard jobs are wanted (other workers' loops spare, no judge job waiting, tests left
  unclaimed); the first opens the unit's board, from the engine's claim counter on (Engine._spread).
- A shard: `shard_job`, an RQ job on `<FRONTIER_JUDGE_QUEUE>-shards`, which every judge loop takes
  from before its own queue. It refuses a shard of its own process (its slots are this process's
  fan-out already) and one whose limits digest is not this worker's, then fetches the problem as a
  job does and runs tests claimed from the board in one slot (and the slots it may borrow), each
  report written by index (Engine.run_shard).
"""

from __future__ import annotations

import logging
import threading
import time

from rq import get_current_job

from services.judge.core.options import JudgeOptions
from services.judge.queue.batches import USAGE_FIELDS, JobPayload, Keys, Unit, count_usage
from services.judge.queue.connection import Redis, RedisError
from services.judge.queue.deadlines import Stopper
from services.judge.queue.presence import process_name
from services.judge.queue.shards import (
    Offers,
    ShardBoard,
    ShardPayload,
    board_id,
    limits_digest,
    push,
    spare_loops,
)
from services.judge.worker import warm
from services.judge.worker.problems import PROBLEMS
from services.settings import Settings, get_settings

log = logging.getLogger(__name__)


class Spread:
    """One unit's fan-out across workers, for its owner (the engine's _Task.spread): `wanted` says how
    many shard jobs to push now (at most every OFFER_EVERY_S: the spare loops of other workers while
    no judge job waits, at most the unclaimed tests, at most n - 1 in all), `open` opens the unit's
    board, `push` pushes them. Pushed shard jobs are counted into `counts["fanout_shards"]` (under
    `lock`). Redis errors leave the unit on this worker's slots."""

    def __init__(
        self,
        conn: Redis,
        settings: Settings,
        job_id: str,
        unit: Unit,
        job: JobPayload,
        counts: dict[str, int],
        lock: threading.Lock,
    ):
        self.conn, self.settings, self.job_id, self.unit, self.job = conn, settings, job_id, unit, job
        self.counts, self.lock = counts, lock
        self.name = process_name()
        self.offers: Offers | None = None
        self.payload: ShardPayload | None = None

    def wanted(self, n: int, unclaimed: int) -> int:
        if self.offers is None:
            self.offers = Offers(n)
        if not self.offers.due():
            return 0
        try:
            spare = spare_loops(self.conn, self.settings, self.name, warm.busy())
        except RedisError as err:
            log.warning("unit %s: spare loops not counted: %s", self.unit.u, err)
            return 0
        return max(0, min(spare, unclaimed, self.offers.n - 1 - self.offers.pushed))

    def open(self, n: int, code: str, options: JudgeOptions, claimed: int, end: int) -> ShardBoard | None:
        s = self.settings
        try:
            board = ShardBoard.open(
                self.conn, s.redis_prefix, board_id(self.job_id, self.unit.u), n, self.name, claimed, end
            )
        except RedisError as err:
            log.warning("unit %s: no board for fan-out across workers: %s", self.unit.u, err)
            return None
        self.payload = ShardPayload(
            board=board.board,
            n=n,
            problem=self.unit.problem,
            language=self.unit.language,
            code=code,
            options=options.model_dump(mode="json"),
            batch=self.job.batch,
            answer_by_s=self.job.answer_by_s,
            cancellable=self.job.cancellable,
            limits=limits_digest(s),
            owner=self.name,
        )
        return board

    def push(self, board: ShardBoard, k: int) -> None:
        try:
            pushed = push(self.conn, self.settings, self.payload, k)
        except RedisError as err:
            log.warning("unit %s: no shard jobs pushed: %s", self.unit.u, err)
            return
        self.offers.pushed += pushed
        with self.lock:
            self.counts["fanout_shards"] += pushed


def shard_job(payload: dict) -> int:
    """RQ job: run tests of another worker's unit, claimed from its board. Returns the tests run."""
    job = get_current_job()
    conn = job.connection
    settings = get_settings()
    p = ShardPayload.model_validate(payload)
    usage = dict.fromkeys(USAGE_FIELDS, 0)
    engine = warm.engine()
    try:
        if p.owner == process_name():
            return 0  # its own process: its idle slots are that unit's fan-out already
        if p.limits != limits_digest(settings) or not (settings.fanout and settings.fanout_shards):
            # another configuration would give other records (docs/spec.md 4.10)
            log.info("shard of %s refused: its limits are not this worker's", p.board)
            usage["fanout_shards_refused"] += 1
            return 0
        board = ShardBoard.join(conn, settings.redis_prefix, p.board, p.n, process_name())
        if not conn.exists(board.k_owner):
            return 0  # its owner is done (or gone)
        problem = PROBLEMS.get(conn, Keys(settings.redis_prefix), p.problem, engine.store)
        options = JudgeOptions.model_validate(p.options)
        fanned: dict[str, int] = {}
        t0 = time.monotonic()
        with (
            Stopper(conn, settings.redis_prefix, p.batch, p.answer_by_s, p.cancellable) as stopper,
            engine.queued(1) as queued,
        ):
            warm.job_done()  # it stands for itself now
            if stopper.check():
                return 0
            try:
                ran, discarded, discarded_s = engine.run_shard(
                    problem,
                    p.language,
                    p.code,
                    options,
                    board,
                    stop=stopper.event,
                    queued=queued,
                    usage=fanned,
                )
            finally:
                took_ms = round((time.monotonic() - t0) * 1000)
                usage["slot_ms"] += took_ms + fanned.get("fanout_slot_ms", 0)
                usage["fanout_shard_slot_ms"] += took_ms
                for name in ("fanout_borrowed", "fanout_slot_ms"):
                    usage[name] += fanned.get(name, 0)
        usage["fanout_shard_tests"] += ran
        usage["fanout_discarded"] += discarded
        usage["fanout_discarded_ms"] += round(discarded_s * 1000)
        return ran
    except Exception as err:  # noqa: BLE001 - the owner re-claims what this shard claimed
        log.warning("shard of %s failed: %s: %s", p.board, type(err).__name__, err)
        return 0
    finally:
        warm.park_if_handed_back()
        try:
            count_usage(conn, settings, usage)
        except RedisError as err:
            log.warning("shard of %s: usage not counted: %s", p.board, err)
