"""A finished run's callback, where its caller asked for one (Judge0's callback_url): sent by the worker
that ran it (services/judge/worker/runs.py) and by the reaper for a run that failed for good (services/judge/queue/reaper.py).
"""

from __future__ import annotations

import json
import logging

import redis

from services.judge.compat import judge0
from services.judge.queue.run_models import RunOutcome
from services.judge.queue.runs import _key
from services.settings import Settings

log = logging.getLogger(__name__)


def notify(conn: redis.Redis, settings: Settings, run_id: str, outcome: RunOutcome) -> None:
    """Send the callback a run's caller asked for (Judge0's callback_url), in the background."""
    try:
        raw = conn.get(_key(settings, run_id, "req"))
        tag = json.loads(raw) if raw else {}
        if tag.get("judge0", {}).get("callback_url"):
            judge0.send_callback(settings, run_id, tag, outcome)
    except Exception:  # noqa: BLE001 - a callback never fails the run it reports
        log.exception("run %s: callback not sent", run_id)
