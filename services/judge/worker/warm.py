"""A judge worker process's one warm Engine, shared by its loops and by both job kinds of the judge's
queue (a batch's judge job, services.judge.worker.judge; a compat run, services.judge.worker.runs), and
the flag a draining worker sets when it hands its jobs back."""

from __future__ import annotations

import threading
import time

from services.judge.core.engine import Engine
from services.settings import get_settings

_ENGINE: Engine | None = None
_ENGINE_LOCK = threading.Lock()


def engine() -> Engine:
    """The process's Engine: the one `run_worker` made, or one made on first use under a plain RQ worker."""
    global _ENGINE
    with _ENGINE_LOCK:
        if _ENGINE is None:
            _ENGINE = Engine(get_settings())
        return _ENGINE


def install(made: Engine) -> None:
    """`run_worker`'s Engine becomes the process's."""
    global _ENGINE
    with _ENGINE_LOCK:
        _ENGINE = made


# A loop that took a job counts as one unit to come (Engine.queued) until the job announces its own
# units or ends: a fan-out of another loop's job does not take the slot it is about to ask for
# (docs/spec.md 4.10). Per loop thread: a job runs in the thread that dequeued it.
_TAKEN = threading.local()


def job_taken() -> None:
    """This loop has just dequeued a job."""
    job_done()
    if _ENGINE is not None:
        _TAKEN.queued = _ENGINE.queued(1)


def job_done() -> None:
    """This loop's job has announced its units, or ended."""
    queued, _TAKEN.queued = getattr(_TAKEN, "queued", None), None
    if queued is not None:
        queued.__exit__(None, None, None)


# The jobs this process's loops run now (judge jobs, runs, shards): its own share of the busy loops
# that an owner's fan-out across workers leaves out of the count of spare ones (worker/shards.py)
_BUSY = [0]
_BUSY_LOCK = threading.Lock()


def busy() -> int:
    """How many of this process's loops run a job now."""
    with _BUSY_LOCK:
        return _BUSY[0]


def busy_add(n: int) -> None:
    """A loop starts (1) or ends (-1) a job."""
    with _BUSY_LOCK:
        _BUSY[0] += n


# Set when a draining worker hands its jobs back: from then on this process records nothing (its sandbox
# is being closed under the jobs it gave away, and another worker judges them again).
HANDED_BACK = threading.Event()


def park_if_handed_back() -> None:
    """A job handed back must neither record results nor finish (RQ would delete the requeued job): its
    thread waits here until the process exits."""
    while HANDED_BACK.is_set():
        time.sleep(3600)
