"""Languages. A runner turns source into something a slot can run once per test.

Adding a language is one small class: `prepare` (compile once per distinct source, cached by hash)
and the `Prepared` it returns (what to run per test). Interpreted languages can fork a warm
interpreter like Python does; compiled ones execve a cached binary like C++ does.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

from services.judge.functional import wrap
from services.judge.sandbox.slot import RunSpec, Slot
from services.settings import Settings


@dataclass(frozen=True)
class Prepared:
    kind: str  # "python" | "exec" (see RunSpec)
    code: str | None = None
    argv: tuple[str, ...] = ()


@dataclass(frozen=True)
class CompileFailed:
    message: str


class Runner:
    language: str

    def prepare(
        self, slot: Slot, code: str, settings: Settings, function: str | None = None
    ) -> Prepared | CompileFailed:
        raise NotImplementedError


class PythonRunner(Runner):
    """Forks the slot's warm interpreter; syntax errors surface on the first run as CE."""

    language = "python"

    def prepare(self, slot, code, settings, function=None):
        return Prepared(kind="python", code=wrap(code, function) if function else code)


@dataclass
class CppRunner(Runner):
    """`g++ -O2 -std=c++17`, compiled inside the sandbox once per distinct source."""

    language = "cpp"
    compiler: tuple[str, ...] = ("/usr/bin/g++", "-O2", "-std=c++17", "-pipe")
    _failures: OrderedDict = field(default_factory=OrderedDict)

    def prepare(self, slot, code, settings, function=None):
        if function:
            return CompileFailed("functional (class Solution) problems take Python submissions")
        digest = hashlib.sha256("\0".join((*self.compiler, code)).encode()).hexdigest()
        binary = Path(slot.bin_dir) / digest
        prepared = Prepared(kind="exec", argv=(f"/bincache/{digest}",))
        if binary.exists():
            return prepared
        if digest in self._failures:
            return CompileFailed(self._failures[digest])
        result = slot.run(
            RunSpec(
                kind="exec",
                argv=[*self.compiler, "-o", "main", "main.cpp"],
                source_file=("main.cpp", code),
                keep=("main", f"/bincache/{digest}"),
                time_limit_ms=settings.compile_time_limit_ms,
                memory_limit_mb=settings.compile_memory_limit_mb,
                wall_limit_ms=settings.compile_time_limit_ms * 2,
                output_limit_bytes=64 << 20,
                pids_max=settings.pids_max,
                open_files_max=settings.open_files_max,
            )
        )
        if result.exit_code == 0 and binary.exists():
            return prepared
        if result.cpu_killed or result.wall_killed:
            message = "compilation exceeded its time limit"
        elif result.oom_killed:
            message = "compilation exceeded its memory limit"
        else:
            message = result.stderr_text(settings.stderr_keep_bytes) or f"compiler exit {result.exit_code}"
        self._failures[digest] = message
        while len(self._failures) > 1024:
            self._failures.popitem(last=False)
        return CompileFailed(message)


RUNNERS: dict[str, Runner] = {"python": PythonRunner(), "cpp": CppRunner()}
