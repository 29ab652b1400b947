"""The judging engine: one submission against one problem, in a pool of sandbox slots.

`Engine.judge` returns the SPEC's result object. Verdict, reward and outcome rules come from
`verdicts` (pure); this module only runs things and reads files. A failure of the judge itself
(a slot that broke, missing test data, a crashed checker) becomes `status: judge_error` with
`rewards: null`, never a verdict of the program.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import os
import queue
import secrets
import signal
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from services.judge.core import asserts, testlib
from services.judge.core import feedback as fb
from services.judge.core.extract import extract_code
from services.judge.core.graders import (
    Grader,
    ProgramGrader,
    compile_errors,
    grader_for,
    read_head,
)
from services.judge.core.interaction import TESTLIB_POINTS, Jury, interactive_verdict, interactor_jury
from services.judge.core.models import FirstFailure, JudgeResult, Submission, TestReport
from services.judge.core.options import JudgeOptions
from services.judge.core.runners import RUNNERS, CompileFailed, Prepared
from services.judge.core.sandbox.cgroups import CgroupError, detect, usable_cpus
from services.judge.core.sandbox.seccomp import SeccompUnavailable, filter_bpf
from services.judge.core.sandbox.slot import HostStarved, RunResult, RunSpec, SandboxError, Slot
from services.judge.core.verdicts import (
    Outcome,
    TestOutcome,
    Verdict,
    first_failure,
    format_error_rewards,
    in_scope_counts,
    needed_ks,
    outcome,
    rewards,
    run_verdict,
)
from services.problems.spec import TestCase, is_testlib_checker
from services.problems.store import Problem, TestStore
from services.settings import Settings, get_settings

log = logging.getLogger(__name__)

# a submission whose tests needed this many shared runners (each ended by a time-out, a test run
# again alone, or state a test left outside its process) runs the rest of its tests in processes of
# their own
SHARED_RUNNERS_MAX = 3
MEMORY_AT_LIMIT = 0.97  # a failed run whose peak reached this fraction of the limit is MLE
# a run the host starved is run again up to this many times in all (docs/spec.md 4.1): starved each
# time, its test is STARVED and the result a judge error
STARVED_RUNS_MAX = 2


class JudgeInternalError(RuntimeError):
    """Something on the judge's side failed; the submission gets `judge_error`.

    `tests` holds the reports of what ran before (and including) the test it broke on, if any.
    """

    def __init__(self, message: str, tests: Sequence[TestReport] = ()):
        super().__init__(message)
        self.tests = list(tests)


class Stopped(RuntimeError):
    """The work was stopped through its `stop` event (its caller is gone or its deadline passed): what
    ran says nothing of the program (docs/spec.md 6.7)."""


@dataclass
class ProgramRun:
    """One program run outside judging (`Engine.run`), read out of its slot before the slot is reused.

    `compile_error`: the program did not compile (C++) and nothing ran (`result` is None). Otherwise
    `result` is the sandbox's account of the run; its stdout and stderr files belong to the slot, so
    read `stdout` and `stderr` here. `fetched` says per fetched path "ok", "missing" or "too_large";
    `files` holds the bytes of each "ok" one.
    """

    compile_error: str | None = None
    result: RunResult | None = None
    stdout: bytes = b""
    stderr: bytes = b""
    fetched: dict[str, str] = field(default_factory=dict)
    files: dict[str, bytes] = field(default_factory=dict)
    starved_runs: int = 0  # runs the host starved before this one (docs/spec.md 4.1)


@dataclass(frozen=True)
class _Task:
    """One submission being judged in a slot: its problem and code, its options with `ks` and
    `isolation` resolved, the result it starts from, the problem's grader (chosen by its kind), and
    `kept`, the failing public tests' files read for its feedback (None when it asked for none)."""

    problem: Problem
    language: str
    code: str
    options: JudgeOptions
    base: JudgeResult
    grader: Grader
    kept: dict[str, fb.Kept] | None = None
    usage: dict[str, int] | None = None  # fan-out's account (FANOUT_USAGE), added to when given
    # fan-out across workers (docs/spec.md 4.10), the worker's (services/judge/worker/shards.py Spread):
    # `wanted(n, unclaimed)`, how many shard jobs to push now (0 mostly); `open(n, code, options, next, end)`,
    # the unit's board in Redis from the plan's claim counter and end on (or None); `push(board, k)`.
    # None: this worker's slots only
    spread: object | None = None


# fan-out's account of a judgement (Engine.judge's `usage`; docs/spec.md 4.10): slots borrowed, their
# slot time, tests run (to their end or stopped), and the tests run past the first failure (or a
# compile error) that were discarded as SKIPPED, with their slot time
FANOUT_USAGE = (
    "fanout_borrowed",
    "fanout_slot_ms",
    "fanout_started",
    "fanout_discarded",
    "fanout_discarded_ms",
    "fanout_reclaimed",  # tests a shard of another worker claimed and did not report in its lease
)
# how often a lane's board is read (its end, its owner) and its leases renewed: a test past the end
# is stopped within this (docs/spec.md 4.10)
BOARD_POLL_S = 0.1


class Queued:
    """Units announced to an Engine (Engine.queued): a context; each takes its place when it takes its
    slot (`judge(..., queued=...)`), or with `take` when it will not judge; its exit drops the rest."""

    def __init__(self, engine: Engine, units: int):
        self._engine, self.left = engine, 0
        with engine._lock:
            self.left = max(0, units)
            engine._queued += self.left

    def _take(self) -> None:  # under the engine's lock
        if self.left > 0:
            self.left -= 1
            self._engine._queued -= 1

    def take(self) -> None:
        with self._engine._lock:
            self._take()

    def __enter__(self) -> Queued:
        return self

    def __exit__(self, *exc) -> None:
        with self._engine._lock:
            self._engine._queued -= self.left
            self.left = 0


