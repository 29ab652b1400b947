"""An interactive test's verdict from its two runs, the program's and the interactor's (docs/spec.md
2.8): pure rules. The engine runs the two (each in its own sandbox, joined by two pipes) and feeds
this module what their sandboxes said.

Neither side can turn the other's failure into a pass: an interactor that failed is the judge's
failure (CHECKER_ERROR), whatever the program did; a program stopped at a limit, or that crashed, is
never AC, whatever the interactor said; and AC needs both, the program exiting 0 within its limits
and the interactor (then the checker, if the problem has one) accepting.
"""

from __future__ import annotations

from dataclasses import dataclass

from services.judge.core.verdicts import Verdict

# testlib's exit codes, as an interactor gives them (the checker's, section 2.4)
TESTLIB_WRONG = (1, 2, 8)  # _wa, _pe, _unexpected_eof (with ENABLE_UNEXPECTED_EOF)
TESTLIB_POINTS = 7


@dataclass(frozen=True)
class Jury:
    """What the interactor (or the checker after it) decided: AC, WA or CHECKER_ERROR, a message and,
    for a testlib points verdict, the fraction of the test earned."""

    verdict: Verdict
    message: str | None = None
    points: float | None = None


def interactor_jury(
    *,
    exit_code: int | None,
    signal: int | None,
    limit: str | None,
    testlib: bool,
    message: str | None,
) -> Jury:
    """The interactor's own verdict from its exit. `limit`: why its sandbox stopped it ("its time
    limit", "its memory limit", "its grace after the program ended"), None if it ended by itself.
    A points exit (testlib's 7) is read by the caller (testlib.points_verdict), not here."""
    if limit is not None:
        return Jury(Verdict.CHECKER_ERROR, f"interactor stopped at {limit}")
    if signal is not None:
        return Jury(Verdict.CHECKER_ERROR, f"interactor killed by signal {signal}" + _tail(message))
    if exit_code == 0:
        return Jury(Verdict.AC, message)
    if exit_code in (TESTLIB_WRONG if testlib else (1,)):
        return Jury(Verdict.WA, message)
    detail = (
        "interactor failed (testlib exit 3)"
        if testlib and exit_code == 3
        else f"interactor exit code {exit_code}"
    )
    return Jury(Verdict.CHECKER_ERROR, detail + _tail(message))


def interactive_verdict(program: Verdict | None, jury: Verdict, program_sigpipe: bool = False) -> Verdict:
    """The test's verdict. `program`: the program's run verdict (verdicts.run_verdict: None when it
    exited 0 within its limits); `jury`: the interactor's, or the checker's after an accepting one;
    `program_sigpipe`: the program died writing to the interactor after the interactor had gone.

    1. a jury that failed is the judge's failure, never a verdict of the program;
    2. a program that did not compile, was stopped at a limit (TLE, MLE) or failed by itself (RE,
       OLE) gets that: its peer then reads the end of its output, which says nothing more;
    3. except a program killed by SIGPIPE after the jury's WA: the interactor had ended the dialogue,
       so the program's write after it is the consequence, and the WA stands;
    4. a jury's WA;
    5. else the jury's AC.
    """
    if jury == Verdict.CHECKER_ERROR:
        return Verdict.CHECKER_ERROR
    if program is not None and not (program_sigpipe and jury == Verdict.WA):
        return program
    return jury


def _tail(message: str | None) -> str:
    return f"; stderr: {message}" if message else ""


__all__ = ["TESTLIB_POINTS", "TESTLIB_WRONG", "Jury", "interactive_verdict", "interactor_jury"]
