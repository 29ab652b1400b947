"""The reaper: requeue the jobs of lost workers, answer the jobs that failed for good. It runs in the API
(every second) and in the workers (between jobs), and knows the job kinds of the judge's queue: a
batch's judge job (services.judge.queue.batches), a compat run (services.judge.queue.runs) and a problem's
check (services.judge.queue.checks)."""

from __future__ import annotations

import logging
import os

import redis
from rq.job import Job
from rq.serializers import JSONSerializer

from services.judge.queue import checks, fair, runs
from services.judge.queue.batches import JOB_FUNC, Keys, answer_failed, judge_queue
from services.judge.queue.fair import FairKeys
from services.judge.queue.notify import notify
from services.settings import Settings

log = logging.getLogger(__name__)


def reap(conn: redis.Redis, settings: Settings) -> int:
    """Requeue jobs whose worker died (RQ's registry cleanup honours `Retry`); answer jobs that failed for good.

    Returns how many failed jobs were turned into judge_error results. Safe to run from many processes.
    """
    keys = Keys(settings.redis_prefix)
    if not conn.set(keys.reaper_lock, os.getpid(), nx=True, px=5000):
        return 0
    try:
        queue = judge_queue(conn, settings)
        queue.started_job_registry.cleanup()
        fair.pump(conn, settings)
        fk = FairKeys(settings.redis_prefix)
        drift = conn.eval(
            _IDLE_RESET_LUA,
            6,
            queue.key,
            queue.intermediate_queue_key,
            queue.started_job_registry.key,
            keys.queued,
            fk.active,
            fk.clients,
            fk.client_depth(""),
        )
        if drift:
            log.warning("queue depth counter was %s with no job queued or running; reset to 0", drift)
        failed = queue.failed_job_registry
        answered = 0
        for job_id in failed.get_job_ids():
            try:
                job = Job.fetch(job_id, connection=conn, serializer=JSONSerializer)
            except Exception:  # noqa: BLE001 - gone or unreadable: nothing left to answer
                failed.remove(job_id)
                continue
            if job.func_name == JOB_FUNC:
                answer_failed(conn, settings, job)
                answered += 1
            elif job.func_name == runs.RUN_FUNC:
                # a compat run (/run_code, /run_jupyter, Judge0) lost for good: its caller gets an
                # internal error now, not a timeout, and its callback if it asked for one
                notify(conn, settings, job.args[0], runs.answer_failed(conn, settings, job))
                answered += 1
            elif job.func_name == checks.CHECK_FUNC:
                # a problem's check lost for good: its uploader gets the judge's error now
                request = checks.CheckRequest.model_validate(job.args[1])
                failure = checks.CheckOutcome(status="judge_error", message="the check's worker failed")
                checks.record(conn, settings, job.args[0], request, failure)
                answered += 1
            failed.remove(job, delete_job=True)
        return answered
    finally:
        conn.delete(keys.reaper_lock)


# With nothing queued, dequeued or running, the depth counter must be 0; an API killed between admitting
# a batch and enqueueing it would otherwise leave it high for good. Returns the value it had, if not 0.
_IDLE_RESET_LUA = """
if redis.call('LLEN', KEYS[1]) == 0 and redis.call('LLEN', KEYS[2]) == 0 and redis.call('ZCARD', KEYS[3]) == 0
   and redis.call('ZCARD', KEYS[5]) == 0 then
  for _, client in ipairs(redis.call('SMEMBERS', KEYS[6])) do
    redis.call('SET', ARGV[1] .. client, 0)
  end
  local depth = tonumber(redis.call('GET', KEYS[4]) or '0')
  if depth ~= 0 then
    redis.call('SET', KEYS[4], 0)
    return depth
  end
end
return 0
"""
