"""Functional (LeetCode-style) problems: the driver that calls `Solution().<function>(*args)`.

A test input holds one JSON value per line (the arguments); the expected output is one JSON value.
The driver is plain source text so that the sandbox's warm interpreter can run it without importing
this package (the sandbox sees no project files); `run_functional` runs the same text in-process for
trusted code such as reference solutions.
"""

from __future__ import annotations

import json

import re2

from services.problems.ints import any_int_size

# Runs with `__fc_source__` and `__fc_function__` bound. The program's own prints go to stderr so they
# cannot corrupt the answer; the answer is the single JSON line written to the real stdout. Input lines
# end at "\n" only (str.splitlines() also splits at U+2028 and U+0085, which valid JSON may hold), and
# integers of any size are read and written (the int digit limit is lifted in the sandbox: the program
# pays for its own big numbers). The driver ends the run itself: what `wrap` appends after it is there
# to be compiled, never run.
DRIVER_SOURCE = r"""
import json as __fc_json, sys as __fc_sys
__fc_sys.set_int_max_str_digits(0)
__fc_out = __fc_sys.stdout
__fc_args = [__fc_json.loads(__fc_line) for __fc_line in __fc_sys.stdin.read().split("\n") if __fc_line.strip()]
__fc_sys.stdout = __fc_sys.stderr
__fc_ns = {"__name__": "__solution__"}
exec(compile(__fc_source__, "<solution>", "exec"), __fc_ns)
if "Solution" not in __fc_ns:
    raise NameError("the program defines no class Solution")
__fc_result = getattr(__fc_ns["Solution"](), __fc_function__)(*__fc_args)
__fc_sys.stdout = __fc_out
__fc_out.write(__fc_json.dumps(__fc_result, separators=(",", ":")) + "\n")
raise SystemExit(0)
"""

# names a LeetCode-style solution expects without importing them
PRELUDE = "from typing import *\nfrom collections import *\nfrom heapq import *\nfrom bisect import *\nfrom itertools import *\nfrom functools import *\nimport math\n"


def wrap(source: str, function: str) -> str:
    """The full program the sandbox runs for a functional submission.

    The solution's text is also appended after the driver, which exits before reaching it: the
    sandbox compiles the whole program before it runs, so a syntax error in the solution is a
    compile error (CE) like any Python program's, not a runtime error on every test."""
    text = PRELUDE + source
    return f"__fc_source__ = {text!r}\n__fc_function__ = {function!r}\n" + DRIVER_SOURCE + text + "\n"


# lines of the wrapped program before the appended solution text (the two bindings, then the driver)
WRAPPED_LINES = 2 + DRIVER_SOURCE.count("\n")
_WRAPPED_LINE = re2.compile(r'File "solution\.py", line (\d{1,9})\b')


def solution_lines(compile_output: str) -> str:
    """A functional program's compile error with its line numbers in the solution's text (PRELUDE
    included, as "<solution>", the name runtime errors carry; feedback maps both to solution.py)."""

    def line(m) -> str:
        n = int(m.group(1)) - WRAPPED_LINES
        return f'File "<solution>", line {n}' if n > 0 else m.group(0)

    return _WRAPPED_LINE.sub(line, compile_output)


def run_functional(source: str, function: str, input_text: str) -> str:
    """Call the solution in this process (trusted code only: reference solutions)."""
    with any_int_size():  # a reference may take or return integers of any size
        args = [json.loads(line) for line in input_text.split("\n") if line.strip()]
        ns: dict = {"__name__": "__solution__"}
        exec(compile(PRELUDE + source, "<solution>", "exec"), ns)
        result = getattr(ns["Solution"](), function)(*args)
        return json.dumps(result, separators=(",", ":")) + "\n"
