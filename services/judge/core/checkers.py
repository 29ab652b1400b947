"""Output comparison (SPEC section 2): `exact`, `tokens`, `float`, and JSON values for functional problems.

They run in the judge process on a program's output (up to the output limit), so they stream it:
the answer is read in chunks and compared against the expected output (test data, trusted) as it
comes, and memory stays bounded by the expected output plus a chunk, whatever the program wrote (a
right answer followed by 60 MB of blank lines, or millions of extra tokens, costs no more). The
`program` checker runs in the sandbox and lives in the engine.
"""

from __future__ import annotations

import decimal
import io
import json
import math
from collections.abc import Iterator
from typing import BinaryIO

CHUNK_BYTES = 256 << 10
LINE_WS = b" \t\r\x0b\x0c"  # what bytes.rstrip() strips, less the newline itself


def _stream(actual: bytes | BinaryIO) -> BinaryIO:
    return io.BytesIO(actual) if isinstance(actual, bytes | bytearray | memoryview) else actual


def _chunks(f: BinaryIO, chunk_bytes: int) -> Iterator[bytes]:
    while chunk := f.read(chunk_bytes):
        yield chunk


_WS_THEN_NEWLINE = tuple(bytes([c]) + b"\n" for c in LINE_WS)
PIECE_BYTES = 16 << 10  # lines are split this much at a time: a list of at most 8 K lines


def _strip_line_ends(data: bytes, last: bool) -> bytes:
    """Whitespace before each newline removed (and at the very end when `last`), in one pass of C
    string operations: line-wise code, never a pattern (a backtracking `[ \\t]+(?=\\n)` is quadratic
    on a long run of spaces). Memory stays within twice the data, whatever the number of lines."""
    if b"\n" not in data or not any(pair in data for pair in _WS_THEN_NEWLINE):
        return data.rstrip(LINE_WS) if last else data  # the common case: nothing to strip
    out = []
    i = 0
    while True:
        j = data.rfind(b"\n", i, i + PIECE_BYTES)
        if j < 0:
            j = data.find(b"\n", i + PIECE_BYTES)
        if j < 0:
            break
        out.append(b"\n".join([line.rstrip(LINE_WS) for line in data[i:j].split(b"\n")]))
        out.append(b"\n")
        i = j + 1
    tail = data[i:]
    out.append(tail.rstrip(LINE_WS) if last else tail)
    return b"".join(out)


def _exact_form(data: bytes) -> bytes:
    """Trailing whitespace stripped at every line end, trailing blank lines dropped."""
    return _strip_line_ends(data, last=True).rstrip(b"\n")


def exact(expected: bytes, actual: bytes | BinaryIO, chunk_bytes: int = CHUNK_BYTES) -> bool:
    """Byte-equal after stripping trailing whitespace at line ends and trailing blank lines.

    Linear in the answer: each byte is looked at a bounded number of times, whatever its shape (a
    run of spaces as long as the output limit, with no newline, costs one pass)."""
    want = _exact_form(expected)
    pos = 0  # how much of `want` the answer has matched
    newlines = 0  # newlines read but not yet placed: trailing blank lines vanish at the end
    pending: list[bytes] = []  # whitespace at the end of what was read: dropped if a newline follows
    pending_bytes = 0
    overflow = (
        False  # a whitespace run longer than what is left of `want` was dropped: only a newline may follow
    )
    for chunk in _chunks(_stream(actual), chunk_bytes):
        if pending or overflow:
            rest = chunk.lstrip(LINE_WS)
            if not rest:  # still inside the run
                if not overflow:
                    pending.append(chunk)
                    pending_bytes += len(chunk)
                    if pending_bytes > len(want) - pos:
                        pending, pending_bytes, overflow = [], 0, True
                continue
            if rest[:1] == b"\n":  # the run ends a line: it goes
                chunk = rest
            elif overflow:
                return False
            else:  # the run is inside a line: it is content, and short enough to be matched once
                chunk = b"".join(pending) + chunk
            pending, pending_bytes, overflow = [], 0, False
        body = _strip_line_ends(chunk, last=False)
        decided = body.rstrip(LINE_WS)
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
        if len(decided) < len(body):
            pending, pending_bytes = [body[len(decided) :]], len(body) - len(decided)
            if pending_bytes > len(want) - pos:
                pending, pending_bytes, overflow = [], 0, True
    return pos == len(want)


_NOT_WS = bytes(c for c in range(256) if c not in b" \t\n\r\x0b\x0c")


def _token_batches(actual: bytes | BinaryIO, max_token_bytes: int, chunk_bytes: int) -> Iterator[list[bytes]]:
    """Whitespace-separated tokens of the answer, a chunk's worth at a time. A token longer than
    `max_token_bytes` (it can match nothing expected) ends the stream with a batch of [None].

    A token that spans chunks is kept in pieces and joined once, when it ends: linear in the answer
    even when the expected output holds one token of many megabytes."""
    parts: list[bytes] = []  # the token the last chunk ended inside
    held = 0
    for chunk in _chunks(_stream(actual), chunk_bytes):
        head = b""
        if parts:
            rest = chunk.lstrip(_NOT_WS)  # what follows the carried token's end, if it ends here
            if not rest:
                parts.append(chunk)
                held += len(chunk)
                if held > max_token_bytes:
                    yield [None]
                    return
                continue
            head = b"".join(parts) + chunk[: len(chunk) - len(rest)]
            parts, held, chunk = [], 0, rest
        toks = chunk.split()
        if toks and not chunk[-1:].isspace():
            parts = [toks.pop()]
            held = len(parts[0])
            if held > max_token_bytes:
                yield [None]
                return
        if head:
            toks.insert(0, head)
        if toks:
            yield toks
    if parts:
        yield [b"".join(parts)]


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


