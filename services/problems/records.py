"""Records of a JSONL or JSON-array file (`.gz` too; a `.jsonl` is always read as lines), read as
untrusted bytes: every record ends as
one value or one refusal naming its place (`file:line`, or `file[index]` in an array), and the rest of
the file is still read. The benchmark importers, `frontier problems import` and `frontier judge` read
their files here.

What a record may hold costs linear work and bounded memory: a line longer than MAX_RECORD_BYTES is
refused without being held; leading blank space is skipped a chunk at a time; a line that is not
UTF-8 or not JSON is refused alone; a value nested deeper than MAX_DEPTH (the JSON decoder's own
recursion limit included: 100,000 `[` are a RecursionError there) is refused alone, and in an array
it is stepped over by a scan that keeps no stack, so the elements after it are still read.
"""

from __future__ import annotations

import gzip
import json
import re
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from services.problems.store import ProblemError

# one line of a JSONL file larger than this is refused, not read into memory (a .gz inflates)
MAX_RECORD_BYTES = 64 << 20
# a JSON-array file is decoded whole: at most this many bytes of it
MAX_ARRAY_BYTES = 4 * MAX_RECORD_BYTES
# how deep a record's lists and objects may nest (no benchmark record comes near it; deeper ones
# would stop the code that walks them with a RecursionError)
MAX_DEPTH = 100
_CHUNK_BYTES = 1 << 16
_BLANK = b" \t\n\r"

_SPACE = re.compile(r"[ \t\n\r]*")
_BLANK_RUN = re.compile(rb"[ \t\n\r]*")
# the next character that opens or closes a value or starts a string, and a whole string literal
# (`re`, not RE2, whose wrapper encodes a str whole at each call; each pattern here is linear in
# the text: tests/unit/test_untrusted_text.py REVIEWED says why)
_STRUCTURE = re.compile(r'["\[\]{}]')
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')


class RecordFileError(ProblemError):
    """The file cannot be read at all (missing, a corrupt or truncated .gz, an array too large)."""


def read(path: Path) -> Iterator[tuple[str, dict[str, Any] | str]]:
    """(where, record) for each record of the file, a record being a JSON object, or (where, why)
    with why a str naming the place and the reason when the record's bytes are refused."""
    path = Path(path)
    name = path.name
    if not path.is_file():
        raise RecordFileError(f"{path}: no such file")
    try:
        with gzip.open(path, "rb") if name.endswith(".gz") else open(path, "rb") as f:  # noqa: SIM115
            # a .jsonl is lines whatever its first line holds (a record may be a list); another
            # file is a JSON array when it starts with one
            lines = name.removesuffix(".gz").endswith(".jsonl")
            if not lines and first_byte(f) == b"[":
                data = f.read(MAX_ARRAY_BYTES + 1)
                if len(data) > MAX_ARRAY_BYTES:
                    raise RecordFileError(f"{name}: a JSON array larger than {MAX_ARRAY_BYTES} bytes")
                try:
                    text = data.decode("utf-8")
                except UnicodeDecodeError as err:
                    raise RecordFileError(f"{name}: not UTF-8 ({err})") from None
                del data
                yield from _array_records(name, text)
            else:
                yield from _line_records(name, f)
    except (OSError, EOFError, zlib.error) as err:
        # a truncated or corrupt .gz
        raise RecordFileError(f"{name}: cannot be read ({type(err).__name__}: {err})") from None


def first_byte(f: BinaryIO) -> bytes:
    """The first byte of the file that is not JSON blank space (b"" when there is none), leaving the
    file at its start; the blank space is read a chunk at a time."""
    while True:
        chunk = f.read(_CHUNK_BYTES)
        stripped = chunk.lstrip(_BLANK)
        if stripped or not chunk:
            f.seek(0)
            return stripped[:1]


def _line_records(name: str, f: BinaryIO) -> Iterator[tuple[str, dict[str, Any] | str]]:
    for lineno, line in _lines(f):
        where = f"{name}:{lineno}"
        if line is None:
            yield where, f"{where}: a record longer than {MAX_RECORD_BYTES} bytes"
            continue
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as err:
            yield where, f"{where}: not UTF-8 text ({err.reason} at byte {err.start})"
            continue
        try:
            value = json.loads(text)
        except json.JSONDecodeError as err:
            yield where, f"{where}: not a JSON object ({err})"
            continue
        except RecursionError:
            yield where, f"{where}: nested deeper than {MAX_DEPTH} levels"
            continue
        yield where, _checked(value, where)


