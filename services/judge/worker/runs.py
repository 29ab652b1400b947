"""The worker side of a run (services/judge/queue/runs.py has the contract): the RQ job a JudgeWorker
runs in one of its Engine's slots, the host's memory admission, and how a run's end reads."""

from __future__ import annotations

import base64
import logging
import time

from rq import get_current_job

from services.judge.core.engine import STARVED_RUNS_MAX, Stopped
from services.judge.core.sandbox.cgroups import CgroupError
from services.judge.core.sandbox.slot import HostStarved, SandboxError
from services.judge.core.verdicts import Verdict, run_verdict
from services.judge.queue import carry, deadlines
from services.judge.queue.batches import USAGE_FIELDS, add_usage
from services.judge.queue.deadlines import Stopper
from services.judge.queue.notify import notify
from services.judge.queue.run_models import MAX_OUTPUT_BYTES, RunOutcome, RunRequest
from services.judge.queue.runs import _key, _record
from services.judge.worker import warm
from services.judge.worker.admission import Grant, MemoryLedger, NoRoom
from services.settings import Settings, get_settings

log = logging.getLogger(__name__)


# -- the worker side --------------------------------------------------------------------------------
def run_job(run_id: str, payload: dict) -> int:
    """RQ job on a JudgeWorker: run the program in one of the worker's Engine slots, record the outcome."""
    settings = get_settings()
    conn = get_current_job().connection
    request = RunRequest.model_validate(payload)
    usage = dict.fromkeys(USAGE_FIELDS, 0)
    stopper = Stopper(conn, settings.redis_prefix, run_id, request.answer_by_s, request.cancellable)
    t0 = None  # when the run took its slot: from then on its slot time counts, however it ends
    grant = None
    ran_at = None  # when the program itself started

    decided: list[str] = []  # the tier of the estimate that decided its start (a deadline to meet)
    kind, program = deadlines.run_keys(request)
    # held from here to its end: a run of the same program taken meanwhile is costed knowing this one
    # is not measured yet (the start rule's "running" tier)
    sibling = deadlines.ESTIMATES.begin(program)

    def cost_s() -> float:  # the start rule's expected cost (docs/spec.md 6.7)
        limits_s = deadlines.run_cost_s(settings, request)
        cost, source = deadlines.start_cost(settings, kind, limits_s, program, running=sibling)
        decided[:] = [source]
        return cost

    def not_started(reason: str | None, field: str) -> RunOutcome:
        usage[field] += 1
        usage[f"abandoned_why:{reason}"] += 1
        source = decided[0] if reason == "no_time" and decided else None  # the tier that refused it
        return RunOutcome(
            status="abandoned", reason=reason, message=deadlines.abandoned_message(reason, False, source)
        )

    try:
        if stopper.check():
            outcome = not_started(stopper.reason, "abandoned:before_start")
        elif deadlines.no_time(settings, request.answer_by_s, cost_s()):
            # the start rule (docs/spec.md 6.7): its deadline would stop it; answered at once instead
            outcome = not_started("no_time", "abandoned:no_time")
        else:
            conn.set(_key(settings, run_id, "started"), "1", ex=settings.result_ttl_s)
            t0 = time.monotonic()  # the job holds its worker loop from here, memory or not
            grant = _admit(settings, run_id, request, stopper)
            if grant is None or deadlines.no_time(
                settings, request.answer_by_s, cost_s()
            ):  # cancelled while it waited for memory, or the wait used up its time: never run
                reason = stopper.reason if grant is None else "no_time"
                field = "abandoned:no_time" if reason == "no_time" else "abandoned:before_start"
                outcome = not_started(reason, field)
                usage["abandoned_slot_ms"] = round((time.monotonic() - t0) * 1000)
            else:
                ran_at = time.monotonic()  # from here its cost is the program's, not the memory wait's
                if request.carry:  # docs/spec.md 6.7: its deadline no longer stops it, its limits do
                    stopper.carry_on()
                with stopper:
                    outcome = execute(warm.engine(), request, stopper.event, usage)
    except NoRoom as err:
        outcome = RunOutcome(status="refused", message=str(err))
    except Stopped:
        ms = round((time.monotonic() - t0) * 1000) if t0 is not None else 0
        usage.update(abandoned_slot_ms=ms, after_stop_slot_ms=stopper.since_stop_ms())
        usage["abandoned:while_running"] = 1
        usage[f"abandoned_why:{stopper.reason}"] += 1
        outcome = RunOutcome(
            status="abandoned",
            reason=stopper.reason,
            message=deadlines.abandoned_message(stopper.reason, True),
        )
    except HostStarved as err:  # no verdict of the program (docs/spec.md 4.1)
        log.warning("run %s: %s", run_id, err)
        usage["starved_runs"] += STARVED_RUNS_MAX
        outcome = RunOutcome(status="judge_error", message=str(err))
    except (SandboxError, CgroupError, OSError) as err:
        log.warning("run %s: %s", run_id, err)
        outcome = RunOutcome(status="judge_error", message=f"the sandbox failed: {err}")
    except Exception as err:  # a bug on our side must never become the program's result
        log.exception("run %s failed", run_id)
        outcome = RunOutcome(
            status="judge_error", message=f"internal judge error: {type(err).__name__}: {err}"
        )
    finally:
        if decided and request.answer_by_s is not None and settings.deadline_start_rule != "off":
            # the start rule's decision, by the tier that made it and how the run ended (spec 6.7)
            if ran_at is not None:
                ended = "stopped" if stopper.event.is_set() else "ran"
                usage[deadlines.source_field(decided[0], ended)] += 1
            elif usage["abandoned:no_time"]:
                usage[deadlines.source_field(decided[0], "no_time")] += 1
        if t0 is not None:  # every ending: ran, stopped, or the sandbox failed under it
            usage["slot_ms"] = round((time.monotonic() - t0) * 1000)
            if ran_at is not None:  # it ran: its cost is what the start rule's estimate is made of
                stopped = deadlines.run_cost_s(settings, request) if stopper.event.is_set() else None
                deadlines.record_run(request, time.monotonic() - ran_at, stopped)
        deadlines.ESTIMATES.end(program)
        if grant is not None:
            grant.release()
    warm.park_if_handed_back()  # handed back by a draining worker: the worker that runs it again records it
    # one round trip, in this order: counted before it is answered (a caller that has its answer finds
    # it in /metrics already), then the outcome, then a carried run's end (carry.begin reads the outcome)
    with conn.pipeline(transaction=False) as pipe:
        add_usage(pipe, settings, usage)
        _record(pipe, settings, run_id, request.client, outcome)
        carried = request.carry and t0 is not None
        if carried:
            carry.end(pipe, settings, run_id, usage["slot_ms"], outcome.status == "abandoned")
        replies = pipe.execute(raise_on_error=False)
    failed = [r for r in replies[: len(replies) - carried] if isinstance(r, Exception)]
    if failed:  # the outcome (or its counters) not written: RQ retries the job, as for any error
        raise failed[0]
    if carried and isinstance(replies[-1], Exception):  # only a counter is lost; the outcome stands
        log.warning("run %s: carry not counted: %s", run_id, replies[-1])
    if request.callback:
        notify(conn, settings, run_id, outcome)
    return 1


