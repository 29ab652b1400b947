"""Python 3: no compile step; each test forks the slot's warm interpreter (syntax errors surface on the
first run as CE), and a functional problem's `class Solution` is driven by a wrapper."""

from __future__ import annotations

import platform

from services.judge.core.languages.base import Language, TestProgram

LANGUAGE = Language(
    name="python",
    extensions=(".py",),
    fences=("python", "py", "python3", "py3"),
    judge0_ids=(71, 92, 100),
    judge0_name=f"Python ({platform.python_version()})",
    sandboxfusion=("python", "python3"),
    test_program=TestProgram("a, b = map(int, input().split())\nprint(a + b)\n", "2 40\n", "42\n"),
)
