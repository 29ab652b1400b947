"""How a problem's answers are judged: one small class per problem kind, chosen once per problem
(`grader_for`).

standard   a built-in checker (exact, tokens, float) on the program's stdout (docs/spec.md 2.4)
function   `class Solution` (2.5): the answer a JSON value, compared exactly (a float checker's tolerance)
assert     each test is Python code calling the submission's function (2.7); the driver prints ok
program    the problem's checker program: `checker input expected answer`, exit 0 accepts, 1 rejects
testlib    a C++ checker that includes testlib.h: `checker input answer expected`, testlib's exit
           codes, a points verdict (2.4)

The engine runs the program and asks its grader to prepare it (`prepare`) and to check each answer
(`check`); a grader says whether a Python program's tests may share one forked runner (`shares_runner`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from services.judge.core import asserts, checkers, testlib
from services.judge.core.runners import RUNNERS, CompileFailed, Prepared
from services.judge.core.sandbox.slot import RunResult, RunSpec, Slot
from services.judge.core.verdicts import Verdict
from services.problems.spec import FloatChecker, ProgramChecker, TestCase, TokensChecker, is_testlib_checker
from services.problems.store import Problem
from services.settings import Settings

if TYPE_CHECKING:
    from services.judge.core.engine import Engine

# what `check` returns: (verdict, message) or, for a testlib points verdict, (verdict, message, points)
Checked = tuple


class Grader:
    """What the engine asks of a problem's kind."""

    kind: str
    # a Python program's tests may run in turn in one process forked from its snapshot (docs/spec.md
    # 4.8): not when a checker program runs between tests, nor for the assert driver (a fork per test)
    shares_runner = True
    # its tests may run in one batch run whose driver reports a verdict per test (engine._judge_batched)
    batches = False

    def prepare(
        self, slot: Slot, problem: Problem, language: str, code: str, settings: Settings
    ) -> Prepared | CompileFailed:
        """What to run for the submission (a functional problem's source wrapped by its runner)."""
        return RUNNERS[language].prepare(slot, code, settings, problem.spec.function)

    def check(
        self, engine: Engine, slot: Slot, problem: Problem, test: TestCase, result: RunResult
    ) -> Checked:
        """The verdict on one test's answer (`result.stdout_path`), the program having run cleanly."""
        raise NotImplementedError


class StandardGrader(Grader):
    """A built-in checker on the program's stdout."""

    kind = "standard"

    def check(
        self, engine: Engine, slot: Slot, problem: Problem, test: TestCase, result: RunResult
    ) -> Checked:
        expected = engine.store.get(test.output_sha256)
        # the answer is streamed from its file: the checkers hold the expected output and a chunk
        with open(result.stdout_path, "rb") as actual:
            ok = self.compare(problem, expected, actual)
        return (Verdict.AC, None) if ok else (Verdict.WA, None)

    def compare(self, problem: Problem, expected: bytes, actual) -> bool:
        checker = problem.spec.checker
        if isinstance(checker, FloatChecker):
            return checkers.float_tokens(expected, actual, checker.abs_tol, checker.rel_tol)
        if isinstance(checker, TokensChecker):
            return checkers.tokens(expected, actual)
        return checkers.exact(expected, actual)


class FunctionGrader(StandardGrader):
    """`class Solution`: the answer a JSON value; tolerance only when the problem asks for it (a float
    checker), integers always exact."""

    kind = "function"

    def compare(self, problem, expected, actual):
        checker = problem.spec.checker
        tol = (
            checker if isinstance(checker, FloatChecker) else FloatChecker(type="float", abs_tol=0, rel_tol=0)
        )
        return checkers.json_value(expected, actual, tol.abs_tol, tol.rel_tol)


class AssertGrader(StandardGrader):
    """The driver runs each test's code against the submission's function (Python submissions only)."""

    kind = "assert"
    shares_runner = False  # its driver forks a process per test
    batches = True

    def prepare(self, slot, problem, language, code, settings):
        if language != "python":
            return CompileFailed("assert-test problems take Python submissions")
        return Prepared(kind="python", code=asserts.wrap(code, problem.spec.entry_point))

    def prepare_batch(self, problem: Problem, code: str) -> Prepared:
        """The batch driver's program: every test of the submission in one run (asserts.BATCH_SOURCE)."""
        return Prepared(kind="python", code=asserts.wrap_batch(code, problem.spec.entry_point))


