"""The pure part of a problem's checks (docs/spec.md 2.4, 9.x): the include fence a C++ checker or
validator passes before it is compiled, what of a compiler's message is shown, and the parse of a
Python checker. The compiles and validator runs themselves are an Engine's, in the sandbox
(services/judge/core/checks.py); nothing here runs a program.

The fence: the source may include only standard headers by name and testlib.h (no paths, no computed
includes). A refusal shows only compiler errors located in the checker or our header, so a message
never carries bytes of another file (a toolchain header, or anything the fence missed).
"""

from __future__ import annotations

SHOWN_ERRORS = 8  # compiler error lines shown in the refusal
_PATH_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./+-")


class CheckerDoesNotCompile(ValueError):
    """The checker's source does not compile (or may not be compiled); the message says why."""


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


# where a shown error may be located: the checker (main.cpp, as the sandbox compiles it) and our
# header; an error inside any other file could quote it, so it is never shown
_SHOWN_FILES = ("main.cpp:", "testlib.h:")
# what the runner says of a compile it stopped (services/judge/core/runners.py), shown as it is
_RUNNER_MESSAGES = ("compilation exceeded its", "compiler exit ")
_SANDBOX_DIR = "/tmp/run/"  # the sandbox's working directory, as a message may name it


def shown_errors(output: str) -> str:
    """The compiler's first error lines located in the checker or our header, sandbox paths removed;
    a note when every error is located elsewhere."""
    if output.startswith(_RUNNER_MESSAGES):  # the judge's own words, not the compiler's
        return output.splitlines()[0][:300]
    lines = [line.replace(_SANDBOX_DIR, "") for line in output.splitlines()]
    errors = [line for line in lines if "error:" in line and line.startswith(_SHOWN_FILES)]
    if not errors:
        return "errors in a file other than the checker (not shown)"
    return "\n".join(line[:300] for line in errors[:SHOWN_ERRORS])


def fence(language: str, source: str) -> str | None:
    """Why the source may not be compiled at all (an include the fence refuses), or None."""
    if language != "cpp":
        return None
    unsafe = unsafe_include(source)
    if unsafe is None:
        return None
    return (
        f"{unsafe}: a checker may include standard headers by name and testlib.h only "
        "(no paths, no computed includes)"
    )


def python_errors(source: str) -> str | None:
    """Why a Python checker does not parse, or None (parsed only, never run)."""
    try:
        compile(source, "checker.py", "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as err:
        where = f"checker.py:{err.lineno}: " if getattr(err, "lineno", None) else "checker.py: "
        return f"{where}{type(err).__name__}: {getattr(err, 'msg', err)}"
    except (RecursionError, MemoryError) as err:
        return f"checker.py: nested too deeply to parse ({type(err).__name__})"
    return None


__all__ = [
    "CheckerDoesNotCompile",
    "fence",
    "python_errors",
    "shown_errors",
    "unsafe_include",
]