def _lines(f: BinaryIO) -> Iterator[tuple[int, bytes | None]]:
    """(line number, line) for each line that is not blank, None for a line longer than
    MAX_RECORD_BYTES (read past, never held whole). Blank space, blank lines included, is stepped
    over by a pattern match a chunk at a time, never a character or a line at a time."""
    buf, pos, lineno, eof = b"", 0, 1, False
    while True:
        blank = _BLANK_RUN.match(buf, pos).end()
        lineno += buf.count(b"\n", pos, blank)
        pos = blank
        if pos == len(buf):
            if eof:
                return
            buf, pos = f.read(_CHUNK_BYTES), 0
            eof = not buf
            continue
        end = buf.find(b"\n", pos)
        while end == -1 and not eof and len(buf) - pos <= MAX_RECORD_BYTES:
            chunk = f.read(max(_CHUNK_BYTES, len(buf) - pos))  # doubling: linear in the line
            if not chunk:
                eof = True
                break
            searched = len(buf) - pos
            buf, pos = buf[pos:] + chunk, 0
            end = buf.find(b"\n", searched)
        stop = len(buf) if end == -1 else end
        if stop - pos > MAX_RECORD_BYTES:
            while end == -1 and not eof:  # the rest of the line
                buf, pos = f.read(_CHUNK_BYTES), 0
                eof = not buf
                end = buf.find(b"\n")
            yield lineno, None
        else:
            yield lineno, buf[pos:stop]
        pos = len(buf) if end == -1 else end + 1
        lineno += 1


def _array_records(name: str, text: str) -> Iterator[tuple[str, dict[str, Any] | str]]:
    """The elements of a JSON array, one at a time (`text` is the whole file)."""
    decoder = json.JSONDecoder()
    i = _SPACE.match(text).end() + 1  # past the "["
    i = _SPACE.match(text, i).end()
    if text.startswith("]", i):
        refused = _trailing(name, text, i + 1)
        if refused:
            yield f"{name}[end]", refused
        return
    index = 0
    while True:
        where = f"{name}[{index}]"
        try:
            value, end = decoder.raw_decode(text, i)
        except json.JSONDecodeError as err:
            yield where, f"{where}: not valid JSON ({err}); the rest of the file is not read"
            return
        except RecursionError:
            end = _skip_value(text, i)
            if end is None:
                yield where, f"{where}: nested deeper than {MAX_DEPTH} levels and never closed"
                return
            yield where, f"{where}: nested deeper than {MAX_DEPTH} levels"
        else:
            yield where, _checked(value, where)
        i = _SPACE.match(text, end).end()
        if text.startswith(",", i):
            i = _SPACE.match(text, i + 1).end()
            index += 1
            continue
        if text.startswith("]", i):
            refused = _trailing(name, text, i + 1)
            if refused:
                yield f"{name}[end]", refused
            return
        yield f"{name}[{index + 1}]", f"{name}: expected ',' or ']' after element {index}"
        return


def _trailing(name: str, text: str, i: int) -> str | None:
    if _SPACE.match(text, i).end() != len(text):
        return f"{name}: text after the array's end"
    return None


def _skip_value(text: str, i: int) -> int | None:
    """The end of the list or object that starts at `i`, found by counting brackets outside strings
    (no stack, linear in its length); None when it never closes."""
    depth = 0
    while True:
        m = _STRUCTURE.search(text, i)
        if m is None:
            return None
        c = m.group()
        if c == '"':
            s = _STRING.match(text, m.start())
            if s is None:
                return None
            i = s.end()
            continue
        depth += 1 if c in "[{" else -1
        i = m.end()
        if depth <= 0:
            return i


def _checked(value: Any, where: str) -> dict[str, Any] | str:
    if not isinstance(value, dict):
        return f"{where}: a record must be a JSON object, got {type(value).__name__}"
    if too_deep(value, MAX_DEPTH):
        return f"{where}: nested deeper than {MAX_DEPTH} levels"
    return value


def too_deep(value: Any, limit: int) -> bool:
    """Whether lists and objects in `value` nest deeper than `limit` (walked without recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values() if isinstance(v, dict | list))
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item if isinstance(v, dict | list))
    return False


__all__ = [
    "MAX_ARRAY_BYTES",
    "MAX_DEPTH",
    "MAX_RECORD_BYTES",
    "RecordFileError",
    "first_byte",
    "read",
    "too_deep",
]
