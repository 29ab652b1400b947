"""Output comparison (SPEC section 2): `exact`, `tokens`, `float`, and JSON values for functional problems.

Pure functions on bytes; the `program` checker runs in the sandbox and lives in the engine.
"""

from __future__ import annotations

import json
import math


def _lines_normalized(data: bytes) -> list[bytes]:
    lines = [line.rstrip() for line in data.split(b"\n")]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def exact(expected: bytes, actual: bytes) -> bool:
    """Byte-equal after stripping trailing whitespace at line ends and trailing blank lines."""
    return _lines_normalized(expected) == _lines_normalized(actual)


def tokens(expected: bytes, actual: bytes) -> bool:
    """Equal as whitespace-separated token sequences."""
    return expected.split() == actual.split()


def _number(tok: bytes) -> float | None:
    try:
        value = float(tok)
    except ValueError:
        return None
    return value


def floats_close(expected: float, actual: float, abs_tol: float, rel_tol: float) -> bool:
    if math.isnan(expected) or math.isnan(actual):
        return math.isnan(expected) and math.isnan(actual)
    return math.isclose(actual, expected, rel_tol=rel_tol, abs_tol=abs_tol)


def float_tokens(expected: bytes, actual: bytes, abs_tol: float = 1e-6, rel_tol: float = 1e-6) -> bool:
    """Token-wise: numeric tokens equal within abs_tol or rel_tol, other tokens exactly."""
    exp, act = expected.split(), actual.split()
    if len(exp) != len(act):
        return False
    for e, a in zip(exp, act, strict=True):
        if e == a:
            continue
        ev, av = _number(e), _number(a)
        if ev is None or av is None or not floats_close(ev, av, abs_tol, rel_tol):
            return False
    return True


def _json_equal(e, a, abs_tol: float, rel_tol: float) -> bool:
    if isinstance(e, bool) or isinstance(a, bool):
        return type(e) is type(a) and e == a
    if isinstance(e, int | float) and isinstance(a, int | float):
        return floats_close(float(e), float(a), abs_tol, rel_tol)
    if isinstance(e, list) and isinstance(a, list):
        return len(e) == len(a) and all(
            _json_equal(x, y, abs_tol, rel_tol) for x, y in zip(e, a, strict=True)
        )
    if isinstance(e, dict) and isinstance(a, dict):
        return e.keys() == a.keys() and all(_json_equal(e[k], a[k], abs_tol, rel_tol) for k in e)
    return e == a


def json_value(expected: bytes, actual: bytes, abs_tol: float = 1e-6, rel_tol: float = 1e-6) -> bool:
    """Functional problems: the return value, compared as JSON (tuples are lists; floats within tol)."""
    try:
        e = json.loads(expected)
        a = json.loads(actual)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
        return False
    return _json_equal(e, a, abs_tol, rel_tol)
