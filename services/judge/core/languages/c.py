"""C: `gcc -O2 -std=gnu17 -lm`, a native binary run as C++'s is."""

from __future__ import annotations

from dataclasses import dataclass

from services.judge.core.runners import CompiledRunner


@dataclass
class CRunner(CompiledRunner):
    language: str = "c"
    compiler: tuple[str, ...] = ("/usr/bin/gcc", "-O2", "-std=gnu17", "-pipe")
    source: str = "main.c"

    def build(self, compiler, source):
        return [*compiler, "-o", self.artifact, source, "-lm"]  # libraries after the objects


RUNNER = CRunner()
