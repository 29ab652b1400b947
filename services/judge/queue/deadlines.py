"""Request deadlines (docs/spec.md section 6.7): when a caller stops waiting, and stopping the work it
left behind.

A request's deadline is the moment its client gives up. It comes from the request (`X-Deadline`,
absolute epoch seconds; `X-Timeout-Ms`, from arrival; or a body's `timeout_ms`), or, for the compat
APIs, from the client's known rule: SandboxFusion's clients (verl's reward and tools) wait
compile_timeout + run_timeout + FRONTIER_SANDBOXFUSION_CLIENT_SLACK_S (verl's API_TIMEOUT, 10 s) and
retry a 504. The judge answers by `answer_by` = deadline - FRONTIER_DEADLINE_MARGIN_S, so that its 504
reaches the client before the client's own timeout and the client retries.

The work carries `answer_by` (epoch seconds) to the worker, and a caller that goes away (the
connection closes) or whose deadline passes has its cancel key set (`P:cancel:<batch or run id>`,
its value the reason). A run still in its client's queue then is dropped by the fair queues' pump
(services/judge/queue/fair.py) before any worker takes it. A worker never starts a unit past its
`answer_by` or once cancelled, and a `Stopper` thread per job
stops a running one (`threading.Event` the sandbox's watchdog reads; the run is killed within 50 ms).
What was stopped or never started is answered as abandoned, never as a verdict of the program.
(A /run_code or /run_jupyter run carried to its client's retry, services/judge/queue/carry.py, is
not stopped by its deadline once it runs: `Stopper.carry_on`; its cancel key still stops it.)

The start rule: a unit or run whose expected cost cannot finish before `answer_by` is not started
(reason `no_time`); its caller is answered 504 at once, so that a client that retries on 504 does,
instead of slot time going to work that its deadline would stop. The expected cost is, with
FRONTIER_DEADLINE_START_RULE=estimate (the default), what this worker measured (`CostEstimates`,
`start_cost`): the most the same program cost (a run's code, sent again for its next test or its
retry), else its limits while another run of that program is held unmeasured on this worker, else a
high quantile of what work of the same kind cost, capped by, and before any measurement equal to,
its limits (compile limit of a compiled language + tests x a busy test's cost,
`limits_cost_s`); with `limits`, its limits alone.
"""

from __future__ import annotations

import hashlib
import math
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable, Hashable, Mapping
from typing import TypeVar

import redis

T = TypeVar("T")


class BadDeadline(ValueError):
    """A deadline header that is not a number, or one that lies in the past or too far ahead."""


# a deadline further ahead than this is refused (a typo in ms vs s, or a client clock years off)
MAX_TIMEOUT_S = 7 * 24 * 3600


def parse_headers(headers: Mapping[str, str], now_s: float) -> float | None:
    """The deadline (epoch seconds) that `X-Deadline` / `X-Timeout-Ms` give, the earlier of the two,
    or None when neither is present. BadDeadline for a value that is not a finite number > 0."""
    found = []
    raw = headers.get("x-deadline")
    if raw is not None:
        at = _number(raw, "X-Deadline")
        if at > now_s + MAX_TIMEOUT_S:
            raise BadDeadline(f"X-Deadline {raw!r} is more than {MAX_TIMEOUT_S} s ahead (epoch seconds?)")
        found.append(at)
    raw = headers.get("x-timeout-ms")
    if raw is not None:
        ms = _number(raw, "X-Timeout-Ms")
        if ms / 1000 > MAX_TIMEOUT_S:
            raise BadDeadline(f"X-Timeout-Ms {raw!r} is more than {MAX_TIMEOUT_S} s")
        found.append(now_s + ms / 1000)
    return min(found) if found else None


def _number(raw: str, name: str) -> float:
    try:
        value = float(raw.strip())
    except ValueError:
        raise BadDeadline(f"{name}: {raw[:40]!r} is not a number") from None
    if not math.isfinite(value) or value <= 0:
        raise BadDeadline(f"{name}: {raw[:40]!r} must be a positive number")
    return value


def earliest(*deadlines: float | None) -> float | None:
    given = [d for d in deadlines if d is not None]
    return min(given) if given else None


def sandboxfusion_deadline(arrival_s: float, compile_timeout_s: float, run_timeout_s: float, slack_s: float):
    """When a SandboxFusion client (verl's `call_sandbox_api`) gives up on a /run_code request: it sets
    its HTTP timeout to compile_timeout + run_timeout + its own API_TIMEOUT (`slack_s`)."""
    return arrival_s + compile_timeout_s + run_timeout_s + slack_s


