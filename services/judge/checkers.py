"""Output comparison (SPEC section 2): `exact`, `tokens`, `float`, and JSON values for functional problems.

They run in the judge process on a program's output (up to the output limit), so they stream it:
the answer is read in chunks and compared against the expected output (test data, trusted) as it
comes, and memory stays bounded by the expected output plus a chunk, whatever the program wrote (a
right answer followed by 60 MB of blank lines, or millions of extra tokens, costs no more). The
`program` checker runs in the sandbox and lives in the engine.
"""

from __future__ import annotations

import io
import json
import math
import re
from collections.abc import Iterator
from typing import BinaryIO

CHUNK_BYTES = 256 << 10
LINE_WS = b" \t\r\x0b\x0c"  # what bytes.rstrip() strips, less the newline itself
_WS_BEFORE_NEWLINE = re.compile(rb"[ \t\r\x0b\x0c]+(?=\n)")
_WS_AT_LINE_END = re.compile(rb"[ \t\r\x0b\x0c]+(?=\n|\Z)")


def _stream(actual: bytes | BinaryIO) -> BinaryIO:
    return io.BytesIO(actual) if isinstance(actual, bytes | bytearray | memoryview) else actual


def _chunks(f: BinaryIO, chunk_bytes: int) -> Iterator[bytes]:
    while chunk := f.read(chunk_bytes):
        yield chunk


def _exact_form(data: bytes) -> bytes:
    """Trailing whitespace stripped at every line end, trailing blank lines dropped."""
    return _WS_AT_LINE_END.sub(b"", data).rstrip(b"\n")


def exact(expected: bytes, actual: bytes | BinaryIO, chunk_bytes: int = CHUNK_BYTES) -> bool:
    """Byte-equal after stripping trailing whitespace at line ends and trailing blank lines."""
    want = _exact_form(expected)
    pos = 0  # how much of `want` the answer has matched
    newlines = 0  # newlines read but not yet placed: trailing blank lines vanish at the end
    carry = b""  # whitespace at the end of what was read: stripped if a newline follows
    overflow = False  # a whitespace run longer than `want` was dropped: only a newline may follow
    for chunk in _chunks(_stream(actual), chunk_bytes):
        buf = carry + chunk
        if overflow:
            buf = buf.lstrip(LINE_WS)
            if not buf:
                continue
            if buf[:1] != b"\n":
                return False
            overflow = False
        body = _WS_BEFORE_NEWLINE.sub(b"", buf)
        decided = body.rstrip(LINE_WS)
        carry = body[len(decided) :]
        if len(carry) > len(want):
            carry, overflow = b"", True
        core = decided.rstrip(b"\n")
        if core:
            if newlines > len(want) - pos or not want.startswith(b"\n" * newlines, pos):
                return False
            pos += newlines
            if not want.startswith(core, pos):
                return False
            pos += len(core)
            newlines = 0
        newlines += len(decided) - len(core)
    return pos == len(want)


def _token_batches(actual: bytes | BinaryIO, max_token_bytes: int, chunk_bytes: int) -> Iterator[list[bytes]]:
    """Whitespace-separated tokens of the answer, a chunk's worth at a time. A token longer than
    `max_token_bytes` (it can match nothing expected) ends the stream with a batch of [None]."""
    carry = b""
    for chunk in _chunks(_stream(actual), chunk_bytes):
        buf = carry + chunk
        toks = buf.split()
        carry = toks.pop() if toks and not buf[-1:].isspace() else b""
        if len(carry) > max_token_bytes:
            yield [None]
            return
        if toks:
            yield toks
    if carry:
        yield [carry]


def tokens(expected: bytes, actual: bytes | BinaryIO, chunk_bytes: int = CHUNK_BYTES) -> bool:
    """Equal as whitespace-separated token sequences."""
    want = expected.split()
    longest = max(map(len, want), default=0)
    i = 0
    for batch in _token_batches(actual, longest, chunk_bytes):
        if want[i : i + len(batch)] != batch:
            return False
        i += len(batch)
    return i == len(want)


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


# a number written with more digits than this is no closer to any answer
MAX_NUMBER_BYTES = 4096


def float_tokens(
    expected: bytes,
    actual: bytes | BinaryIO,
    abs_tol: float = 1e-6,
    rel_tol: float = 1e-6,
    chunk_bytes: int = CHUNK_BYTES,
) -> bool:
    """Token-wise: numeric tokens equal within abs_tol or rel_tol, other tokens exactly."""
    want = expected.split()
    longest = max([MAX_NUMBER_BYTES, *map(len, want)])
    i = 0
    for batch in _token_batches(actual, longest, chunk_bytes):
        if len(batch) > len(want) - i or batch[0] is None:
            return False
        for e, a in zip(want[i : i + len(batch)], batch, strict=True):
            if e == a:
                continue
            ev, av = _number(e), _number(a)
            if ev is None or av is None or not floats_close(ev, av, abs_tol, rel_tol):
                return False
        i += len(batch)
    return i == len(want)


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


def json_value(
    expected: bytes, actual: bytes | BinaryIO, abs_tol: float = 1e-6, rel_tol: float = 1e-6
) -> bool:
    """Functional problems: the return value, compared as JSON (tuples are lists; floats within tol).

    The driver writes compact JSON, where no value takes more than ~24 bytes per byte of its
    shortest form (a float's repr against "0"); an answer past that bound is not parsed at all.
    """
    limit = 24 * len(expected) + (64 << 10)
    data = _stream(actual).read(limit + 1)
    if len(data) > limit:
        return False
    try:
        e = json.loads(expected)
        a = json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
        return False
    return _json_equal(e, a, abs_tol, rel_tol)
