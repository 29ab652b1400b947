"""Compile a problem's checker once when the problem is loaded (`frontier problems check`, PUT /problems),
so that a checker that cannot compile refuses the problem instead of failing every submission later.

The compile runs on this host, not in the sandbox (the API process holds no sandbox slot), so it is
fenced in: the source may include only standard headers by name and testlib.h (no paths, no computed
includes: a compiler's error quotes the file it read), g++ only checks it (`-fsyntax-only`: nothing is
assembled or linked), as an unprivileged uid when run as root, with an empty environment, a scratch
directory and CPU, memory, file-size and wall-time limits; only errors located in the checker, our
header or the toolchain's headers are shown. A Python checker is only parsed.

A problem's testlib validator (`validator.cpp`) is compiled the same way but linked, once per build or
check (`frontier problems build` / `check`), and run on each test's input on this host, as the same uid
under the same limits (`validator`).
"""

from __future__ import annotations

import hashlib
import os
import resource
import subprocess
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from services.judge.core import testlib

# the judge's C++ compile (services/judge/core/runners.py CppRunner.compiler, tests/test_testlib_build.py
# keeps the two equal), without -pipe: only checked, never assembled
COMPILER = ("/usr/bin/g++", "-O2", "-std=c++17")

COMPILE_TIMEOUT_S = 60
COMPILE_MEMORY_MB = 2048
NOBODY = 65534
SHOWN_ERRORS = 8  # compiler error lines shown in the refusal
_PATH_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./+-")


class CheckerDoesNotCompile(ValueError):
    """The checker's source does not compile (or may not be compiled here); the message says why."""


def _raw_prefix(source: str, quote: int) -> bool:
    """Whether the identifier-like token just before the quote at `quote` is a raw string's prefix
    (exactly R, u8R, uR, UR or LR; `fooR"..."` is an identifier and an ordinary string)."""
    start = quote
    while start > 0 and (source[start - 1].isalnum() or source[start - 1] == "_"):
        start -= 1
    return source[start:quote] in ("R", "u8R", "uR", "UR", "LR")