def test_cost_s(time_limit_ms: int, settings) -> float:
    """The longest one busy test runs on a slot with a CPU of its own (docs/spec.md 4.1: a worker has
    no more slots than CPUs, and its slots' CPU weight is over other work): the CPU limit the watchdog
    stops it at, the time limit widened by FRONTIER_BORDERLINE_BAND, plus FRONTIER_TIMEOUT_MARGIN_MS."""
    return (time_limit_ms * (1 + settings.borderline_band) + settings.timeout_margin_ms) / 1000


def limits_cost_s(settings, tests: int, time_limit_ms: int, compile_ms: int | None) -> float:
    """The start rule's expected cost of a unit or run (docs/spec.md 6.7), from its limits alone, never
    from the host's speed: its compile limit (a compiled language; None for an interpreted one) plus
    `tests` x a busy test's cost (test_cost_s)."""
    return (compile_ms or 0) / 1000 + tests * test_cost_s(time_limit_ms, settings)


def compiled(language: str) -> bool:
    """Whether `language` compiles before it runs (its compile limit is part of its cost)."""
    from services.judge.core.flags import COMPILED_LANGUAGES  # pure: the API loads no runner

    return language in COMPILED_LANGUAGES


def unit_cost_s(settings, problem, language: str) -> float:
    """A batch unit's expected cost: FRONTIER_COMPILE_TIME_LIMIT_MS for a compiled language, plus
    every test of the problem at a busy test's cost (a checker's own time is not counted)."""
    compile_ms = settings.compile_time_limit_ms if compiled(language) else None
    return limits_cost_s(settings, len(problem.tests), problem.spec.time_limit_ms, compile_ms)


def run_cost_s(settings, request) -> float:
    """A run's expected cost (services.judge.queue.runs.RunRequest): its compile limit (a compiled
    language; FRONTIER_COMPILE_TIME_LIMIT_MS where it sets none), plus its one run at the longer of
    a busy test's cost and its wall limit."""
    compile_ms = None
    if compiled(request.language):
        compile_ms = request.compile_time_limit_ms or settings.compile_time_limit_ms
    run_s = max(test_cost_s(request.time_limit_ms, settings), request.wall_limit_ms / 1000)
    return (compile_ms or 0) / 1000 + run_s


class CostEstimates:
    """What work has cost on this worker, in bounded memory: per key the last WINDOW measured costs
    (seconds), for at most KEYS keys (the least recently used one is dropped). `expected(key, limits_s,
    min_samples, quantile)` is the `quantile` of a key's costs once it has `min_samples` of them, never
    above `limits_s`; None before that.

    Work stopped at its deadline is recorded with the time it ran, a lower bound of its cost: it was
    started because its estimate fit its remaining time, so that bound is at least the estimate then,
    and an estimate does not fall because work was stopped (`record_run` records a stopped program at
    its limits)."""

    WINDOW = 64
    KEYS = 4096

    def __init__(self, window: int = WINDOW, keys: int = KEYS):
        self.window, self.keys = window, keys
        self._costs: OrderedDict[Hashable, deque[float]] = OrderedDict()
        self._running: dict[Hashable, int] = {}  # key -> how many of its runs this process holds now
        self._lock = threading.Lock()

    def begin(self, key: Hashable) -> bool:
        """A run of `key` (a program) is taken; whether another run of it was already held here (taken
        and not yet ended: its cost not yet measured). Pair with `end`; at most one entry per key
        held, so memory stays bounded by the runs in flight."""
        with self._lock:
            held = self._running.get(key, 0)
            self._running[key] = held + 1
            return held > 0

    def end(self, key: Hashable) -> None:
        with self._lock:
            left = self._running.get(key, 0) - 1
            if left > 0:
                self._running[key] = left
            else:
                self._running.pop(key, None)

    def record(self, key: Hashable, cost_s: float) -> None:
        with self._lock:
            costs = self._costs.get(key)
            if costs is None:
                costs = self._costs[key] = deque(maxlen=self.window)
                while len(self._costs) > self.keys:
                    self._costs.popitem(last=False)
            else:
                self._costs.move_to_end(key)
            costs.append(max(0.0, cost_s))

    def expected(self, key: Hashable, limits_s: float, min_samples: int, quantile: float) -> float | None:
        with self._lock:
            costs = sorted(self._costs.get(key, ()))
        if not costs or len(costs) < min_samples:
            return None
        at = min(len(costs) - 1, max(0, math.ceil(quantile * len(costs)) - 1))
        return min(limits_s, costs[at])

    def __len__(self) -> int:
        return len(self._costs)