class _Plan:
    """One submission's tests, given out in run order to the slots that run them (its own and those
    it borrowed), and what they reported. `end`: the last test that counts, set by a test that ends
    the run (a failure under first_failure, a compile error, a checker error, a starved run); the
    tests past it are not started, and those running are stopped (_LaneStop) and discarded."""

    def __init__(
        self,
        task: _Task,
        stop,
        fanout: bool,
        zygotes: bool = True,
        done: Sequence[TestReport] = (),
        board=None,
        remote: bool = False,
    ):
        n = len(task.problem.tests)
        # across workers (docs/spec.md 4.10): tests are claimed from `board` (Redis), shared with other
        # workers' lanes; `remote`: this is a shard of another worker's unit, whose reports go to the board
        self.board, self.remote = board, remote
        self.spreads = False  # the owner may push shard jobs (Engine._spread)
        self.watch, self.watching = None, None  # the board's watcher (Engine._watching), once there is one
        self.discarded, self.discarded_s = 0, 0.0  # a shard's reports past the end, not written
        self.first_failure = task.options.mode == "first_failure"
        self.stop, self.fanout, self.zygotes, self.n = stop, fanout, zygotes, n
        self.lock = threading.Lock()
        self.next, self.end, self.started = len(done), n, 0
        self.reports: list[TestReport | None] = [*done, *[None] * (n - len(done))]
        if self.first_failure:  # a failure among the tests judged already ends the run there
            self.end = next((i for i, r in enumerate(done) if r.verdict != Verdict.AC), n)
        # the tests this plan may run: none after a batch's failure in first_failure mode (no zygote
        # is opened for them)
        self.todo = max(0, min(n, self.end + 1) - len(done))
        self.took_s = [0.0] * n
        self.compile_error: str | None = None
        self.error: BaseException | None = None
        self.helpers: list[threading.Thread] = []
        self.borrowed, self.borrowed_s = 0, 0.0

    def claim(self, ok: bool = True) -> int | None:
        with self.lock:
            if not ok or self.next >= self.n or self.next > self.end:
                return None
            board = self.board
            if board is None:
                self.next += 1
                return self.next - 1
        i = board.claim()  # a round trip: outside the lock
        with self.lock:
            self.next = self.n if i is None else max(self.next, i + 1)
            return i

    def unclaimed(self) -> int:
        with self.lock:
            return max(0, min(self.n, self.end + 1) - self.next)

    def _ends(self, report: TestReport, compile_error: str | None) -> bool:
        return (
            compile_error is not None
            or report.verdict in (Verdict.CHECKER_ERROR, Verdict.STARVED)
            or (self.first_failure and report.verdict != Verdict.AC)
        )

    def finish(self, i: int, report: TestReport, compile_error: str | None, took_s: float) -> None:
        ends = self._ends(report, compile_error)
        with self.lock:
            self.reports[i], self.took_s[i] = report, took_s
            self.started += 1
            if ends and i < self.end:
                self.end, self.compile_error = i, compile_error
            stopped = self.stop is not None and self.stop.is_set()
            past = i > self.end
            board = self.board  # read with the end: a board opened later starts from this end
        if board is None:
            return
        if self.remote:
            # a shard's report goes to the owner, unless it ran past the end (or was stopped: what
            # it says is nothing of the program): then it is discarded, as a borrowed slot's is
            if (
                stopped
                or past
                or not board.post(i, {"r": report.model_dump(mode="json"), "ce": compile_error}, ends)
            ):
                if stopped or past:
                    board.release(i)
                with self.lock:
                    self.discarded += 1
                    self.discarded_s += took_s
        elif ends:
            board.lower_end(i)  # the owner's failure stops the shards' tests past it

    def lower(self, end: int) -> None:
        """The board's end (another worker's test ended the run there), read by the lane's watcher."""
        with self.lock:
            if 0 <= end < self.end:
                self.end = end

    def orphaned(self) -> None:
        """A shard's owner is gone: nothing more starts, and what runs is stopped and not reported."""
        with self.lock:
            self.end = -1

    def reported(self, i: int, record: dict) -> None:
        """The owner takes a shard's report of test `i` from the board."""
        report, compile_error = TestReport.model_validate(record["r"]), record.get("ce")
        ends = self._ends(report, compile_error)
        with self.lock:
            if self.reports[i] is not None:
                return
            self.reports[i] = report
            if ends and i < self.end:
                self.end, self.compile_error = i, compile_error
            elif ends and i == self.end and self.compile_error is None:
                self.compile_error = compile_error  # the watcher moved the end here before

    def fail(self, err: BaseException) -> None:
        with self.lock:
            if self.error is None:
                self.error = err
            self.end = -1  # nothing more starts, and what runs is stopped

    def lent(self, thread: threading.Thread) -> None:
        with self.lock:
            self.borrowed += 1
            thread.start()
            self.helpers.append(thread)

    def returned(self, held_s: float) -> None:
        with self.lock:
            self.borrowed_s += held_s


class _LaneStop:
    """A lane's slot.stop: the submission's stop, or its test (`index`) past the plan's end."""

    def __init__(self, plan: _Plan):
        self.plan, self.index = plan, 0

    def is_set(self) -> bool:
        return (self.plan.stop is not None and self.plan.stop.is_set()) or self.plan.end < self.index