def _integer(text: str) -> str | None:
    """An integer literal's value in canonical form (no '+', no leading zeros, '-0' is '0'), or None.
    Integers are compared as these strings: exact at any size, in linear time (no int() of a long literal)."""
    sign, body = "", text
    if body[:1] in ("+", "-"):
        sign, body = body[:1].replace("+", ""), body[1:]
    if not body or not (body.isascii() and body.isdigit()):
        return None
    body = body.lstrip("0")
    return sign + body if body else "0"


def _number(text: str) -> float | None:
    if "_" in text:  # float() takes '1_000'; no checker should
        return None
    try:
        return float(text)
    except ValueError:
        return None


def floats_close(expected: float, actual: float, abs_tol: float, rel_tol: float) -> bool:
    if math.isnan(expected) or math.isnan(actual):
        return math.isnan(expected) and math.isnan(actual)
    return math.isclose(actual, expected, rel_tol=rel_tol, abs_tol=abs_tol)


def _decimals_close(expected: str, actual: str, abs_tol: float, rel_tol: float) -> bool:
    """Numbers past a float's range (1e400 overflows to inf): compared as decimals, exactly at zero tolerance."""
    e, a = decimal.Decimal(expected), decimal.Decimal(actual)
    if e.is_nan() or a.is_nan():
        return e.is_nan() and a.is_nan()
    if e.is_infinite() or a.is_infinite() or (abs_tol == 0 and rel_tol == 0):
        return e == a
    with decimal.localcontext() as ctx:
        ctx.prec, ctx.Emax, ctx.Emin = 60, decimal.MAX_EMAX, decimal.MIN_EMIN
        ctx.traps = dict.fromkeys(ctx.traps, False)
        diff = abs(a - e)
        return diff <= decimal.Decimal(abs_tol) or diff <= decimal.Decimal(rel_tol) * max(abs(a), abs(e))


def numbers_equal(expected: str, actual: str, abs_tol: float, rel_tol: float) -> bool | None:
    """Two numeric literals: integers exactly (at any size), within tolerance only where a float is
    involved. None when either is not a number (ASCII only: float() of a str takes other digits)."""
    if not (expected.isascii() and actual.isascii()):
        return None
    ei, ai = _integer(expected), _integer(actual)
    if ei is not None and ai is not None:
        return ei == ai
    ev, av = _number(expected), _number(actual)
    if ev is None or av is None:
        return None
    if math.isfinite(ev) and math.isfinite(av):
        return floats_close(ev, av, abs_tol, rel_tol)
    try:
        return _decimals_close(expected, actual, abs_tol, rel_tol)
    except (decimal.InvalidOperation, ValueError):
        return floats_close(ev, av, abs_tol, rel_tol)


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
            if not (e.isascii() and a.isascii()):
                return False
            if not numbers_equal(e.decode("ascii"), a.decode("ascii"), abs_tol, rel_tol):
                return False
        i += len(batch)
    return i == len(want)


class _JsonNumber:
    """A JSON number as written: compared by numbers_equal, never turned into an int (the int digit
    limit and int()'s quadratic cost on a long literal)."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text


def _json_equal(e, a, abs_tol: float, rel_tol: float) -> bool:
    stack = [(e, a)]  # iterative: an answer nested as deep as the parser allows is compared, not a crash
    while stack:
        e, a = stack.pop()
        if isinstance(e, _JsonNumber) or isinstance(a, _JsonNumber):
            if not (isinstance(e, _JsonNumber) and isinstance(a, _JsonNumber)):
                return False
            if not numbers_equal(e.text, a.text, abs_tol, rel_tol):
                return False
        elif isinstance(e, list) and isinstance(a, list):
            if len(e) != len(a):
                return False
            stack.extend(zip(e, a, strict=True))
        elif isinstance(e, dict) and isinstance(a, dict):
            if e.keys() != a.keys():
                return False
            stack.extend((e[k], a[k]) for k in e)
        elif type(e) is not type(a) or e != a:
            return False
    return True


def _json_loads(data: bytes):
    return json.loads(data, parse_int=_JsonNumber, parse_float=_JsonNumber, parse_constant=_JsonNumber)


def json_value(expected: bytes, actual: bytes | BinaryIO, abs_tol: float = 0.0, rel_tol: float = 0.0) -> bool:
    """Functional problems: the return value, compared as JSON (tuples are lists). Integers compare
    exactly at any size; floats within the tolerance given (none by default).

    The driver writes compact JSON, where no value takes more than ~24 bytes per byte of its
    shortest form (a float's repr against "0"); an answer past that bound is not parsed at all.
    """
    limit = 24 * len(expected) + (64 << 10)
    data = _stream(actual).read(limit + 1)
    if len(data) > limit:
        return False
    try:
        e = _json_loads(expected)
        a = _json_loads(data)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return False
    return _json_equal(e, a, abs_tol, rel_tol)
