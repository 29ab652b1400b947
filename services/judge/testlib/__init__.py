"""codefrontier's testlib-compatible checker runtime (SPEC section 2.4): `testlib.h`, written here.

A C++ checker that includes `testlib.h` is a *testlib checker*: it is compiled with our header in
place of the include, run as `checker <input> <program output> <answer>` (testlib's order), and its
exit code read as testlib's (0 ok, 1 wrong answer, 2 presentation error, 3 failure).
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

HEADER_PATH = Path(__file__).with_name("testlib.h")
_INCLUDE_RE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]testlib\.h[">][^\n]*$', re.M)


def is_testlib_checker(source: str) -> bool:
    """A C++ source that includes testlib.h."""
    return _INCLUDE_RE.search(source) is not None


@cache
def _header() -> str:
    return HEADER_PATH.read_text()


def with_header(source: str, file_name: str = "main.cpp") -> str:
    """`source` with our testlib.h in place of its include, as one translation unit.

    The compile in the sandbox sees a single file, so the header goes in where the include was;
    `#line` markers keep the compiler's messages pointing at the checker's own lines (and at
    `testlib.h` for the header's).
    """
    header = _header()

    def _inline(m: re.Match) -> str:
        line = source.count("\n", 0, m.start()) + 1
        return f'#line 1 "testlib.h"\n{header.rstrip()}\n#line {line + 1} "{file_name}"'

    return _INCLUDE_RE.sub(_inline, source)


__all__ = ["HEADER_PATH", "is_testlib_checker", "with_header"]