class Engine:
    """A pool of sandbox slots that judges submissions. Thread-safe; `judge_many` uses every slot."""

    # a submission's tests fork from its own zygote (Slot.open_zygote); False forks each test from
    # the keeper and reads its request afresh (the benchmark's "before")
    zygotes = True
    # an assert problem's tests run in one batch run (_judge_batched); False: each in a run of its own
    assert_batches = True

    def __init__(
        self, settings: Settings | None = None, *, slots: int | None = None, state_dir: Path | None = None
    ):
        self.settings = settings or get_settings()
        self.state_dir = Path(state_dir or self.settings.state_dir)
        self.store = TestStore(self.state_dir / "tests")
        self.n_slots = slots or self.settings.slots
        cpus, why = usable_cpus()
        if self.n_slots > cpus:
            # each slot needs a CPU of its own: a time-out then costs its CPU limit in wall time, and
            # no run waits for a CPU behind the judge's own others (docs/spec.md 4.1)
            raise SandboxError(
                f"{self.n_slots} sandbox slots (FRONTIER_SLOTS, or --slots) are more than the {cpus} "
                f"CPU(s) this process may use ({why}): set FRONTIER_SLOTS to at most {cpus}"
            )
        self._cgroups = None
        self._seccomp: bytes | None = None
        if self.settings.sandbox_mode == "strict":
            if os.geteuid() != 0:
                raise SandboxError(
                    "the judge sandbox needs root (namespaces, cgroups, an unprivileged uid per run); "
                    "run as root or in the judge container, or set FRONTIER_SANDBOX_MODE=unsafe to run "
                    "programs without isolation"
                )
            try:
                self._cgroups = detect()
                self._cgroups.remove_stale()
                weight = self.settings.slot_cpu_weight
                if weight and not self._cgroups.set_cpu_weight(weight):
                    log.warning(
                        "no CPU weight for the slots (no cpu cgroup controller here): runs share the CPU "
                        "with the host's other work, and a busy host starves them (docs/spec.md 4.1)"
                    )
            except (CgroupError, OSError) as err:
                raise SandboxError(
                    f"no usable cgroups ({err}); the judge refuses to run programs without limits "
                    "(in a container: /sys/fs/cgroup writable, docs/deploy.md)"
                ) from None
            try:
                self._seccomp = filter_bpf()
            except SeccompUnavailable as err:
                raise SandboxError(f"{err}; the judge refuses to run programs without it") from None
        else:
            try:
                self._seccomp = filter_bpf()
            except SeccompUnavailable as err:
                self._seccomp = None
                log.warning("%s: programs run without a system-call filter", err)
            log.warning(
                "UNSAFE sandbox mode: programs run without namespaces, cgroups or a separate uid; "
                "memory is judged from rusage. Never use this for untrusted code."
            )
        self._free: queue.Queue[Slot] = queue.Queue()
        self._lock = threading.Lock()
        self._started = 0
        # callers waiting for a slot, and units announced to come (Engine.queued): a fan-out borrows
        # only the free slots none of them wants (_borrow)
        self._waiting = 0
        self._queued = 0
        self._all: list[Slot] = []
        # each slot's partner, which runs an interactive problem's interactor (_partner)
        self._partners: dict[Slot, Slot] = {}

    # -- slots --------------------------------------------------------------------------------------
    def _new_slot(self, index: int) -> Slot:
        slot = Slot(index, self.state_dir, self._cgroups, self.settings.tmp_size_mb, self._seccomp)
        slot.start()
        return slot

    @contextlib.contextmanager
    def _slot(self, stop: threading.Event | None = None, queued: Queued | None = None):
        with self._lock:
            if self._free.empty() and self._started < self.n_slots:
                slot = self._new_slot(self._started)  # a slot that cannot start is not counted
                self._started += 1
                self._all.append(slot)
                self._free.put(slot)
            self._waiting += 1
            if queued is not None:
                queued._take()
        try:
            slot = self._free.get()
        finally:
            with self._lock:
                self._waiting -= 1
        with self._held(slot, stop) as slot:
            yield slot

    def _borrow(self) -> Slot | None:
        """A free slot for a submission's fan-out, never waited for: None when no slot is free beyond
        those that waiting callers and announced units (queued) will take."""
        with self._lock:
            if self._free.qsize() <= self._waiting + self._queued:
                if self._waiting + self._queued or self._started >= self.n_slots:
                    return None
                try:
                    slot = self._new_slot(self._started)
                except (SandboxError, CgroupError, OSError) as err:  # the submission runs on without it
                    log.warning("slot %s did not start for a fan-out: %s", self._started, err)
                    return None
                self._started += 1
                self._all.append(slot)
                return slot
            try:
                return self._free.get_nowait()
            except queue.Empty:
                return None

    def _wanted(self) -> bool:
        """Whether a caller waits, or an announced unit would wait, for a slot: a borrowed one goes back."""
        with self._lock:
            return self._waiting + self._queued > self._free.qsize()

    def queued(self, units: int) -> Queued:
        """Announce `units` that are about to be judged here (`judge(..., queued=...)`): until each
        takes its slot, no fan-out borrows a slot it would take (docs/spec.md 4.10)."""
        return Queued(self, units)

    @contextlib.contextmanager
    def _held(self, slot: Slot, stop: threading.Event | None):
        slot.stop = stop
        try:
            if stop is not None and stop.is_set():
                raise Stopped("stopped before it started")
            yield slot
        except (SandboxError, CgroupError):
            # a broken slot is replaced, never reused; when no replacement starts, the pool shrinks
            # by one and the next caller that finds it empty starts a slot afresh
            index = slot.index
            slot.close()
            self._drop_partner(slot)
            with self._lock:
                self._all.remove(slot)
            try:
                slot = self._new_slot(index)
            except (SandboxError, CgroupError, OSError) as err:
                log.warning("slot %s could not be replaced: %s", index, err)
                with self._lock:
                    self._started -= 1
                slot = None
                raise
            with self._lock:
                self._all.append(slot)
            raise
        finally:
            if slot is not None:
                slot.stop = None
                self._free.put(slot)

    def warm_up(self) -> None:
        """Start every slot now rather than on first use."""
        with ThreadPoolExecutor(self.n_slots) as pool:
            list(pool.map(lambda _: self._touch(), range(self.n_slots)))

    def _touch(self) -> None:
        with self._slot():
            pass

    def close(self) -> None:
        with self._lock:
            for slot in [*self._all, *self._partners.values()]:
                slot.close()
            self._all.clear()
            self._partners.clear()
            self._started = 0
            self._free = queue.Queue()

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def compile(self, language: str, code: str, stop: threading.Event | None = None) -> str | None:
        """Compile `code` in a slot as a submission is compiled (cached by its key): None when it
        compiles, else the compiler's message. Nothing runs but the compiler, inside the sandbox."""
        with self._slot(stop) as slot:
            prepared = RUNNERS[language].prepare(slot, code, self.settings)
            return prepared.message if isinstance(prepared, CompileFailed) else None

    def run(
        self,
        language: str,
        code: str,
        *,
        time_limit_ms: int,
        wall_limit_ms: int,
        memory_limit_mb: int,
        output_limit_bytes: int,
        stdin: bytes = b"",
        files: Mapping[str, bytes] | None = None,
        args: Sequence[str] = (),
        compile_time_limit_ms: int | None = None,
        compiler_flags: Sequence[str] = (),
        fetch: Sequence[str] = (),
        fetch_max_file_bytes: int = 0,
        fetch_max_total_bytes: int = 0,
        stop: threading.Event | None = None,
    ) -> ProgramRun:
        """Run one program once: no tests, no checker (the compat APIs' runs, docs/spec.md 6.5).

        `files` (plain names) are placed read-only in its working directory, `args` follow its own
        argv, and the `fetch` paths are copied out of the working directory after it ran (capped per
        file and in total). A broken sandbox raises SandboxError (the slot is replaced); once `stop` is
        set the run is killed and Stopped raised; a run the host starved twice raises HostStarved.
        """
        s = self.settings
        with self._slot(stop) as slot:
            runner = RUNNERS[language]
            prepared = runner.prepare(
                slot, code, s, time_limit_ms=compile_time_limit_ms, flags=compiler_flags
            )
            if isinstance(prepared, CompileFailed):
                return ProgramRun(compile_error=prepared.message)
            inputs = [slot.io_dir / "run-stdin"]
            placed = []
            try:
                inputs[0].write_bytes(stdin)
                for i, (name, data) in enumerate(sorted((files or {}).items())):
                    inputs.append(slot.io_dir / f"run-file-{i}")
                    inputs[-1].write_bytes(data)
                    placed.append((f"/io/{inputs[-1].name}", name))
                argv = list(prepared.command(memory_limit_mb)) or (["solution.py"] if args else [])
                result, starved_runs = self._run_fed(
                    slot,
                    RunSpec(
                        kind=prepared.kind,
                        code=prepared.code,
                        argv=[*argv, *args],
                        stdin=f"/io/{inputs[0].name}",
                        files=placed,
                        time_limit_ms=time_limit_ms,
                        memory_limit_mb=memory_limit_mb,
                        wall_limit_ms=wall_limit_ms,
                        output_limit_bytes=output_limit_bytes,
                        pids_max=s.pids_max,
                        open_files_max=s.open_files_max,
                        kill_margin=0.0,
                        fetch=list(fetch),
                        fetch_max_file_bytes=fetch_max_file_bytes,
                        fetch_max_total_bytes=fetch_max_total_bytes,
                    ),
                )
            finally:
                for path in inputs:
                    path.unlink(missing_ok=True)
            if stop is not None and stop.is_set():
                raise Stopped("stopped while it ran")
            if result.starved:
                raise HostStarved(starved_message(result, STARVED_RUNS_MAX))
            run = ProgramRun(
                result=result,
                stdout=read_head(result.stdout_path, output_limit_bytes),
                stderr=read_head(result.stderr_path, output_limit_bytes),
                starved_runs=starved_runs,
            )
            for i, (path, status) in enumerate(result.fetched):
                copy = result.fetch_dir / str(i)
                if status == "ok":
                    run.files[path] = copy.read_bytes()
                run.fetched[path] = status
                copy.unlink(missing_ok=True)
            return run

    # -- judging ------------------------------------------------------------------------------------
    def judge(
        self,
        problem: Problem,
        submission: Submission,
        options: JudgeOptions | str | None = None,
        *,
        stop: threading.Event | None = None,
        queued: Queued | None = None,
        usage: dict[str, int] | None = None,
        spread=None,
        **fields,
    ) -> JudgeResult:
        """The result object, judged with `options` (JudgeOptions, or a mode name; `fields`, its
        fields by name, over it: `engine.judge(p, s, mode="full")`). With `feedback`, a failing one
        also carries `feedback` and `feedback_text` (docs/spec.md section 5.1), for which the failing
        public tests' files are read before their slot is reused (into the call's own `kept`, passed
        down to each test's report). `isolation` (default FRONTIER_ISOLATION): "test" runs
        every test in a process of its own; "submission" forks a Python submission's tests in turn
        from one sandboxed snapshot of it taken before its first test, with the same verdicts
        (docs/spec.md 4.8). Once `stop` is set its running test is killed and Stopped raised.
        With FRONTIER_FANOUT its tests also run on the slots no one else wants (docs/spec.md 4.10):
        `queued`, the Engine.queued this call was announced in, and `usage`, FANOUT_USAGE's counts
        added to; `spread`, given by a worker (_Task.spread), lets other workers' shards claim its tests
        too (None: this engine's slots only)."""
        options = JudgeOptions.given(options, fields)  # a ValueError names a bad field
        kept: dict[str, fb.Kept] | None = {} if options.feedback else None
        result = self._judge(problem, submission, options, kept, stop, queued, usage, spread)
        if kept is None:
            if self.settings.hidden_stderr:  # FRONTIER_HIDDEN_STDERR: an operator's own debugging
                return result
            return fb.withhold_hidden_stderr(result, frozenset(problem.spec.public_tests))
        return fb.attach(
            result,
            public=frozenset(problem.spec.public_tests),
            time_limit_ms=problem.spec.time_limit_ms,
            memory_limit_mb=problem.spec.memory_limit_mb,
            checker="json" if problem.spec.function else problem.spec.checker.type,
            kept=kept,
            language=submission.language,
            template=options.template(self.settings),
        )

    def _judge(
        self,
        problem: Problem,
        submission: Submission,
        options: JudgeOptions,
        kept: dict[str, fb.Kept] | None,
        stop: threading.Event | None,
        queued: Queued | None = None,
        usage: dict[str, int] | None = None,
        spread=None,
    ) -> JudgeResult:
        if submission.language not in RUNNERS:
            raise ValueError(f"unsupported language {submission.language!r}; supported: {sorted(RUNNERS)}")
        ks = sorted(set(options.ks)) if options.ks else needed_ks(t.input_bytes for t in problem.tests)
        options = options.model_copy(
            update={"ks": ks, "isolation": options.isolation or self.settings.isolation}
        )
        base = JudgeResult(
            id=submission.id,
            problem_id=problem.id,
            status="ok",
            in_scope=in_scope_counts([t.input_bytes for t in problem.tests], ks),
        )
        code = submission.code
        if code is None:
            code = extract_code(submission.completion or "", submission.language)
        if code is None:
            if queued is not None:
                queued.take()
            return base.model_copy(
                update={
                    "outcome": Outcome.FORMAT_ERROR,
                    "rewards": format_error_rewards(ks),
                    "message": f"no {submission.language} code block found in the completion",
                }
            )
        task = _Task(
            problem, submission.language, code, options, base, grader_for(problem), kept, usage, spread
        )
        try:
            with self._slot(stop, queued) as slot:
                return self._judge_in_slot(slot, task)
        except (SandboxError, JudgeInternalError, HostStarved, CgroupError, OSError) as err:
            log.warning("judge error on %s/%s: %s", problem.id, submission.id, err)
            tests = err.tests if isinstance(err, JudgeInternalError) else []
            return base.model_copy(
                update={"status": "judge_error", "in_scope": None, "message": str(err), "tests": tests}
            )

    def judge_many(
        self, items: Iterable[tuple[Problem, Submission]], options: JudgeOptions | str | None = None, **fields
    ) -> list[JudgeResult]:
        """Judge on every slot in parallel (each with `options`, as `judge`); results keep the order of
        `items`."""
        items = list(items)
        options = JudgeOptions.given(options, fields)
        with ThreadPoolExecutor(self.n_slots) as pool, self.queued(len(items)) as queued:
            return list(pool.map(lambda it: self.judge(it[0], it[1], options, queued=queued), items))

    def _judge_in_slot(self, slot: Slot, task: _Task) -> JudgeResult:
        problem, language, code, mode = task.problem, task.language, task.code, task.options.mode
        prepared = task.grader.prepare(slot, problem, language, code, self.settings)
        if isinstance(prepared, CompileFailed):
            reports = [
                TestReport(
                    name=t.name,
                    input_bytes=t.input_bytes,
                    verdict=Verdict.CE if (i == 0 or mode == "full") else Verdict.SKIPPED,
                )
                for i, t in enumerate(problem.tests)
            ]
            return self._finish(task, reports, compile_output=prepared.message)
        if self._batches(slot, task, prepared):
            return self._judge_batched(slot, task, prepared)
        return self._run_tests(slot, task, prepared)

    def _run_tests(
        self,
        slot: Slot,
        task: _Task,
        prepared: Prepared,
        zygotes: bool = True,
        done: Sequence[TestReport] = (),
    ) -> JudgeResult:
        """The submission's tests, claimed in run order by `slot` and, with FRONTIER_FANOUT, by the free
        slots it borrows (an interactive problem's stay in this one, with its partner): docs/spec.md
        4.10. `zygotes` False: every test is forked from the keeper, none from a zygote. `done`: the
        first tests' reports, judged already (by a batch run, docs/spec.md 2.7); the rest are run."""
        problem = task.problem
        fanout = self.settings.fanout and problem.spec.interactor is None
        plan = _Plan(task, slot.stop, fanout, zygotes, done)
        # across workers too (docs/spec.md 4.10), through a board in Redis opened once a shard job is
        # pushed (_spread); not with feedback (a shard keeps no files)
        plan.spreads = fanout and task.spread is not None and not done and task.kept is None and plan.n >= 2
        try:
            with self._watching(plan):
                self._lanes(slot, task, prepared, plan)
                if plan.board is not None and plan.error is None:
                    self._gather(slot, task, prepared, plan)
        finally:
            if plan.board is not None:
                plan.board.close()
            _count(task, fanout_borrowed=plan.borrowed, fanout_started=plan.started)
            _count(task, fanout_slot_ms=round(plan.borrowed_s * 1000))
        return self._assemble(task, plan)

    def _lanes(self, slot: Slot, task: _Task, prepared: Prepared, plan: _Plan) -> None:
        """The plan's lanes, this slot's and those it borrows, to their end; an error is the plan's."""
        try:
            self._lane(slot, task, prepared, plan)
        except BaseException as err:
            plan.fail(err)
        finally:
            for thread in plan.helpers:
                thread.join()

    @contextlib.contextmanager
    def _watching(self, plan: _Plan):
        """While the body runs, read the plan's board every BOARD_POLL_S: its end (a test of another
        worker's ended the run: the lanes stop past it) and, for a shard, whether its owner is still
        there; each read renews the leases this worker holds."""
        done = threading.Event()
        plan.watch = lambda: threading.Thread(target=watch, name="fan-board", daemon=True)

        def watch() -> None:
            while not done.wait(BOARD_POLL_S):
                try:
                    end, alive = plan.board.poll()
                except Exception as err:  # noqa: BLE001 - Redis away: the next poll tries again
                    log.debug("board not read: %s", err)
                    continue
                if plan.remote and not alive:
                    plan.orphaned()
                    return
                plan.lower(end)

        if plan.board is not None:
            plan.watching = plan.watch()
            plan.watching.start()
        try:
            yield
        finally:
            done.set()
            if plan.watching is not None:
                plan.watching.join()

    def _spread(self, task: _Task, plan: _Plan) -> None:
        """Push shard jobs for the tests no lane has claimed, as many as the worker's `spread` wants now;
        the first opens the unit's board, from the plan's claim counter and end on, and its watcher."""
        unclaimed = plan.unclaimed()
        k = task.spread.wanted(plan.n, unclaimed) if unclaimed > 0 else 0
        if k <= 0:
            return
        with plan.lock:  # no lane claims while the counter moves to Redis
            if plan.board is None:
                board = task.spread.open(plan.n, task.code, task.options, plan.next, plan.end)
                if board is None:
                    plan.spreads = False
                    return
                plan.board, plan.watching = board, plan.watch()
                plan.watching.start()
        task.spread.push(plan.board, k)

    def _gather(self, slot: Slot, task: _Task, prepared: Prepared, plan: _Plan) -> None:
        """The owner's wait for the shards' reports of the tests up to the end, in its own slot; a test a
        shard claimed and whose lease lapsed (its worker died) is run here, as a lane runs it."""
        while True:
            with plan.lock:
                missing = [i for i in range(min(plan.end, plan.n - 1) + 1) if plan.reports[i] is None]
            if not missing or plan.error is not None or (plan.stop is not None and plan.stop.is_set()):
                return
            found, lapsed = plan.board.collect(missing)
            for i, record in found.items():
                plan.reported(i, record)
            for i in lapsed:
                if i <= plan.end:
                    log.warning("%s: test %d re-claimed (its shard's lease lapsed)", task.problem.id, i)
                    _count(task, fanout_reclaimed=1)
                    try:
                        self._lane(slot, task, prepared, plan, i)
                    except BaseException as err:
                        plan.fail(err)
                        return
            if not found and not lapsed:
                time.sleep(BOARD_POLL_S / 2)

    def run_shard(
        self,
        problem: Problem,
        language: str,
        code: str,
        options: JudgeOptions,
        board,
        *,
        stop: threading.Event | None = None,
        queued: Queued | None = None,
        usage: dict[str, int] | None = None,
    ) -> tuple[int, int, float]:
        """Another worker's unit's tests, claimed from its `board` and run as a borrowed slot runs them
        (docs/spec.md 4.10): compiled once here, each test's report written to the board by index.
        `options` are the owner's, resolved. Returns the tests run, those discarded (past the end) and
        their seconds. A compile error here reports nothing (the owner compiled it first)."""
        task = _Task(
            problem,
            language,
            code,
            options,
            JudgeResult(id="", problem_id=problem.id, status="ok"),
            grader_for(problem),
            None,
            usage,
        )
        with self._slot(stop, queued) as slot:
            prepared = task.grader.prepare(slot, problem, language, code, self.settings)
            if isinstance(prepared, CompileFailed):
                return 0, 0, 0.0
            fanout = self.settings.fanout and problem.spec.interactor is None
            plan = _Plan(task, slot.stop, fanout, board=board, remote=True)
            try:
                with self._watching(plan):
                    self._lanes(slot, task, prepared, plan)
            finally:
                board.drop()  # what was claimed and not reported: the owner re-claims it at once
                _count(task, fanout_borrowed=plan.borrowed, fanout_slot_ms=round(plan.borrowed_s * 1000))
            if plan.error is not None and not isinstance(plan.error, Stopped):
                raise plan.error
            return plan.started, plan.discarded, plan.discarded_s

    def _lane(
        self, slot: Slot, task: _Task, prepared: Prepared, plan: _Plan, first: int | None = None
    ) -> None:
        """Run the tests `plan` gives out, one at a time in `slot`, until none is left; a borrowed
        slot (given its `first` test) goes back between two tests once a caller wants it."""
        problem, home = task.problem, first is None
        stop, slot.stop = slot.stop, _LaneStop(plan)
        # the submission's zygote: its tests fork from a copy of the warm interpreter that holds its
        # request and compiled code (Slot.open_zygote); closed before the slot serves anyone else
        zygote = self.zygotes and plan.zygotes and plan.todo >= 2 and problem.spec.interactor is None
        # one process for the tests in turn: a Python program on a slot with cgroups (which measure
        # each test), where its grader allows (no checker program between tests, no assert driver)
        shared = (
            zygote
            and task.options.isolation == "submission"
            and prepared.kind == "python"
            and slot.cgroup is not None
            and task.grader.shares_runner
        )
        try:
            if zygote:
                slot.open_zygote(self._spec(prepared, problem, None, False))
            i = plan.claim() if first is None else first
            while i is not None and i <= plan.end:  # a test claimed before the end moved is not run
                if plan.stop is not None and plan.stop.is_set():
                    raise Stopped(f"stopped after {plan.started} of {len(problem.tests)} tests")
                if plan.fanout and plan.started:
                    # once a test has passed: most failing samples fail their first test, and a job
                    # that a loop took a moment ago asks for its slot meanwhile
                    self._fan_out(task, plan)
                    if plan.spreads:
                        self._spread(task, plan)  # and to other workers' idle loops
                shared = shared and slot.runners_started < SHARED_RUNNERS_MAX
                # a shared runner starts the next test (its own) while this one's output is checked
                then = plan.claim(True) if shared and (home or not self._wanted()) else None
                slot.stop.index = i
                t0 = time.monotonic()
                report, compile_error = self._run_test(
                    slot,
                    task,
                    problem.tests[i],
                    prepared,
                    zygote,
                    i < len(problem.tests) - 1,
                    shared,
                    self.test_path(problem.tests[i].input_sha256),
                    None if then is None else self.test_path(problem.tests[then].input_sha256),
                )
                plan.finish(i, report, compile_error, time.monotonic() - t0)
                i = then if then is not None else plan.claim(home or not self._wanted())
        finally:
            slot.stop = stop
            if zygote:
                slot.close_zygote()

    def _fan_out(self, task: _Task, plan: _Plan) -> None:
        """Borrow free slots for the tests no slot has claimed yet, each running them as `_lane`."""
        while plan.unclaimed() > 0 and (slot := self._borrow()) is not None:
            first = plan.claim()
            if first is None:
                self._free.put(slot)
                return
            plan.lent(threading.Thread(target=self._helper, args=(slot, task, plan, first), daemon=True))

    def _helper(self, slot: Slot, task: _Task, plan: _Plan, first: int) -> None:
        t0 = time.monotonic()
        try:
            with self._held(slot, None):
                # compiled once: this slot finds the binary in the cache and pins its own link
                prepared = task.grader.prepare(slot, task.problem, task.language, task.code, self.settings)
                if isinstance(prepared, CompileFailed):
                    raise JudgeInternalError(f"compiled in one slot, not in slot {slot.index}")
                self._lane(slot, task, prepared, plan, first)
        except BaseException as err:
            plan.fail(err)
        finally:
            plan.returned(time.monotonic() - t0)

    def _assemble(self, task: _Task, plan: _Plan) -> JudgeResult:
        """The result from the plan's reports in run order: the tests past its end (a failure under
        first_failure, a compile error) were not run, or ran and are discarded, as SKIPPED (or CE)."""
        problem, n = task.problem, len(task.problem.tests)
        if plan.error is not None:
            raise plan.error
        if plan.stop is not None and plan.stop.is_set():
            raise Stopped(f"stopped after {plan.started} of {n} tests")
        end = plan.end
        reports = [r for r in plan.reports[: end + 1] if r is not None]
        if len(reports) < min(end + 1, n):
            raise JudgeInternalError(f"{min(end + 1, n) - len(reports)} test(s) were not run", reports)
        discarded = [i for i in range(end + 1, n) if plan.reports[i] is not None]
        if task.kept is not None:  # a discarded test's files are no feedback of a serial run
            for i in discarded:
                task.kept.pop(problem.tests[i].name, None)
        _count(task, fanout_discarded=len(discarded))
        _count(task, fanout_discarded_ms=round(sum(plan.took_s[i] for i in discarded) * 1000))
        compile_output = None
        if end < n:
            last = reports[end]
            if last.verdict == Verdict.CHECKER_ERROR:
                # never a verdict of the program: the whole result is a judge error, but it shows
                # what ran and which test broke the checker
                raise JudgeInternalError(f"checker failed on test {last.name}: {last.message}", reports)
            if last.verdict == Verdict.STARVED:
                # nor is a test the host did not give the CPU to (docs/spec.md 4.1)
                raise JudgeInternalError(f"starved on test {last.name}: {last.message}", reports)
            compile_output = plan.compile_error
            # a syntax error fails every test the same way: the rest are not run
            verdict = (
                Verdict.CE if compile_output is not None and task.options.mode == "full" else Verdict.SKIPPED
            )
            reports += [
                TestReport(name=t.name, input_bytes=t.input_bytes, verdict=verdict)
                for t in problem.tests[end + 1 :]
            ]
        return self._finish(task, reports, compile_output=compile_output)

    # -- assert tests in one batch run (docs/spec.md 2.7) ------------------------------------------------
    def _batches(self, slot: Slot, task: _Task, prepared: Prepared) -> bool:
        """Whether the submission's tests run in one batch run (asserts.BATCH_SOURCE): an assert
        problem's Python submission with two tests or more (one costs less in a run of its own) on a
        slot with cgroups, unless a feedback keeps public tests' files (a batch run has no output
        files per test)."""
        problem = task.problem
        return (
            self.assert_batches
            and task.grader.batches
            and prepared.kind == "python"
            and slot.cgroup is not None
            and problem.spec.interactor is None
            and len(problem.tests) >= 2
            and not (task.kept is not None and problem.spec.public_tests)
        )

    def _judge_batched(self, slot: Slot, task: _Task, prepared: Prepared) -> JudgeResult:
        """All of a submission's assert tests in one run of the batch driver, which forks each test's
        check and candidate as a run of its own would, watches its CPU and wall time, and reports
        its verdict with its numbers (a TLE where its CPU time passed the kill limit: never run
        again). A test's waits for a CPU do not count towards its wall limit there, up to
        STARVED_RUNS_MAX wall limits (what a run of its own and its rerun have): a busy test the host
        starves reaches its CPU limit in the batch. A test the driver cannot judge as a run of its
        own would (its time near the limit, a wall-time stop: idle, or starved past that; a signal, a
        process or a file left behind, a memory peak near the limit on a failure), and every test
        after it, run as they do without the batch (`_run_tests`, given the batch's reports); so do
        all of them after an OOM kill anywhere in the batch, and a batch that does not compile is
        judged without it. In first_failure mode the driver starts no test after a failure."""
        problem, s = task.problem, self.settings
        tests = []
        for test in problem.tests:
            try:
                # as the check's sys.stdin reads it: UTF-8, universal newlines
                text = self.store.get(test.input_sha256).decode("utf-8")
            except UnicodeDecodeError:
                return self._run_tests(slot, task, prepared)
            tests.append(text.replace("\r\n", "\n").replace("\r", "\n").encode())
        tl, band = problem.spec.time_limit_ms, s.borderline_band
        wall_ms = int(tl * s.wall_time_multiplier) + s.wall_time_extra_ms
        nonce = secrets.token_hex(16)
        header = {
            "first_failure": task.options.mode == "first_failure",
            "kill_ms": tl * (1 + band),  # a run's watchdog stops it here (RunSpec.kill_margin)
            "near_ms": tl * (1 - band),  # from here a run of its own decides (its borderline rerun)
            "wall_ms": wall_ms,
            # a test's wall time waiting for a CPU aside; a busy test the host starves (its CPU
            # time still short of the kill limit) goes back to a run of its own past this
            "wall_max_ms": STARVED_RUNS_MAX * wall_ms,
            "keep_bytes": s.stderr_keep_bytes,
            # a failure whose two processes' peaks add up to half the limit: MLE or RE, as a run decides
            "mem_kb": problem.spec.memory_limit_mb * 1024 // 2,
            "tests": [len(t) for t in tests],
        }
        head = json.dumps(header).encode()
        # the driver's stdin (asserts.BATCH_SOURCE): the nonce, the header's length, the header, the tests
        path = slot.io_dir / "asserts-job"
        path.write_bytes(nonce.encode() + len(head).to_bytes(8, "big") + head + b"".join(tests))
        n = len(tests)
        batch = task.grader.prepare_batch(problem, task.code)
        spec = dataclasses.replace(
            self._spec(batch, problem, f"/io/{path.name}", False),
            time_limit_ms=int(n * (tl * (1 + band) + 500) + 2000),
            wall_limit_ms=n * STARVED_RUNS_MAX * wall_ms + 2000,
            kill_margin=0.0,
            pids_max=s.pids_max + 1,  # the driver, beside a test's own two processes
        )
        try:
            result = slot.run(spec)
        finally:
            path.unlink(missing_ok=True)
        if slot.stop is not None and slot.stop.is_set():
            raise Stopped("stopped while its tests ran")
        if result.compile_error is not None:
            return self._run_tests(slot, task, prepared, False)
        records, why = asserts.batch_records(read_head(result.stdout_path, 1 << 20), nonce, n)
        if result.oom_killed:  # somewhere in the batch: no test of it stands
            records, why = [], "an OOM kill"
        reports = [
            TestReport(
                name=test.name,
                input_bytes=test.input_bytes,
                verdict=Verdict(rec["v"]),
                cpu_ms=round(rec["cpu"]),
                wall_ms=round(rec["wall"]),
                memory_kb=int(rec["mem"]),
                cpu_share=round(rec["cpu"] / rec["wall"], 3) if rec["wall"] > 0 else None,
                message=rec.get("msg") if rec["v"] == "RE" else None,
            )
            for test, rec in zip(problem.tests, records, strict=False)
        ]
        if why is not None:
            log.debug("%s: tests from %d of %d run on their own: %s", problem.id, len(reports), n, why)
        result = self._run_tests(slot, task, prepared, done=reports)
        if reports and result.compile_output is not None:
            # not for a program whose batch compiled: judged as without the batch
            return self._run_tests(slot, task, prepared, False)
        return result

    @staticmethod
    def _finish(task: _Task, reports: list[TestReport], compile_output: str | None = None) -> JudgeResult:
        outcomes = [TestOutcome(r.name, r.input_bytes, r.verdict) for r in reports]
        fail = first_failure(outcomes)
        return task.base.model_copy(
            update={
                "outcome": outcome(outcomes),
                "rewards": rewards(outcomes, task.options.ks or ()),
                "first_failure": FirstFailure(
                    test=fail.name, input_bytes=fail.input_bytes, verdict=fail.verdict
                )
                if fail
                else None,
                "tests": reports,
                "compile_output": compile_output,
            }
        )

    def test_path(self, digest: str) -> str:
        path = self.store.file(digest)
        if not os.access(path, os.R_OK) or not os.path.isfile(path):
            raise JudgeInternalError(f"test data {digest[:12]} is missing or unreadable in {self.store.root}")
        return f"/data/{digest[:2]}/{digest}"

    def _spec(
        self, prepared: Prepared, problem: Problem, stdin: str | None, in_zygote: bool, spare: bool = False
    ) -> RunSpec:
        s = self.settings
        tl = problem.spec.time_limit_ms
        return RunSpec(
            kind=prepared.kind,
            code=prepared.code,
            argv=list(prepared.command(problem.spec.memory_limit_mb)),
            stdin=stdin,
            time_limit_ms=tl,
            memory_limit_mb=problem.spec.memory_limit_mb,
            wall_limit_ms=int(tl * s.wall_time_multiplier) + s.wall_time_extra_ms,
            output_limit_bytes=s.output_limit_kb * 1024,
            pids_max=s.pids_max,
            open_files_max=s.open_files_max,
            kill_margin=s.borderline_band,
            in_zygote=in_zygote,
            spare=spare,
        )

    def _run_test(
        self,
        slot: Slot,
        task: _Task,
        test: TestCase,
        prepared: Prepared,
        in_zygote: bool,
        spare: bool,
        shared: bool = False,
        stdin: str | None = None,
        then: str | None = None,
    ):
        problem, kept = task.problem, task.kept
        if problem.spec.interactor is not None:
            return self._run_interactive_test(slot, task, test, prepared)
        stdin = stdin or self.test_path(test.input_sha256)
        spec = self._spec(prepared, problem, stdin, in_zygote, spare)
        if shared:
            # each test's process is forked from the runner, a snapshot of the submission taken
            # before its first test (docs/spec.md 4.8): its result is a forked test's, and stands,
            # unless the runner ended during it by itself or it ran out of memory (the runner's own
            # pages count in the cgroup): then the test runs in a process of its own, which stands.
            # A time near the limit runs once more on its own, as any test's does.
            result, stands = slot.run_shared(spec, then)
            if stands and not result.oom_killed and not result.starved:
                if self._near_limit(problem, result):
                    return self._report(
                        slot, problem, test, spec, slot.run(spec), True, kept, grader=task.grader
                    )
                return self._report(slot, problem, test, spec, result, False, kept, grader=task.grader)
        result, starved_runs = self._run_fed(slot, spec)
        borderline = self._near_limit(problem, result)
        if borderline:
            # close enough to the limit that noise could decide it: run once more, keep the second
            result, more = self._run_fed(slot, spec)
            starved_runs += more
        return self._report(
            slot, problem, test, spec, result, borderline, kept, starved_runs, grader=task.grader
        )

    def _run_fed(self, slot: Slot, spec: RunSpec) -> tuple[RunResult, int]:
        """Run `spec`, once more when the host starved it (docs/spec.md 4.1): the last result, starved
        only when both were, and how many of the runs the host starved."""
        starved_runs = 0
        for _ in range(STARVED_RUNS_MAX):
            result = slot.run(spec)
            if not result.starved:
                break
            starved_runs += 1
            log.warning(
                "a run was starved: %.0f ms of CPU and %.0f ms waiting for one in %.0f ms of wall time "
                "(the host is oversubscribed)",
                result.cpu_ms,
                result.waited_ms or 0,
                result.wall_ms,
            )
        return result, starved_runs

    def _near_limit(self, problem: Problem, result: RunResult) -> bool:
        tl = problem.spec.time_limit_ms
        return (
            not (result.cpu_killed or result.wall_killed or result.oom_killed)
            and abs(result.cpu_ms - tl) <= self.settings.borderline_band * tl
        )

    def _report(
        self,
        slot: Slot,
        problem: Problem,
        test: TestCase,
        spec: RunSpec,
        result: RunResult,
        borderline: bool,
        keeping: dict[str, fb.Kept] | None = None,
        starved_runs: int = 0,
        *,
        grader: Grader,
    ):
        """The test's report from its run: verdict (its `grader` checking the output), statistics,
        message. With `keeping` (a feedback is wanted), a failing public test's files are read into it now."""
        tl = problem.spec.time_limit_ms
        public = keeping is not None and problem.is_public(test.name)
        kept = _keep(self.store, test, result) if public else None
        verdict = _program_verdict(problem, spec, result, result.stdout_bytes)
        message, points = None, None
        if verdict is None:
            # a testlib points verdict adds its fraction of the test (spec 2.4): (verdict, message, points)
            verdict, message, *scored = grader.check(self, slot, problem, test, result)
            points = scored[0] if scored else None
        elif verdict == Verdict.RE:
            message = result.stderr_text(self.settings.stderr_keep_bytes)[-1000:] or None
        elif verdict == Verdict.MLE and result.oom_killed:
            message = oom_reason(result.memory_kb, problem.spec.memory_limit_mb)
        elif verdict == Verdict.STARVED:
            message = starved_message(result, starved_runs)
        elif verdict == Verdict.TLE and result.wall_killed and result.cpu_ms <= tl:
            message = idle_message(result, "sleeping or blocked; docs/spec.md 4.1")
        report = _run_report(
            test,
            result,
            verdict,
            borderline=borderline,
            message=message,
            points=points,
            starved_runs=starved_runs,
        )
        if kept is not None and verdict != Verdict.AC:
            keeping[test.name] = kept
        return report, result.compile_error

    # -- interactive problems (docs/spec.md 2.8) -------------------------------------------------------
    def _partner(self, slot: Slot) -> Slot:
        """The slot's partner: a sandbox of its own (namespaces, cgroup, uids), started the first time
        the slot judges an interactive problem, that runs the interactor while the slot runs the
        program. It belongs to its slot, never to the pool, so holding a slot is holding both: two
        judges can never each hold one half and wait for the other."""
        with self._lock:
            partner = self._partners.get(slot)
        if partner is not None and partner.alive:
            return partner
        if partner is not None:
            self._drop_partner(slot)
        partner = self._new_slot(slot.index)
        with self._lock:
            self._partners[slot] = partner
        return partner

    def _drop_partner(self, slot: Slot) -> None:
        with self._lock:
            partner = self._partners.pop(slot, None)
        if partner is not None:
            partner.close()

    def _run_interactive_test(self, slot: Slot, task: _Task, test: TestCase, prepared: Prepared):
        """One test of an interactive problem: the program in `slot`, the interactor in its partner,
        joined by two pipes (`_interact`), then the verdict from both (interaction.py) and, when
        the interactor accepted and the problem has a program checker, the checker's verdict on the
        interactor's output file. A time near the limit runs the dialogue once more, as any test."""
        problem, s = task.problem, self.settings
        try:
            partner = self._partner(slot)
            ispec, uses_testlib = self._interactor_spec(partner, problem, test)
        except SandboxError:
            self._drop_partner(slot)
            raise
        if isinstance(ispec, CompileFailed):
            report = TestReport(
                name=test.name,
                input_bytes=test.input_bytes,
                verdict=Verdict.CHECKER_ERROR,
                message=f"interactor does not compile: {compile_errors(ispec.message)[:500]}",
            )
            return report, None
        # the program's wall time includes the interactor's turns: its CPU limit, and the wall limit
        # (idle there while it waits on the interactor: TLE; starved: run again; docs/spec.md 2.8, 4.1)
        spec = self._spec(prepared, problem, None, False)
        # the interactor outlasts its program's wall limit: a stall of the program is the program's
        ispec.wall_limit_ms = spec.wall_limit_ms + 2 * s.checker_time_limit_ms
        starved_runs = 0
        for _ in range(STARVED_RUNS_MAX):
            result, iresult, late = self._interact(slot, partner, spec, ispec)
            if not result.starved:
                break
            starved_runs += 1
        borderline = self._near_limit(problem, result)
        if borderline:
            result, iresult, late = self._interact(slot, partner, spec, ispec)
            starved_runs += result.starved
        if slot.stop is not None and slot.stop.is_set():
            raise Stopped("stopped while it ran")  # its interactor was stopped with it: no verdict
        tl = problem.spec.time_limit_ms
        # its stdout is a pipe; its stderr is a file under the output limit
        program = _program_verdict(problem, spec, result, stdout_bytes=0)
        if program == Verdict.STARVED:  # no verdict of the program, whatever its interactor said
            message = starved_message(result, starved_runs)
            return _run_report(test, result, program, message=message, starved_runs=starved_runs), None
        jury = self._jury(iresult, uses_testlib, late)
        if jury.verdict == Verdict.AC and program is None and isinstance(task.grader, ProgramGrader):
            jury = self._check_interaction(slot, task, test, result, iresult)
        verdict = interactive_verdict(program, jury.verdict, result.signal == signal.SIGPIPE)
        message, points = None, None
        if verdict in (Verdict.WA, Verdict.CHECKER_ERROR) or (
            verdict == Verdict.AC and jury.points is not None
        ):
            # the jury's words; a points verdict's fraction, as a checker's (section 2.4)
            message, points = jury.message, jury.points if verdict != Verdict.CHECKER_ERROR else None
        elif verdict == Verdict.RE:
            message = result.stderr_text(s.stderr_keep_bytes)[-1000:] or None
        elif verdict == Verdict.MLE and result.oom_killed:
            message = oom_reason(result.memory_kb, problem.spec.memory_limit_mb)
        elif verdict == Verdict.TLE and result.wall_killed and result.cpu_ms <= tl:
            message = idle_message(result, "its waits on the interactor count; docs/spec.md 2.8")
        for path in (iresult.fetch_dir / "0",) if iresult.fetch_dir else ():
            path.unlink(missing_ok=True)
        report = _run_report(
            test,
            result,
            verdict,
            borderline=borderline,
            message=message,
            points=points,
            starved_runs=starved_runs,
        )
        if task.kept is not None and problem.is_public(test.name) and verdict != Verdict.AC:
            task.kept[test.name] = _keep(self.store, test, result)
        return report, result.compile_error

    def _interactor_spec(self, partner: Slot, problem: Problem, test: TestCase):
        """(the interactor's RunSpec, whether it is a testlib interactor), or (CompileFailed, False)
        when it does not compile. It runs as `interactor input output answer` (testlib's registerInteraction): the
        test's input and expected output by descriptor, `output` a file it writes (testlib's tout),
        fetched after the run for the checker."""
        s = self.settings
        interactor = problem.spec.interactor
        source = problem.interactor_source or ""
        uses_testlib = interactor.language == "cpp" and is_testlib_checker(source)
        if interactor.language == "cpp":
            source = testlib.cpp_source(source)
        prepared = RUNNERS[interactor.language].prepare(partner, source, s)
        if isinstance(prepared, CompileFailed):
            return prepared, False
        output_limit = s.output_limit_kb * 1024
        spec = RunSpec(
            kind=prepared.kind,
            code=prepared.code,
            argv=[*(prepared.argv or ("interactor.py",)), "input", "output", "answer"],
            fd_files=[
                (self.test_path(test.input_sha256), "input"),
                (self.test_path(test.output_sha256), "answer"),
            ],
            time_limit_ms=s.checker_time_limit_ms,
            memory_limit_mb=s.checker_memory_limit_mb,
            wall_limit_ms=s.checker_time_limit_ms * 2,  # raised to outlast the program's (above)
            output_limit_bytes=2 * output_limit + (1 << 20),
            pids_max=s.pids_max,
            open_files_max=s.open_files_max,
            as_checker=True,
            ignore_sigpipe=True,
            fetch=["output"],
            fetch_max_file_bytes=output_limit,
            fetch_max_total_bytes=output_limit,
        )
        return spec, uses_testlib

    def _interact(self, slot: Slot, partner: Slot, spec: RunSpec, ispec: RunSpec):
        """Run the program (in `slot`) and the interactor (in `partner`, on a thread of its own) at
        once, the program's stdout piped to the interactor's stdin and the interactor's stdout to the
        program's stdin: (program's result, interactor's result, whether the interactor was stopped
        for not ending within its grace after its program's end: the checker's time limit of wall
        time, which a loaded host's slowness does not use up, while an interactor left waiting on
        nothing has its end of file at once). Each sandbox watches its own run's limits; the four
        pipe ends go to the keepers, and the engine keeps none, so each side reads its end of file as
        soon as the other side's processes are gone."""
        to_interactor = os.pipe()
        to_program = os.pipe()
        spec = dataclasses.replace(spec, pipe_fds=(to_program[0], to_interactor[1]))
        ispec = dataclasses.replace(ispec, pipe_fds=(to_interactor[0], to_program[1]))
        grace = threading.Event()
        partner.stop = grace
        box: dict = {}

        def interactor() -> None:
            try:
                box["result"] = partner.run(ispec)
            except BaseException as err:  # noqa: BLE001 - raised on the judging thread below
                box["error"] = err

        thread = threading.Thread(target=interactor, name=f"interactor-{slot.index}", daemon=True)
        thread.start()
        try:
            result = slot.run(spec)
        finally:
            # the program is gone: its interactor has read its end and has this long to say so
            if slot.stop is not None and slot.stop.is_set():
                grace.set()
            timer = threading.Timer(self.settings.checker_time_limit_ms / 1000, grace.set)
            timer.start()
            thread.join()
            timer.cancel()
            partner.stop = None
        if "error" in box:
            raise box["error"]
        late = grace.is_set() and box["result"].wall_killed
        return result, box["result"], late

    def _jury(self, iresult: RunResult, uses_testlib: bool, late: bool) -> Jury:
        """The interactor's verdict from its run."""
        limit = None
        if late:
            limit = f"its grace of {self.settings.checker_time_limit_ms} ms after its program ended"
        elif iresult.cpu_killed or iresult.wall_killed:
            limit = "its time limit"
        elif iresult.oom_killed:
            limit = "its memory limit"
        if limit is None and uses_testlib and iresult.exit_code == TESTLIB_POINTS:
            verdict, message, *scored = testlib.points_verdict(
                iresult.stderr_tail(testlib.VERDICT_TAIL_BYTES)
            )
            return Jury(verdict, message, scored[0] if scored else None)
        text = (
            iresult.stderr_text(500) if iresult.exit_code in (0, 1, 2, 8) else iresult.stderr_tail(1000)
        ).strip()
        return interactor_jury(
            exit_code=iresult.exit_code,
            signal=iresult.signal,
            limit=limit,
            testlib=uses_testlib,
            message=text or None,
        )

    def _check_interaction(
        self, slot: Slot, task: _Task, test: TestCase, result: RunResult, iresult: RunResult
    ) -> Jury:
        """The problem's checker on the interactor's output file (testlib's tout), as on an answer."""
        status = dict(iresult.fetched).get("output")
        if status == "too_large":
            return Jury(Verdict.CHECKER_ERROR, "the interactor's output file passed the output limit")
        tout = slot.io_dir / "tout"
        if status == "ok":
            os.replace(iresult.fetch_dir / "0", tout)
        else:  # the interactor wrote none: the checker reads an empty one
            tout.write_bytes(b"")
        verdict, message, *scored = task.grader.check(
            self, slot, task.problem, test, dataclasses.replace(result, stdout_path=tout)
        )
        return Jury(verdict, message, scored[0] if scored else None)


