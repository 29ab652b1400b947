"""codefrontier's testlib-compatible checker runtime (SPEC section 2.4): `testlib.h`, written here.

A C++ checker that includes `testlib.h` is a *testlib checker*: it is compiled with our header in
place of the include, run as `checker <input> <program output> <answer>` (testlib's order), and its
exit code read as testlib's (0 ok, 1 wrong answer, 2 presentation error, 3 failure, 7 points).

A points verdict (`quitp(p, ...)`) is read from the last line of the checker's stderr, which our
header always writes last and on one line: `points <p> <message>`. `p` is the fraction of the test
earned, clamped to 0..1 (testlib's points have no scale: pointscmp gives the participant's number):
1 or more is `AC`, less is `WA` with `points` set; no number (`quitpi`'s `points_info=...`, nan) is
the checker's failure.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from services.judge.core.verdicts import Verdict
from services.problems.spec import TESTLIB_INCLUDE_RE, is_testlib_checker

HEADER_PATH = Path(__file__).with_name("testlib.h")
POINTS_EXIT_CODE = 7
# a premature end of the answer, for a checker built with ENABLE_UNEXPECTED_EOF (else it is exit 2)
UNEXPECTED_EOF_EXIT_CODE = 8
# how much of a points verdict's stderr is read: its line is at most testlib's 32000-byte message
VERDICT_TAIL_BYTES = 33000


@cache
def _header() -> str:
    return HEADER_PATH.read_text()


def bytes_as_escapes(source: str) -> str:
    """A Latin-1-held 8-bit source (store.Problem.checker_latin1) as ASCII for the compiler: each byte
    above 127 as an octal escape, which in a string or character literal is that very byte again and
    in a comment is only text."""
    return "".join(f"\\{ord(c):03o}" if 127 < ord(c) < 256 else c for c in source)


def cpp_source(source: str, *, latin1: bool = False) -> str:
    """What the judge compiles for a C++ checker: its bytes restored, testlib.h inlined if it uses it."""
    if latin1:
        source = bytes_as_escapes(source)
    return with_header(source) if is_testlib_checker(source) else source


def with_header(source: str, file_name: str = "main.cpp", *, latin1: bool = False) -> str:
    """`source` with our testlib.h in place of its include, as one translation unit.

    The compile in the sandbox sees a single file, so the header goes in where the include was;
    `#line` markers keep the compiler's messages pointing at the checker's own lines (and at
    `testlib.h` for the header's).
    """
    if latin1:
        source = bytes_as_escapes(source)
    source = source.removeprefix(
        "\ufeff"
    )  # a BOM (Polygon's editors write one) would hide a first-line include
    header = _header()

    def _inline(m: re.Match) -> str:
        line = source.count("\n", 0, m.start()) + 1
        return f'#line 1 "testlib.h"\n{header.rstrip()}\n#line {line + 1} "{file_name}"'

    return TESTLIB_INCLUDE_RE.sub(_inline, source)


def _points(text: str) -> float | None:
    """A decimal number as testlib prints one (`%.10f` trimmed, or `%d`); None otherwise."""
    digits = text.removeprefix("-")
    if not digits or len(digits) > 400 or not all(c.isascii() and (c.isdigit() or c == ".") for c in digits):
        return None
    if digits.count(".") > 1 or digits.startswith(".") or digits.endswith("."):
        return None
    return float(text)


def points_verdict(stderr_tail: str) -> tuple[Verdict, str | None, float] | tuple[Verdict, str]:
    """The verdict of a testlib checker that exited with `POINTS_EXIT_CODE`, from its stderr's end:
    (AC or WA, message, points) for a score, else (CHECKER_ERROR, why). testlib's points have no
    scale (pointscmp gives the participant's own number): a score is clamped to the fraction of the
    test, 0..1, so 1 or more is AC with points 1, and 0 or less WA with points 0."""
    lines = [line for line in stderr_tail.splitlines() if line.strip()]
    last = lines[-1].strip() if lines else ""
    words = last.split(" ", 2)
    if len(words) < 2 or words[0] != "points":
        return Verdict.CHECKER_ERROR, "checker exited with testlib's points code without a points verdict"
    if words[1].startswith("points_info="):
        return Verdict.CHECKER_ERROR, f"checker gave points_info and no score (quitpi): {last[:400]}"
    points = _points(words[1])
    if points is None:
        return Verdict.CHECKER_ERROR, f"checker's points {words[1][:40]!r} are not a number: {last[:400]}"
    points = min(1.0, max(0.0, points))
    return (Verdict.AC if points == 1.0 else Verdict.WA), last[:500], points


__all__ = [
    "HEADER_PATH",
    "POINTS_EXIT_CODE",
    "UNEXPECTED_EOF_EXIT_CODE",
    "VERDICT_TAIL_BYTES",
    "bytes_as_escapes",
    "cpp_source",
    "points_verdict",
    "with_header",
]
