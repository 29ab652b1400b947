"""A judge worker's problems: definitions by digest, cached for the process's life, and their test blobs
fetched from Redis into the engine's TestStore once (a batch's judge job and a shard job,
services/judge/worker/judge.py and shards.py)."""

from __future__ import annotations

import hashlib
import logging
import threading
from collections import OrderedDict

from services.judge.queue.batches import Keys
from services.judge.queue.connection import Redis
from services.problems.store import Problem, TestStore

log = logging.getLogger(__name__)

_BLOB_FETCH_GROUP = 32


class JudgeSideError(RuntimeError):
    """Test data or a problem definition the worker could not get."""


class ProblemCache:
    """Problem definitions by digest (immutable, so cached for the process's life) and their test blobs."""

    def __init__(self, max_items: int = 512):
        self._items: OrderedDict[str, Problem] = OrderedDict()
        self._lock = threading.Lock()
        self._fetch_lock = threading.Lock()
        self._max = max_items

    def get(self, conn: Redis, keys: Keys, digest: str, store: TestStore) -> Problem:
        with self._lock:
            problem = self._items.get(digest)
            if problem is not None:
                self._items.move_to_end(digest)
        if problem is None:
            raw = conn.get(keys.pdef(digest))
            if raw is None:
                raise JudgeSideError(
                    f"problem definition {digest[:12]} is no longer in Redis (was Redis restarted "
                    "without persistence?); upload the problem again"
                )
            problem = Problem.model_validate_json(raw)
        self._ensure_blobs(conn, keys, problem, store)
        with self._lock:
            self._items[digest] = problem
            while len(self._items) > self._max:
                self._items.popitem(last=False)
        return problem

    def _ensure_blobs(self, conn: Redis, keys: Keys, problem: Problem, store: TestStore) -> None:
        wanted = {d for t in problem.tests for d in (t.input_sha256, t.output_sha256)}
        if not any(not store.has(d) for d in wanted):
            return
        with self._fetch_lock:  # one fetch per blob even when several loops need the problem at once
            missing = sorted(d for d in wanted if not store.has(d))
            if not missing:
                return
            for i in range(0, len(missing), _BLOB_FETCH_GROUP):
                group = missing[i : i + _BLOB_FETCH_GROUP]
                for digest, data in zip(group, conn.mget([keys.blob(d) for d in group]), strict=True):
                    if data is None:
                        raise JudgeSideError(
                            f"test data {digest[:12]} of problem {problem.id} is not in Redis"
                        )
                    if hashlib.sha256(data).hexdigest() != digest:
                        raise JudgeSideError(f"test data {digest[:12]} of problem {problem.id} is corrupt")
                    store.put(data)
            log.info("fetched %d test blobs of problem %s", len(missing), problem.id)


PROBLEMS = ProblemCache()