def _count(task: _Task, **counts: int) -> None:
    """Add to the judgement's fan-out account (FANOUT_USAGE), where its caller keeps one."""
    if task.usage is not None:
        for key, n in counts.items():
            task.usage[key] = task.usage.get(key, 0) + n


def _program_verdict(problem: Problem, spec: RunSpec, result: RunResult, stdout_bytes: int) -> Verdict | None:
    """verdicts.run_verdict of one test's run of the program (None: its output is to be checked)."""
    return run_verdict(
        exit_code=result.exit_code,
        signal=result.signal,
        cpu_ms=result.cpu_ms,
        time_limit_ms=problem.spec.time_limit_ms,
        oom_killed=result.oom_killed,
        cpu_killed=result.cpu_killed,
        wall_killed=result.wall_killed,
        stdout_bytes=stdout_bytes,
        output_limit_bytes=spec.output_limit_bytes,
        compile_error=result.compile_error is not None,
        memory_at_limit=result.memory_kb >= MEMORY_AT_LIMIT * problem.spec.memory_limit_mb * 1024,
        starved=result.starved,
    )


def _run_report(test: TestCase, result: RunResult, verdict: Verdict, **fields) -> TestReport:
    """A test's report with its run's account: CPU, wall time, memory and the CPU share (spec 4.1)."""
    return TestReport(
        name=test.name,
        input_bytes=test.input_bytes,
        verdict=verdict,
        cpu_ms=round(result.cpu_ms),
        wall_ms=round(result.wall_ms),
        memory_kb=result.memory_kb,
        cpu_share=round(result.cpu_ms / result.wall_ms, 3) if result.wall_ms > 0 else None,
        **fields,
    )