class ProgramGrader(Grader):
    """The problem's checker program, as its own uid and limits: `checker input expected answer`;
    exit 0 accepts, 1 is a wrong answer, anything else the checker's failure."""

    kind = "program"
    shares_runner = False  # the checker runs between tests
    args = ("input", "expected", "answer")
    wrong_codes: tuple[int, ...] = (1,)

    def check(self, engine, slot, problem, test, result):
        s = engine.settings
        answer = result.stdout_path.with_name("answer")
        os.replace(result.stdout_path, answer)
        checker = problem.spec.checker
        source = problem.checker_source or ""
        if checker.language == "cpp":
            source = testlib.cpp_source(source, latin1=problem.checker_latin1)
        prepared = RUNNERS[checker.language].prepare(slot, source, s)
        if isinstance(prepared, CompileFailed):
            return (
                Verdict.CHECKER_ERROR,
                f"checker does not compile: {compile_errors(prepared.message)[:500]}",
            )
        spec = RunSpec(
            kind=prepared.kind,
            code=prepared.code,
            argv=[*(prepared.argv or ("checker.py",)), *self.args],
            # by descriptor, never copied: an answer near the output limit (or a big test) did not
            # fit the sandbox's /tmp
            fd_files=[
                (engine.test_path(test.input_sha256), "input"),
                (engine.test_path(test.output_sha256), "expected"),
                ("/io/answer", "answer"),
            ],
            time_limit_ms=s.checker_time_limit_ms,
            memory_limit_mb=s.checker_memory_limit_mb,
            wall_limit_ms=s.checker_time_limit_ms * 2,
            # room for a message quoting the whole answer; only its head is read (cut, never fatal)
            output_limit_bytes=2 * s.output_limit_kb * 1024 + (1 << 20),
            pids_max=s.pids_max,
            open_files_max=s.open_files_max,
            as_checker=True,
        )
        try:
            run = slot.run(spec)
        finally:
            answer.unlink(missing_ok=True)  # its page cache is charged to the slot (see Slot.run)
        if run.compile_error is not None:
            return Verdict.CHECKER_ERROR, f"checker does not compile: {run.compile_error[:500]}"
        killed = run.cpu_killed or run.wall_killed or run.oom_killed
        if not killed and (scored := self.scored(run)) is not None:
            return scored
        if run.exit_code == 0:
            return Verdict.AC, None
        if run.exit_code in self.wrong_codes and not killed:
            text = (run.stderr_text(500) + read_head(run.stdout_path, 500).decode("utf-8", "replace")).strip()
            return Verdict.WA, text or None
        if run.cpu_killed or run.wall_killed:
            detail = "checker exceeded its time limit"
        elif run.oom_killed:
            detail = "checker exceeded its memory limit"
        elif run.signal is not None:
            detail = f"checker killed by signal {run.signal}"
        else:
            detail = self.failure(run.exit_code)
        tail = run.stderr_tail(1000).strip()
        return Verdict.CHECKER_ERROR, f"{detail}; stderr: {tail}" if tail else detail

    def scored(self, run: RunResult) -> Checked | None:
        """A verdict the checker's own exit code carries beyond accept and reject (testlib's points)."""
        return None

    def failure(self, exit_code: int | None) -> str:
        return f"checker exit code {exit_code}"


class TestlibGrader(ProgramGrader):
    """A testlib checker, compiled with our testlib.h: `checker input answer expected` (testlib's order);
    its presentation error (2) is a wrong answer too, its failure (3) the checker's, and its points
    verdict (7) a fraction of the test (docs/spec.md 2.4)."""

    __test__ = False  # not a pytest class
    kind = "testlib"
    args = ("input", "answer", "expected")
    wrong_codes = (1, 2, testlib.UNEXPECTED_EOF_EXIT_CODE)

    def scored(self, run):
        if run.exit_code == testlib.POINTS_EXIT_CODE:
            return testlib.points_verdict(run.stderr_tail(testlib.VERDICT_TAIL_BYTES))
        return None

    def failure(self, exit_code):
        return "checker failed (testlib exit 3)" if exit_code == 3 else super().failure(exit_code)


def grader_for(problem: Problem) -> Grader:
    """The problem's grader, by its kind: its checker program (testlib or plain), else its form
    (assert tests, `class Solution`), else a built-in checker."""
    checker = problem.spec.checker
    if isinstance(checker, ProgramChecker):
        if checker.language == "cpp" and is_testlib_checker(problem.checker_source or ""):
            return TestlibGrader()
        return ProgramGrader()
    if problem.spec.entry_point is not None:
        return AssertGrader()
    if problem.spec.function is not None:
        return FunctionGrader()
    return StandardGrader()


def read_head(path: Path, limit: int) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read(limit)
    except FileNotFoundError:
        return b""


def compile_errors(message: str) -> str:
    """The compiler's `error:` lines first (they name what is missing), then the rest of its output."""
    lines = message.splitlines()
    errors = [line for line in lines if "error:" in line]
    return "\n".join(errors + [line for line in lines if "error:" not in line])
