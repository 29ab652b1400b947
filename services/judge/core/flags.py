"""The compiler options a caller may add to a compile (the compat APIs' compiler_options): each
language's allow-list (its `allow_flag`, services/judge/core/languages), none for a language without
one. Pure rules, checked by the API before a run is queued and by the runner before it compiles.

The options are the caller's text: an allow-list is linear in the option (RE2 for C++, plain string
tests for C), and the options of one compile are at most MAX_FLAGS_CHARS characters together (the
Judge0 field's own limit), so a check costs work linear in at most that many characters."""

from __future__ import annotations

from collections.abc import Sequence

from services.judge.core.languages import LANGUAGES

COMPILE_TIMED_OUT = "compilation exceeded its time limit"  # how a timed-out compile's message starts

# the languages that compile (or bundle) once before their tests run, so a compile limit is part of
# their cost (the start rule, docs/spec.md 6.7); the API reads it without loading the runners, and
# tests/stack/test_deadlines.py checks it against them
COMPILED_LANGUAGES = frozenset(name for name, language in LANGUAGES.items() if language.compiled)

# the most characters a compile's caller-given options may hold together (Judge0's compiler_options
# field takes as many, docs/spec.md); `check_flags` refuses more before it matches any
MAX_FLAGS_CHARS = 512


def flag_refused(flag: str) -> ValueError:
    """The refusal of a compiler option outside a language's allow-list."""
    return ValueError(
        f"compiler option {flag!r} is not allowed: optimisation (-O...), -std=, -D/-U macros, "
        "warnings (-w, -W...), -g, -pedantic, -pthread, -lm and a few -f code-generation options"
    )


def check_flags(language: str, flags: Sequence[str]) -> None:
    """ValueError unless every compiler flag is one `language` lets a caller add, and all of them
    together hold at most MAX_FLAGS_CHARS characters (checked first, so no more is ever matched)."""
    size = sum(len(f) for f in flags)
    if size > MAX_FLAGS_CHARS:
        raise ValueError(
            f"compiler options of {size} characters: at most {MAX_FLAGS_CHARS} together are accepted"
        )
    allowed = LANGUAGES[language].allow_flag if language in LANGUAGES else None
    if allowed is None:
        if flags:
            raise ValueError(f"{language} takes no compiler options")
        return
    refused = [f for f in flags if not allowed(f)]
    if refused:
        raise flag_refused(refused[0])