def _strip_comments(source: str) -> str:
    """`source` with its comments replaced by spaces (newlines kept), string and character literals
    left as they are, so that directives can be read line by line."""
    out: list[str] = []
    i, n = 0, len(source)
    while i < n:
        c = source[i]
        if c == "/" and source.startswith("//", i):
            while i < n and source[i] != "\n":
                if source[i] == "\\" and i + 1 < n and source[i + 1] == "\n":
                    i += 1  # a line comment continued on the next line
                i += 1
            out.append(" ")
        elif c == "/" and source.startswith("/*", i):
            end = source.find("*/", i + 2)
            end = n if end == -1 else end + 2
            out.append(" " + "\n" * source.count("\n", i, end))
            i = end
        elif c == '"' and _raw_prefix(source, i):
            # a raw string R"delim(...)delim" spans lines and holds anything, comment marks included
            open_paren = source.find("(", i + 1, i + 18)
            if open_paren == -1:
                out.append(c)
                i += 1
                continue
            close = source.find(")" + source[i + 1 : open_paren] + '"', open_paren + 1)
            end = n if close == -1 else close + len(source[i + 1 : open_paren]) + 2
            out.append('"' + "\n" * source.count("\n", i, end) + '"')  # its lines stay, its text goes
            i = end
        elif c in "\"'":
            j = i + 1
            while j < n and source[j] != c and source[j] != "\n":
                j += 2 if source[j] == "\\" else 1
            out.append(source[i : j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def unsafe_include(source: str) -> str | None:
    """The first include that could read a file other than a standard header or testlib.h, or None."""
    # the compiler skips a byte order mark before the first line, and joins lines split by a backslash
    text = _strip_comments(source.removeprefix("\ufeff").replace("\\\r\n", "").replace("\\\n", ""))
    for number, line in enumerate(text.splitlines(), 1):
        rest = line.lstrip(" \t\f\v")
        if rest.startswith("%:"):
            rest = rest[2:]
        elif rest.startswith("#"):
            rest = rest[1:]
        else:
            continue
        rest = rest.lstrip(" \t\f\v")
        word = rest[: len(rest) - len(rest.lstrip("abcdefghijklmnopqrstuvwxyz_"))]
        if word not in ("include", "include_next", "import"):
            continue
        target = rest[len(word) :].strip(" \t\f\v")
        if word == "include" and target in ('"testlib.h"', "<testlib.h>"):
            continue
        name = (
            target[1:-1] if len(target) >= 2 and (target[0], target[-1]) in (("<", ">"), ('"', '"')) else None
        )
        plain = (
            name is not None
            and target[0] == "<"
            and word == "include"
            and name
            and not name.startswith("/")
            and ".." not in name.split("/")
            and set(name) <= _PATH_CHARS
        )
        if not plain:
            return f"line {number}: #{word} {target[:80]}"
    return None


def _limits() -> None:  # pragma: no cover - runs in the child
    resource.setrlimit(resource.RLIMIT_CPU, (COMPILE_TIMEOUT_S, COMPILE_TIMEOUT_S))
    resource.setrlimit(resource.RLIMIT_AS, (COMPILE_MEMORY_MB << 20, COMPILE_MEMORY_MB << 20))
    resource.setrlimit(resource.RLIMIT_FSIZE, (64 << 20, 64 << 20))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    os.setsid()
    if os.geteuid() == 0:
        os.setgroups([])
        os.setgid(NOBODY)
        os.setuid(NOBODY)


# where a shown error may be located: the checker, our header, the toolchain's own (public) headers; an
# error inside any other file could quote it, so it is never shown
_SHOWN_FILES = ("main.cpp:", "testlib.h:", "/usr/")


def _first_errors(output: str, work: str) -> str:
    lines = [line.replace(work + "/", "") for line in output.splitlines()]
    errors = [line for line in lines if "error:" in line and line.startswith(_SHOWN_FILES)]
    if not errors and any("error:" in line for line in lines):
        return "errors in a file other than the checker (not shown)"
    return "\n".join(line[:300] for line in errors[:SHOWN_ERRORS])


def compile_errors(language: str, source: str, *, latin1: bool = False) -> str | None:
    """Why the checker does not compile (the compiler's first errors), or None when it does."""
    if language == "python":
        try:
            compile(source, "checker.py", "exec", dont_inherit=True)
        except (SyntaxError, ValueError) as err:
            where = f"checker.py:{err.lineno}: " if getattr(err, "lineno", None) else "checker.py: "
            return f"{where}{type(err).__name__}: {getattr(err, 'msg', err)}"
        return None
    if language != "cpp":
        return f"no compiler for a {language!r} checker"
    unsafe = unsafe_include(source)
    if unsafe is not None:
        return (
            f"{unsafe}: a checker may include standard headers by name and testlib.h only "
            "(no paths, no computed includes)"
        )
    if testlib.is_testlib_checker(source):
        source = testlib.with_header(source, latin1=latin1)
    with tempfile.TemporaryDirectory(prefix="frontier-checker-") as work:
        os.chmod(work, 0o755)
        main = Path(work) / "main.cpp"
        main.write_text(source, encoding="utf-8")
        os.chmod(main, 0o644)
        try:
            run = subprocess.run(
                [*COMPILER, "-fsyntax-only", "main.cpp"],
                cwd=work,
                env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"},
                capture_output=True,
                timeout=COMPILE_TIMEOUT_S * 2,
                preexec_fn=_limits,
                stdin=subprocess.DEVNULL,
            )
        except subprocess.TimeoutExpired:
            return f"the compiler ran past {COMPILE_TIMEOUT_S * 2} s"
        except OSError as err:
            return f"the compiler could not start: {err}"
        if run.returncode == 0:
            return None
        output = run.stderr.decode("utf-8", "replace")
        return _first_errors(output, work) or f"the compiler exited {run.returncode}"


# each distinct checker is compiled once per process: (language, latin1, sha256) -> its errors or None
_SEEN: OrderedDict[tuple[str, bool, str], str | None] = OrderedDict()
_SEEN_LOCK = threading.Lock()
_SEEN_MAX = 512


def check_checker(language: str, source: str, *, latin1: bool = False) -> None:
    """Raise `CheckerDoesNotCompile` with the compiler's first errors unless the checker compiles."""
    key = (language, latin1, hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest())
    with _SEEN_LOCK:
        known = key in _SEEN
        errors = _SEEN.get(key)
    if not known:
        errors = compile_errors(language, source, latin1=latin1)
        with _SEEN_LOCK:
            _SEEN[key] = errors
            while len(_SEEN) > _SEEN_MAX:
                _SEEN.popitem(last=False)
    if errors is not None:
        raise CheckerDoesNotCompile(f"checker does not compile: {errors}")


def check_problem(problem) -> None:
    """`check_checker` for a loaded problem (store.Problem)'s program checker and interactor, if any."""
    checker = problem.spec.checker
    if getattr(checker, "type", None) == "program" and problem.checker_source is not None:
        check_checker(checker.language, problem.checker_source, latin1=problem.checker_latin1)
    interactor = getattr(problem.spec, "interactor", None)
    if interactor is not None and problem.interactor_source is not None:
        try:
            check_checker(interactor.language, problem.interactor_source)
        except CheckerDoesNotCompile as err:
            raise CheckerDoesNotCompile(
                str(err).replace("checker does not", "interactor does not", 1)
            ) from None


# ----------------------------------------------------------------------------------------- validators

VALIDATOR_NAME = "validator.cpp"  # a problem directory's testlib validator (registerValidation)
VALIDATOR_TIMEOUT_S = 60


@contextmanager
def validator(source: str, *, latin1: bool = False) -> Iterator[Callable[[bytes], str | None]]:
    """A testlib validator compiled once (fenced as above, but linked): yields `validate(input)`, which
    runs it on one test's input (its stdin) and gives None when it accepts, else its message."""
    unsafe = unsafe_include(source)
    if unsafe is not None:
        raise CheckerDoesNotCompile(
            f"validator: {unsafe}: only standard headers and testlib.h may be included"
        )
    source = testlib.cpp_source(source, latin1=latin1)
    with tempfile.TemporaryDirectory(prefix="frontier-validator-") as work:
        os.chmod(work, 0o755)
        if os.geteuid() == 0:
            os.chown(work, NOBODY, NOBODY)  # the compile, as nobody, writes the binary here
        (Path(work) / "main.cpp").write_text(source, encoding="utf-8")
        os.chmod(Path(work) / "main.cpp", 0o644)
        try:
            run = subprocess.run(
                [*COMPILER, "-o", "validator", "main.cpp"],
                cwd=work,
                env={"PATH": "/usr/bin:/bin", "LC_ALL": "C", "TMPDIR": work},
                capture_output=True,
                timeout=COMPILE_TIMEOUT_S * 2,
                preexec_fn=_limits,
                stdin=subprocess.DEVNULL,
            )
        except subprocess.TimeoutExpired:
            raise CheckerDoesNotCompile(
                f"validator: the compiler ran past {COMPILE_TIMEOUT_S * 2} s"
            ) from None
        if run.returncode != 0:
            errors = _first_errors(run.stderr.decode("utf-8", "replace"), work)
            raise CheckerDoesNotCompile(f"validator does not compile: {errors}")
        binary = str(Path(work) / "validator")

        def validate(input_bytes: bytes) -> str | None:
            try:
                done = subprocess.run(
                    [binary],
                    input=input_bytes,
                    cwd=work,
                    env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"},
                    capture_output=True,
                    timeout=VALIDATOR_TIMEOUT_S,
                    preexec_fn=_limits,
                )
            except subprocess.TimeoutExpired:
                return f"the validator ran past {VALIDATOR_TIMEOUT_S} s"
            if done.returncode == 0:
                return None
            lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
            return (lines[-1][:500] if lines else "") or f"the validator exited {done.returncode}"

        yield validate


__all__ = [
    "VALIDATOR_NAME",
    "CheckerDoesNotCompile",
    "check_checker",
    "check_problem",
    "compile_errors",
    "unsafe_include",
    "validator",
]