def idle_message(result: RunResult, why: str) -> str:
    """A TLE's message when the program was idle at its wall limit (docs/spec.md 4.1)."""
    waited = "" if result.waited_ms is None else f" and {round(result.waited_ms)} ms waiting for a CPU"
    return (
        f"idle at its wall limit: stopped at {round(result.wall_ms)} ms of wall time after "
        f"{round(result.cpu_ms)} ms of CPU time{waited} ({why})"
    )


def starved_message(result: RunResult, runs: int) -> str:
    """Why a run is no verdict: the host kept it waiting for a CPU at its wall limit `runs` times."""
    share = result.cpu_ms / result.wall_ms if result.wall_ms > 0 else 0.0
    return (
        f"the host starved it {runs} time(s): {round(result.cpu_ms)} ms of CPU time and "
        f"{round(result.waited_ms or 0)} ms waiting for a CPU in {round(result.wall_ms)} ms of wall time "
        f"({share:.0%} of a CPU); the host is oversubscribed (FRONTIER_SLOTS against its CPUs, other "
        "work beside the judge): no verdict of the program (docs/spec.md 4.1)"
    )


def oom_reason(memory_kb: int, memory_limit_mb: int) -> str:
    """An OOM kill's reason: the cgroup's own limit, or an OOM killer above it (the host's memory ran
    short; sandboxed processes are its first choice, oom_score_adj 1000): never a runtime error."""
    if memory_kb >= MEMORY_AT_LIMIT * memory_limit_mb * 1024:
        return f"killed at its memory limit of {memory_limit_mb} MB"
    return (
        f"killed by the host's OOM killer at {memory_kb // 1024} MB, under its limit of "
        f"{memory_limit_mb} MB (the host ran short of memory)"
    )


def _keep(store: TestStore, test: TestCase, result: RunResult) -> fb.Kept:
    """A public test's input, expected and actual output (heads, with their sizes) and its stderr
    (head and tail when long), read before the checker or the next run can touch them."""

    def head(path: Path) -> tuple[bytes, int]:
        try:
            with open(path, "rb") as f:
                return f.read(fb.KEEP_BYTES), os.fstat(f.fileno()).st_size
        except FileNotFoundError:
            return b"", 0

    inp, n_in = head(store.path(test.input_sha256))
    exp, n_exp = head(store.path(test.output_sha256))
    act, n_act = head(result.stdout_path)
    err, n_err = head(result.stderr_path)
    stderr = err.decode("utf-8", "replace")
    if n_err > len(err):
        stderr = stderr[: fb.SHOW_CHARS] + "\n...\n" + result.stderr_tail(fb.SHOW_CHARS)
    return fb.Kept(inp, n_in, exp, n_exp, act, n_act, stderr)
