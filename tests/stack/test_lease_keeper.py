"""A worker's job lease never waits on judging (issue 28, liveness): a judgement that holds the GIL for
three leases keeps its job, and a worker killed mid-job still loses it (services/judge/worker/lease.py).

Real parts: a JudgeWorker in its own process on the machine's Redis, a job that holds the GIL in one C
call (libc's sleep through ctypes.PyDLL, which never releases it), RQ's own registry cleanup (what the
reaper runs) to hand a lapsed job on.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import time
import uuid

import psutil
import pytest
import redis
from rq import Queue, Retry
from rq.job import Job
from rq.serializers import JSONSerializer

from tests.support import ROOT
from tests.support.redis import claim_redis_db

LEASE_S = 2
HOLD_S = 3 * LEASE_S

WORKER = """
import sys, redis
from rq import Queue
from rq.serializers import JSONSerializer
from services.judge.worker.judge import JudgeWorker
conn = redis.Redis.from_url(sys.argv[1])
queue = Queue(sys.argv[2], connection=conn, serializer=JSONSerializer)
worker = JudgeWorker([queue], connection=conn, serializer=JSONSerializer, name=sys.argv[3])
worker.lease_s = int(sys.argv[4])
worker.work(burst=True, logging_level=None, with_scheduler=False)
"""


def hold_the_gil(seconds: int) -> str:
    """The job: one C call that keeps the GIL for `seconds` (a renewal thread of this process cannot run)."""
    ctypes.PyDLL(None).sleep(int(seconds))
    return "done"


@pytest.fixture
def redis_url():
    yield from claim_redis_db(range(8, 16))


def _start_worker(url: str, queue: str, name: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-c", WORKER, url, queue, name, str(LEASE_S)],
        cwd=ROOT,
        env=env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
    )


def _wait_started(queue: Queue, job: Job, deadline_s: float = 60) -> None:
    deadline = time.monotonic() + deadline_s
    while job.id not in queue.started_job_registry.get_job_ids():
        assert time.monotonic() < deadline, "the job never started"
        time.sleep(0.05)


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def test_a_judgement_holding_the_gil_past_its_lease_keeps_its_job(redis_url):
    conn = redis.Redis.from_url(redis_url)
    name = f"lease-{uuid.uuid4().hex[:8]}"
    queue = Queue(name, connection=conn, serializer=JSONSerializer)
    job = queue.enqueue(hold_the_gil, HOLD_S, retry=Retry(max=2), job_timeout=120)
    first = _start_worker(redis_url, name, f"{name}-a")
    try:
        _wait_started(queue, job)
        # while the worker's GIL is held, run what the reaper runs, again and again: the lease holds
        end = time.monotonic() + HOLD_S - 0.5
        while time.monotonic() < end:
            queue.started_job_registry.cleanup()
            assert job.id in queue.started_job_registry.get_job_ids(), "the lease lapsed"
            assert queue.count == 0, "the job was handed on while its worker still judged it"
            time.sleep(0.25)
        assert first.wait(timeout=60) == 0
        job.refresh()
        assert job.get_status() == "finished" and job.return_value() == "done"
        assert job.retries_left == 2  # never requeued
    finally:
        _stop(first)


def test_a_killed_worker_s_lease_still_lapses(redis_url):
    conn = redis.Redis.from_url(redis_url)
    name = f"lease-{uuid.uuid4().hex[:8]}"
    queue = Queue(name, connection=conn, serializer=JSONSerializer)
    job = queue.enqueue(hold_the_gil, 60, retry=Retry(max=2), job_timeout=120)
    worker = _start_worker(redis_url, name, f"{name}-a")
    try:
        _wait_started(queue, job)
        keepers = [
            p for p in psutil.Process(worker.pid).children() if "services.judge.worker.lease" in p.cmdline()
        ]
        assert len(keepers) == 1, "no lease keeper process"
        os.killpg(worker.pid, signal.SIGKILL)  # the worker's process group; the keeper is in it too
        worker.wait()
        keepers[0].wait(timeout=10)
        time.sleep(LEASE_S + 1)
        queue.started_job_registry.cleanup()
        assert job.id not in queue.started_job_registry.get_job_ids()
        assert job.id in queue.get_job_ids(), "the dead worker's job was not requeued"
    finally:
        _stop(worker)


def test_the_keeper_exits_when_its_worker_dies_alone(redis_url):
    """Even when only the worker is killed (not its process group), the keeper sees its pipe close
    and stops renewing: a dead worker never keeps a lease alive."""
    conn = redis.Redis.from_url(redis_url)
    name = f"lease-{uuid.uuid4().hex[:8]}"
    queue = Queue(name, connection=conn, serializer=JSONSerializer)
    job = queue.enqueue(hold_the_gil, 60, retry=Retry(max=2), job_timeout=120)
    worker = _start_worker(redis_url, name, f"{name}-a")
    try:
        _wait_started(queue, job)
        keeper = next(
            p for p in psutil.Process(worker.pid).children() if "services.judge.worker.lease" in p.cmdline()
        )
        os.kill(worker.pid, signal.SIGKILL)
        worker.wait()
        keeper.wait(timeout=10)
        time.sleep(LEASE_S + 1)
        queue.started_job_registry.cleanup()
        assert job.id in queue.get_job_ids()
    finally:
        _stop(worker)


def test_a_touched_key_outlives_a_gil_hold_and_lapses_once_released(redis_url):
    """The session manager's heartbeat key is held the same way (a `touch` lease): while this process
    holds the GIL for two TTLs, the keeper keeps the key; once released, it expires. Load-robust: the
    keeper renews every 0.2 s a TTL of 2.5 s, so a loaded host may keep it off a CPU for 2.3 s."""
    from services.judge.worker.lease import LeaseKeeper
    from services.judge.worker.lease import redis_url as url_of

    conn = redis.Redis.from_url(redis_url)
    key = f"lease-touch-{uuid.uuid4().hex[:8]}"
    conn.set(key, "beat", px=2500)
    keeper = LeaseKeeper(url_of(conn))
    try:
        assert keeper.hold("t", 0.2, kind="touch", key=key, ttl_ms=2500)
        time.sleep(0.3)
        hold_the_gil(5)
        assert conn.get(key) == b"beat", "the key lapsed while this process held the GIL"
        keeper.release("t")
        time.sleep(3.5)
        assert conn.get(key) is None
    finally:
        keeper.close()
    assert keeper.pid is None


def test_a_keeper_started_again_takes_over_every_lease_held(redis_url):
    """A killed keeper process is started again with every lease still held. Load-robust: the leases'
    TTL (10 s) outlasts a slow restart, and a renewal is seen as a TTL raised back above what it was cut
    to after the restart (nothing but the new keeper raises it)."""
    from services.judge.worker.lease import LeaseKeeper
    from services.judge.worker.lease import redis_url as url_of

    conn = redis.Redis.from_url(redis_url)
    first, second = (f"lease-touch-{uuid.uuid4().hex[:8]}" for _ in range(2))
    for key in (first, second):
        conn.set(key, "beat", px=10_000)
    keeper = LeaseKeeper(url_of(conn))
    try:
        assert keeper.hold("first", 0.2, kind="touch", key=first, ttl_ms=10_000)
        old = keeper.pid
        os.kill(old, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while keeper.pid == old:  # reaped by poll() once dead
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert keeper.hold("second", 0.2, kind="touch", key=second, ttl_ms=10_000)
        assert keeper.pid not in (None, old)
        for key in (first, second):
            conn.pexpire(key, 8_000)  # cut: only a renewal by the new keeper raises it above 8 s again
        renewed = set()
        while renewed != {first, second}:
            assert time.monotonic() < deadline, f"not renewed after the restart: {[first, second]}"
            renewed |= {k for k in (first, second) if (conn.pttl(k) or 0) > 8_000}
            time.sleep(0.05)
        assert conn.get(first) == b"beat" and conn.get(second) == b"beat"
        os.kill(keeper.pid, signal.SIGTERM)  # ignored: only the worker's exit (its pipe) ends it
        time.sleep(0.5)
        assert keeper.pid is not None
    finally:
        keeper.close()
