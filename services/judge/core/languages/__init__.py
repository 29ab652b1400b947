"""The languages a submission may be written in: one module each, read from this folder.

Each module declares `LANGUAGE`, a `Language` (base.py): its name, file extensions, fence tags, Judge0
ids and name, SandboxFusion names, compile step, compiler-option allow-list and a test program.
Adding a language is adding a module here; every table of the judge (the runners, code extraction,
the CLI's extensions, the Judge0 and SandboxFusion formats, the start rule) is read from `LANGUAGES`.
Pure: importing this runs no program (services/judge/core/runners.py builds the runners).
"""

from __future__ import annotations

import importlib
import pkgutil

from services.judge.core.languages.base import Language, TestProgram

__all__ = ["LANGUAGES", "Language", "TestProgram", "check_language"]


def _read() -> dict[str, Language]:
    found: dict[str, Language] = {}
    for module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
        if module == "base":
            continue
        language = importlib.import_module(f"{__name__}.{module}").LANGUAGE
        if language.name in found:
            raise ValueError(f"two language modules declare {language.name!r}")
        found[language.name] = language
    return found


# by name, in name order
LANGUAGES: dict[str, Language] = _read()


def check_language(name: str) -> str:
    """`name` when a language of this judge has it; a ValueError listing the languages else."""
    if name not in LANGUAGES:
        raise ValueError(f"unsupported language {name!r}; supported: {', '.join(LANGUAGES)}")
    return name