ESTIMATES = CostEstimates()  # this process's measurements (each worker process keeps its own)
# the estimate of work of a kind (a problem and language; a language and its limits) not measured yet
KIND_MIN_SAMPLES = 4
KIND_QUANTILE = 0.75


# which tier of the estimate decided a start ("running": the same program runs here now, unmeasured)
COST_SOURCES = ("program", "running", "kind", "limits")


def start_cost(
    settings,
    kind: Hashable,
    limits_s: float,
    program: Hashable | None = None,
    estimates: CostEstimates | None = None,
    running: bool = False,
) -> tuple[float, str]:
    """The start rule's expected cost of work whose limits cost `limits_s` (docs/spec.md 6.7), and the
    tier that gave it (COST_SOURCES). With FRONTIER_DEADLINE_START_RULE=estimate: the most this very
    program (`program`: its language, code and limits) has cost so far, once it ran ("program"); else,
    while another run of the same program is held on this worker and not yet measured (`running`),
    its limits ("running": the kind's quantile bets that an unseen program is typical, and that bet
    is already being tried on a slot; a second slot on it would double what a program slow to its
    limit wastes); else the KIND_QUANTILE of what work of its `kind` cost, once KIND_MIN_SAMPLES were
    measured ("kind"); else its limits ("limits"). Never more than its limits. With `limits` (or
    `off`): its limits."""
    if settings.deadline_start_rule != "estimate":
        return limits_s, "limits"
    estimates = ESTIMATES if estimates is None else estimates
    if program is not None and (seen := estimates.expected(program, limits_s, 1, 1.0)) is not None:
        return seen, "program"
    if running:
        return limits_s, "running"
    found = estimates.expected(kind, limits_s, KIND_MIN_SAMPLES, KIND_QUANTILE)
    return (limits_s, "limits") if found is None else (found, "kind")


def source_field(source: str, ended: str) -> str:
    """The P:stats field that counts a start decision by the tier that decided it (`source`) and how
    the work ended (`ended`: "ran", "stopped" while it ran, or "no_time", not started)."""
    return f"start_cost:{source}:{ended}"


# Every estimate is one client's (the name of the token that sent the work, docs/spec.md 6.8): what
# one client's programs cost never decides whether another client's work starts.
def unit_key(client: str, problem_digest: str, language: str) -> tuple:
    """A batch unit's kind for the estimate: its client, its problem (by digest) and language."""
    return ("unit", client, problem_digest, language)


def run_keys(request) -> tuple[tuple, tuple]:
    """A run's kind (its client, language and limits) and its program (the same, and a digest of its
    code)."""
    limits = (request.time_limit_ms, request.wall_limit_ms, request.compile_time_limit_ms)
    code = hashlib.blake2b(request.code.encode(errors="replace"), digest_size=16).hexdigest()
    who = request.client
    return ("run", who, request.language, *limits), ("program", who, request.language, *limits, code)


def record_run(request, cost_s: float, stopped_at_limits_s: float | None = None) -> None:
    """A run's measured cost, under both its kind and its program. A run stopped before it ended
    (`stopped_at_limits_s`: its limits cost) is recorded under its kind with the time it ran (a lower
    bound), and under its program with its limits cost: what it would have needed is unknown, and the
    same program sent again (its next test, its retry) is costed as if it ran to its limits."""
    kind, program = run_keys(request)
    ESTIMATES.record(kind, cost_s)
    ESTIMATES.record(program, cost_s if stopped_at_limits_s is None else max(cost_s, stopped_at_limits_s))


def no_time(settings, answer_by_s: float | None, cost_s: float, now_s: float | None = None) -> bool:
    """Whether work of expected cost `cost_s` started now cannot finish before its answer is due:
    then it is not started (FRONTIER_DEADLINE_START_RULE=estimate or limits; `off`: always False)."""
    if answer_by_s is None or settings.deadline_start_rule == "off":
        return False
    return (time.time() if now_s is None else now_s) + cost_s > answer_by_s


# what each tier of the start rule's estimate is, in a refusal's words
_SOURCE_WORDS = {
    "program": "what this program cost when it ran before",
    "running": "its limits, the same program running unmeasured now",
    "kind": "what this client's work of its kind cost",
    "limits": "its limits",
}


