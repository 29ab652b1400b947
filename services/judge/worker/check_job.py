"""The worker side of a problem's check (services/judge/queue/checks.py has the contract): the RQ job a
JudgeWorker runs on its Engine, whose slots compile the checker in the sandbox
(services/judge/core/checks.py), and how its answer is recorded."""

from __future__ import annotations

import logging

from rq import get_current_job

from services.judge.core import checks as sandboxed
from services.judge.core.sandbox.cgroups import CgroupError
from services.judge.core.sandbox.slot import SandboxError
from services.judge.queue.checks import CheckOutcome, CheckRequest, record
from services.judge.worker import warm
from services.settings import get_settings

log = logging.getLogger(__name__)


def check_job(check_id: str, payload: dict) -> int:
    """RQ job on a JudgeWorker: compile the checker in one of the worker's slots, record the outcome."""
    settings = get_settings()
    conn = get_current_job().connection
    request = CheckRequest.model_validate(payload)
    try:
        errors = sandboxed.compile_errors(
            warm.engine(), request.language, request.source, latin1=request.latin1
        )
        outcome = (
            CheckOutcome(status="ok") if errors is None else CheckOutcome(status="refused", message=errors)
        )
    except (SandboxError, CgroupError, OSError) as err:
        log.warning("check %s: %s", check_id, err)
        outcome = CheckOutcome(status="judge_error", message=f"the sandbox failed: {err}")
    except Exception as err:  # a bug on our side must never refuse the checker
        log.exception("check %s failed", check_id)
        outcome = CheckOutcome(
            status="judge_error", message=f"internal judge error: {type(err).__name__}: {err}"
        )
    record(conn, settings, check_id, request, outcome)
    return 1
