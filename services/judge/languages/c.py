"""C: `gcc -O2 -std=gnu17 -lm`, a native binary run as C++'s is."""

from __future__ import annotations

import re
from dataclasses import dataclass

from services.judge.runners import CompiledRunner

# compiler options a caller may add (the compat APIs' compiler_options), each matched whole: as C++'s
C_FLAGS = re.compile(
    r"-O[0-3sg]|-Ofast|-std=(c|gnu)(89|90|99|11|17|18|2x|23)"
    r"|-[DU][A-Za-z_][A-Za-z0-9_]*(=[A-Za-z0-9_.+-]*)?|-w|-W[a-z][a-z0-9-]*|-g[0-3]?"
    r"|-pedantic(-errors)?|-pthread|-lm"
    r"|-f(no-)?(strict-aliasing|unroll-loops|omit-frame-pointer|wrapv|trapv|inline)"
)


@dataclass
class CRunner(CompiledRunner):
    language: str = "c"
    compiler: tuple[str, ...] = ("/usr/bin/gcc", "-O2", "-std=gnu17", "-pipe")
    source: str = "main.c"
    flag_pattern: re.Pattern | None = C_FLAGS

    def build(self, compiler, source):
        return [*compiler, "-o", self.artifact, source, "-lm"]  # libraries after the objects


RUNNER = CRunner()
