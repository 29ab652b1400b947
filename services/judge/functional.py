"""Functional (LeetCode-style) problems: the driver that calls `Solution().<function>(*args)`.

A test input holds one JSON value per line (the arguments); the expected output is one JSON value.
The driver is plain source text so that the sandbox's warm interpreter can run it without importing
this package (the sandbox sees no project files); `run_functional` runs the same text in-process for
trusted code such as reference solutions.
"""

from __future__ import annotations

import json

# Runs with `__fc_source__` and `__fc_function__` bound. The program's own prints go to stderr so they
# cannot corrupt the answer; the answer is the single JSON line written to the real stdout.
DRIVER_SOURCE = r"""
import json as __fc_json, sys as __fc_sys
__fc_out = __fc_sys.stdout
__fc_args = [__fc_json.loads(__fc_line) for __fc_line in __fc_sys.stdin.read().splitlines() if __fc_line.strip()]
__fc_sys.stdout = __fc_sys.stderr
__fc_ns = {"__name__": "__solution__"}
exec(compile(__fc_source__, "<solution>", "exec"), __fc_ns)
if "Solution" not in __fc_ns:
    raise NameError("the program defines no class Solution")
__fc_result = getattr(__fc_ns["Solution"](), __fc_function__)(*__fc_args)
__fc_sys.stdout = __fc_out
__fc_out.write(__fc_json.dumps(__fc_result, separators=(",", ":")) + "\n")
"""

# names a LeetCode-style solution expects without importing them
PRELUDE = "from typing import *\nfrom collections import *\nfrom heapq import *\nfrom bisect import *\nfrom itertools import *\nfrom functools import *\nimport math\n"


def wrap(source: str, function: str) -> str:
    """The full program the sandbox runs for a functional submission."""
    return f"__fc_source__ = {PRELUDE + source!r}\n__fc_function__ = {function!r}\n" + DRIVER_SOURCE


def run_functional(source: str, function: str, input_text: str) -> str:
    """Call the solution in this process (trusted code only: reference solutions)."""
    args = [json.loads(line) for line in input_text.splitlines() if line.strip()]
    ns: dict = {"__name__": "__solution__"}
    exec(compile(PRELUDE + source, "<solution>", "exec"), ns)
    result = getattr(ns["Solution"](), function)(*args)
    return json.dumps(result, separators=(",", ":")) + "\n"
