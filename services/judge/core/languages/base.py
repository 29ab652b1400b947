"""What a language is: the one declaration (`Language`) each module of this folder makes.

Pure data and pure argv rules; nothing here runs a program. services/judge/core/runners.py turns each
declaration into a runner (compile once per distinct source in the sandbox, run per test); the API,
the compat wire formats, code extraction and the CLI read the same declarations without loading it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class TestProgram:
    """A small program in the language with its stdin and the stdout it must print: the tests judge
    it for every registered language (tests/stack/test_languages.py)."""

    __test__ = False  # not a pytest class
    source: str
    stdin: str
    stdout: str


@dataclass(frozen=True)
class Language:
    """Everything the judge must know of one language.

    `compiler` None means the source runs in the slot's warm Python interpreter (Python itself); a
    compiled language compiles inside the sandbox once per distinct source (cached by hash,
    docs/spec.md 3.1): `build` is the argv run in the sandbox's working directory, where the source is
    `source_name(code)`; it leaves one file, `artifact`, and `command` runs the cached artifact per
    test. `compiler` names the toolchain and its fixed options: it is part of the cache key, so
    changing it recompiles. A language that needs other argv overrides those methods in a subclass.
    """

    name: str  # the `language` of a submission
    extensions: tuple[str, ...]  # a source file's (lower case, with the dot): the CLI's guess
    fences: tuple[str, ...]  # markdown fence tags of a block in this language (lower case)
    judge0_ids: tuple[int, ...]  # Judge0's language ids (1.13 and 1.14) this language serves
    judge0_name: str  # the name GET /languages gives them
    sandboxfusion: tuple[str, ...]  # SandboxFusion's `language` values this language serves
    test_program: TestProgram
    compiler: tuple[str, ...] | None = None
    source: str = "main"
    artifact: str = "main"
    # the compiler options a caller may add (the compat APIs' compiler_options), each matched whole;
    # None: the language takes none (services/judge/core/flags.py checks them)
    allow_flag: Callable[[str], bool] | None = None
    # a system header the runner precompiles once per flag set (GCC's `<header>.gch`, found first on
    # an include directory given to each compile): None, none
    precompiled_header: str | None = None

    @property
    def compiled(self) -> bool:
        """Compiled (or bundled) once before its tests run, so a compile limit is part of its cost
        (the start rule, docs/spec.md 6.7)."""
        return self.compiler is not None

    def source_name(self, code: str) -> str:
        """The file the source is written to (Java names it after its public class)."""
        return self.source

    def build(self, compiler: Sequence[str], source: str) -> list[str]:
        """The compile's argv, `compiler` being this language's own with the caller's options after it."""
        return [*compiler, "-o", self.artifact, source]

    def command(self, pinned: str, memory_limit_mb: int) -> tuple[str, ...]:
        """The argv of one run of the cached artifact, as the sandbox sees it."""
        return (pinned,)

    def tools(self) -> tuple[str, ...]:
        """The host files this language needs (bound read-only into the sandbox with /usr)."""
        return tuple(a for a in (*(self.compiler or ()), *self.command("", 0)) if a.startswith("/usr/"))