def abandoned_message(reason: str | None, started: bool, source: str | None = None) -> str:
    """Why work was not judged; a refusal by the start rule names the tier of the estimate that
    decided it (`source`, COST_SOURCES)."""
    no_time = "its limits could not finish before its deadline (the start rule)"
    if source is not None and source != "limits":
        no_time = (
            f"its expected cost ({source}: {_SOURCE_WORDS[source]}) could not finish before its "
            "deadline (the start rule)"
        )
    why = {"caller_gone": "its caller went away", "no_time": no_time}.get(reason or "", "its deadline passed")
    what = "stopped while it ran" if started else "never started"
    return f"not judged: {why} ({what}; docs/spec.md 6.7); this is no verdict of the program"


def cancel_key(prefix: str, owner: str) -> str:
    """The key whose presence tells workers that a batch's or run's caller is gone."""
    return f"{prefix}:cancel:{owner}"


async def acancel(aconn, prefix: str, owner: str, ttl_s: int, why: str = "caller_gone") -> None:
    """Cancel the work of `owner`; the key's value says why ("deadline", "caller_gone", "no_time",
    "wait"): the fair queues' pump answers a dropped run by it (services/judge/queue/fair.py)."""
    await aconn.set(cancel_key(prefix, owner), why, ex=max(1, ttl_s))


class Stopper:
    """A job's stop signal: set once `answer_by` passes or the owner's cancel key appears, checked by a
    side thread every POLL_S (a Redis EXISTS each time). Use as a context manager around the job."""

    POLL_S = 0.2

    def __init__(self, conn: redis.Redis, prefix: str, owner: str, answer_by_s: float | None, watch: bool):
        self.event = threading.Event()
        self.reason: str | None = None
        self.stopped_at: float | None = None  # time.monotonic() when the stop was decided
        self._conn = conn
        self._key = cancel_key(prefix, owner)
        self._answer_by = answer_by_s
        self._watch = watch  # whether a cancel key can appear (a caller that waits on a connection)
        self._done = threading.Event()
        self._thread: threading.Thread | None = None

    def check(self) -> bool:
        """Whether the work is to stop (and why, in `reason`); also polls Redis when a cancel can come."""
        if self.event.is_set():
            return True
        if self._answer_by is not None and time.time() >= self._answer_by:
            return self._set("deadline")
        if self._watch:
            try:
                if self._conn.exists(self._key):
                    return self._set("caller_gone")
            except redis.RedisError:
                pass  # Redis gone: the deadline still stops the work
        return False

    def carry_on(self) -> None:
        """From here on the deadline no longer stops the work, only its cancel key does (a run carried
        to its client's retry, services/judge/queue/carry.py): it runs on to its own limits."""
        self._answer_by = None

    def _set(self, reason: str) -> bool:
        if self.reason is None:
            self.reason, self.stopped_at = reason, time.monotonic()
        self.event.set()
        return True

    def since_stop_ms(self) -> int:
        """Milliseconds from the stop to now: how long a slot went on after the work was stopped."""
        return 0 if self.stopped_at is None else round((time.monotonic() - self.stopped_at) * 1000)

    def _run(self) -> None:
        while not self._done.wait(self.POLL_S):
            if self.check():
                return

    def __enter__(self) -> Stopper:
        if self.active:
            self._thread = threading.Thread(target=self._run, name="judge-stopper", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._done.set()
        if self._thread is not None:
            self._thread.join()

    @property
    def active(self) -> bool:
        return self._answer_by is not None or self._watch


# -- the API side -----------------------------------------------------------------------------------
WAIT_STEP_S = 0.5  # how often a waiting route looks at its caller's connection


async def wait_for(
    poll: Callable[[float], Awaitable[T | None]],
    gone: Callable[[], Awaitable[bool]],
    answer_by_s: float | None,
    wait_s: float,
    lag: Callable[[], float] = lambda: 0.0,
) -> tuple[T | None, str | None]:
    """Wait for work, up to `answer_by_s` (epoch seconds) or `wait_s`, whichever comes first, while
    watching the caller. `poll(s)` waits up to s seconds for the result (None: not yet); `gone()` says
    whether the caller's connection closed. Returns (result, None), or (None, reason) with reason
    "deadline" or "caller_gone", or (None, "wait") when `wait_s` ran out first. `lag()`: how late the
    event loop runs now (`waiting.LoopLag`): a deadline is answered that much earlier, as the loop
    read the request about that late and will send the answer about that late."""
    end_s = time.time() + wait_s
    while True:
        stop_s = end_s if answer_by_s is None else min(end_s, answer_by_s - lag())
        left = stop_s - time.time()
        result = await poll(max(0.0, min(WAIT_STEP_S, left)))
        if result is not None:
            return result, None
        if await gone():
            return None, "caller_gone"
        if time.time() >= stop_s:
            return None, "deadline" if answer_by_s is not None and answer_by_s <= end_s else "wait"
