"""The compiler options a caller may add to a compile (the compat APIs' compiler_options), per language:
C++'s and C's allow-lists, none for the others. Pure rules, checked by the API before a run is queued
and by the runner before it compiles.

The options are the caller's text: C++'s allow-list is an RE2 pattern (linear in the option, bounded
memory, whatever the pattern), C's plain string tests, and the options of one compile are at most
MAX_FLAGS_CHARS characters together (the Judge0 field's own limit), so a check costs work linear in at
most that many characters."""

from __future__ import annotations

import string
from collections.abc import Sequence

import re2

COMPILE_TIMED_OUT = "compilation exceeded its time limit"  # how a timed-out compile's message starts

# the languages that compile (or bundle) once before their tests run, so a compile limit is part of
# their cost (the start rule, docs/spec.md 6.7); the API reads it without loading the runners, and
# tests/test_deadlines.py checks it against them
COMPILED_LANGUAGES = frozenset({"c", "cpp", "go", "java", "javascript", "rust"})

# the most characters a compile's caller-given options may hold together (Judge0's compiler_options
# field takes as many, docs/spec.md); `check_flags` refuses more before it matches any
MAX_FLAGS_CHARS = 512

# compiler options a caller may add to a C++ compile (the compat APIs' compiler_options): each must
# match whole; nothing that names a file (-o, -include, @file, -B, -specs), a plugin or the linker.
# RE2, not `re`: the option is untrusted text, and RE2 matches in time linear in it for any pattern
CPP_FLAGS = re2.compile(
    r"-O[0-3sg]|-Ofast|-std=(c|gnu)\+\+(98|03|11|14|17|20|23|26|2a|2b|2c)"
    r"|-[DU][A-Za-z_][A-Za-z0-9_]*(=[A-Za-z0-9_.+-]*)?|-w|-W[a-z][a-z0-9-]*|-g[0-3]?"
    r"|-pedantic(-errors)?|-pthread|-lm"
    r"|-f(no-)?(exceptions|rtti|strict-aliasing|unroll-loops|omit-frame-pointer|wrapv|trapv|inline)"
)


def flag_refused(flag: str) -> ValueError:
    """The refusal of a compiler option outside C's and C++'s allow-lists (CPP_FLAGS, c_allowed)."""
    return ValueError(
        f"compiler option {flag!r} is not allowed: optimisation (-O...), -std=, -D/-U macros, "
        "warnings (-w, -W...), -g, -pedantic, -pthread, -lm and a few -f code-generation options"
    )


# C's allow-list, as C++'s
_IDENT = set(string.ascii_letters + string.digits + "_")
_VALUE = _IDENT | set(".+-")
_STDS = {f"-std={d}{v}" for d in ("c", "gnu") for v in ("89", "90", "99", "11", "17", "18", "2x", "23")}
_F = {"strict-aliasing", "unroll-loops", "omit-frame-pointer", "wrapv", "trapv", "inline"}
_EXACT = {"-Ofast", "-w", "-g", "-pedantic", "-pedantic-errors", "-pthread", "-lm"} | _STDS


def c_allowed(flag: str) -> bool:
    """A compiler option a caller may add (the compat APIs' compiler_options), matched whole, as
    C++'s allow-list: nothing that names a file (-o, -include, @file, -B, -specs), a plugin or the
    linker. Plain string tests, no pattern engine, linear in the flag."""
    if flag in _EXACT:
        return True
    head, rest = flag[:2], flag[2:]
    if head == "-O":
        return len(rest) == 1 and rest in "0123sg"
    if head == "-g":
        return len(rest) == 1 and rest in "0123"
    if head in ("-D", "-U"):
        name, eq, value = rest.partition("=")
        return (
            bool(name)
            and name[0] not in string.digits
            and set(name) <= _IDENT
            and (not eq or set(value) <= _VALUE)
        )
    if head == "-W":
        return (
            bool(rest)
            and rest[0] in string.ascii_lowercase
            and set(rest) <= set(string.ascii_lowercase + string.digits + "-")
        )
    if head == "-f":
        return rest.removeprefix("no-") in _F
    return False


def check_flags(language: str, flags: Sequence[str]) -> None:
    """ValueError unless every compiler flag is one `language` lets a caller add, and all of them
    together hold at most MAX_FLAGS_CHARS characters (checked first, so no more is ever matched)."""
    size = sum(len(f) for f in flags)
    if size > MAX_FLAGS_CHARS:
        raise ValueError(
            f"compiler options of {size} characters: at most {MAX_FLAGS_CHARS} together are accepted"
        )
    if language == "cpp":
        refused = [f for f in flags if not CPP_FLAGS.fullmatch(f)]
    elif language == "c":
        refused = [f for f in flags if not c_allowed(f)]
    elif flags:
        raise ValueError(f"{language} takes no compiler options")
    else:
        refused = []
    if refused:
        raise flag_refused(refused[0])
