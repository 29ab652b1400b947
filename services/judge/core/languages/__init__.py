"""Language definitions beside Python and C++ (services/judge/core/runners.py): one module, one runner each.

Each module defines `RUNNER`, a `CompiledRunner` that says how its language compiles (once per
distinct source, in the sandbox, cached by hash) and how the cached artifact runs per test. Adding a
language is adding a module here and its name to `MODULES`.
"""

from __future__ import annotations

import importlib

MODULES = ("c", "java", "go", "rust", "javascript")


def runners() -> dict:
    out = {}
    for name in MODULES:
        runner = importlib.import_module(f"{__name__}.{name}").RUNNER
        out[runner.language] = runner
    return out