_LEDGERS: dict[tuple, MemoryLedger] = {}
ADMIT_STEP_S = 0.2  # how often a run waiting for memory looks again (and at its Stopper)


def _admit(
    settings: Settings, run_id: str, request: RunRequest, stopper: Stopper | None = None
) -> Grant | None:
    """The run's memory grant on this host, waiting up to FRONTIER_ADMIT_WAIT_S for room; NoRoom past it.
    None once `stopper` says the run is to stop (its caller went away or its deadline passed): a
    cancelled run stops waiting."""
    key = (str(settings.state_dir), settings.admit_memory_mb, settings.admit_memory_share)
    ledger = _LEDGERS.get(key) or _LEDGERS.setdefault(key, MemoryLedger.from_settings(settings))
    deadline = time.monotonic() + settings.admit_wait_s
    while True:
        try:
            return ledger.admit(request.memory_limit_mb, f"run {run_id}")
        except NoRoom:
            if time.monotonic() >= deadline:
                raise
            if stopper is not None and stopper.check():
                return None
            time.sleep(ADMIT_STEP_S)


def execute(engine, request: RunRequest, stop=None, usage: dict | None = None) -> RunOutcome:
    """Run `request` on `engine` (`Engine.run`) and say how it ended (the effectful core of a run job);
    Stopped once `stop` is set, HostStarved when the host starved it twice. `usage`: the job's
    counters (USAGE_FIELDS), to which its starved runs are added."""
    s = engine.settings
    run = engine.run(
        request.language,
        request.code,
        time_limit_ms=request.time_limit_ms,
        wall_limit_ms=request.wall_limit_ms,
        memory_limit_mb=request.memory_limit_mb,
        output_limit_bytes=MAX_OUTPUT_BYTES,
        stdin=request.stdin.encode(),
        files={name: data.encode("latin-1") for name, data in request.files.items()},
        args=request.args,
        compile_time_limit_ms=request.compile_time_limit_ms,
        compiler_flags=request.compiler_flags,
        fetch=request.fetch,
        fetch_max_file_bytes=s.compat_fetch_file_mb << 20,
        fetch_max_total_bytes=s.compat_fetch_total_mb << 20,
        stop=stop,
    )
    if run.compile_error is not None:
        return RunOutcome(status="ok", verdict=Verdict.CE, compile_output=run.compile_error)
    result = run.result
    if usage is not None:
        usage["starved_runs"] += run.starved_runs
    verdict = run_verdict(
        exit_code=result.exit_code,
        signal=result.signal,
        cpu_ms=result.cpu_ms,
        time_limit_ms=request.time_limit_ms,
        oom_killed=result.oom_killed,
        cpu_killed=result.cpu_killed,
        wall_killed=result.wall_killed,
        stdout_bytes=len(run.stdout),
        output_limit_bytes=MAX_OUTPUT_BYTES,
        memory_at_limit=result.memory_kb >= 0.97 * request.memory_limit_mb * 1024,
    )
    exit_code = result.exit_code
    stderr = run.stderr.decode("utf-8", "replace")
    if result.compile_error is not None:
        # Python's syntax error: an interpreter's error exit, as python itself reports it
        verdict, exit_code, stderr = Verdict.RE, 1, result.compile_error
    elif verdict is None and (result.signal is not None or result.exit_code != 0):
        verdict = Verdict.RE
    return RunOutcome(
        status="ok",
        verdict=verdict,
        exit_code=exit_code,
        signal=result.signal,
        cpu_ms=round(result.cpu_ms),
        wall_ms=round(result.wall_ms),
        memory_kb=result.memory_kb,
        stdout=run.stdout.decode("utf-8", "replace"),
        stderr=stderr,
        fetched=run.fetched,
        files={path: base64.b64encode(data).decode() for path, data in run.files.items()},
    )
