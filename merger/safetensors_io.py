"""safetensors files read and written a slice at a time, with plain reads and writes.

Why not `safetensors.safe_open`: it memory-maps each file, and every page of a mapping the merge
touches stays in the process's resident set until the file is closed, so one pass over a 15 GB
checkpoint shows 15 GB of RSS. `os.preadv` into a reused buffer goes through the page cache, which
is not charged to the process. Writing with the header computed up front (every output shape and
dtype is known before the first byte is read) lets each output shard be appended to as its tensors
are produced, with no tensor of it held in memory. The format (8-byte little-endian header length,
a JSON header of dtype/shape/data_offsets, then the data) is small enough to read and write by hand;
the tests check every file written here with the safetensors library itself.
"""

from __future__ import annotations

import json
import os
import struct
from dataclasses import dataclass
from pathlib import Path

import torch

DTYPES: dict[str, torch.dtype] = {
    "F64": torch.float64,
    "F32": torch.float32,
    "F16": torch.float16,
    "BF16": torch.bfloat16,
    "F8_E4M3": torch.float8_e4m3fn,
    "F8_E5M2": torch.float8_e5m2,
    "I64": torch.int64,
    "I32": torch.int32,
    "I16": torch.int16,
    "I8": torch.int8,
    "U64": torch.uint64,
    "U32": torch.uint32,
    "U16": torch.uint16,
    "U8": torch.uint8,
    "BOOL": torch.bool,
}
CODES: dict[torch.dtype, str] = {v: k for k, v in DTYPES.items()}
_MAX_HEADER_BYTES = 100 * 1024 * 1024  # the safetensors library refuses larger headers too


class SafetensorsFormatError(ValueError):
    """A file that is not a valid safetensors file."""


@dataclass(frozen=True)
class TensorEntry:
    """Where one tensor's bytes lie: `start` is the absolute file offset of its first byte."""

    path: Path
    name: str
    dtype: str
    shape: tuple[int, ...]
    start: int
    nbytes: int

    @property
    def torch_dtype(self) -> torch.dtype:
        return DTYPES[self.dtype]

    @property
    def numel(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n


@dataclass(frozen=True)
class SafetensorsHeader:
    path: Path
    entries: dict[str, TensorEntry]  # in file order
    metadata: dict[str, str]
    file_bytes: int


def read_header(path: Path) -> SafetensorsHeader:
    """Parse a safetensors header and check that its offsets tile the data exactly."""
    size = path.stat().st_size
    with open(path, "rb") as f:
        raw = f.read(8)
        if len(raw) < 8:
            raise SafetensorsFormatError(f"{path}: too short to be a safetensors file")
        (n,) = struct.unpack("<Q", raw)
        if n > _MAX_HEADER_BYTES or 8 + n > size:
            raise SafetensorsFormatError(f"{path}: header length {n} is not plausible for a {size}-byte file")
        try:
            header = json.loads(f.read(n))
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise SafetensorsFormatError(f"{path}: header is not valid JSON ({e})") from None
    if not isinstance(header, dict):
        raise SafetensorsFormatError(f"{path}: header is not a JSON object")
    metadata = header.pop("__metadata__", None) or {}
    data_start = 8 + n
    entries = []
    for name, info in header.items():
        try:
            dtype, shape, (begin, end) = info["dtype"], tuple(info["shape"]), info["data_offsets"]
        except (KeyError, TypeError, ValueError):
            raise SafetensorsFormatError(f"{path}: malformed entry for tensor {name!r}") from None
        if dtype not in DTYPES:
            raise SafetensorsFormatError(f"{path}: tensor {name!r} has unknown dtype {dtype!r}")
        entry = TensorEntry(path, name, dtype, shape, data_start + begin, end - begin)
        if entry.numel * DTYPES[dtype].itemsize != entry.nbytes:
            raise SafetensorsFormatError(
                f"{path}: tensor {name!r} has {entry.nbytes} bytes for shape {shape}"
            )
        entries.append(entry)
    entries.sort(key=lambda e: e.start)
    pos = data_start
    for e in entries:
        if e.start != pos:
            raise SafetensorsFormatError(
                f"{path}: data of tensor {e.name!r} does not follow the previous one"
            )
        pos += e.nbytes
    if pos != size:
        raise SafetensorsFormatError(f"{path}: data ends at byte {pos} but the file has {size}")
    return SafetensorsHeader(path, {e.name: e for e in entries}, dict(metadata), size)


def read_into(fd: int, entry: TensorEntry, first: int, count: int, buf: torch.Tensor) -> torch.Tensor:
    """Elements [first, first + count) of a tensor, read into the uint8 buffer `buf`, as a 1-D view."""
    itemsize = entry.torch_dtype.itemsize
    nbytes = count * itemsize
    view = buf[:nbytes]
    mv = memoryview(view.numpy())
    offset, done = entry.start + first * itemsize, 0
    while done < nbytes:
        got = os.preadv(fd, [mv[done:]], offset + done)
        if got == 0:
            raise SafetensorsFormatError(f"{entry.path}: file ended inside tensor {entry.name!r}")
        done += got
    return view.view(entry.torch_dtype)


def header_bytes(tensors: list[tuple[str, str, tuple[int, ...]]], metadata: dict[str, str]) -> bytes:
    """The 8-byte length and JSON header for tensors laid out in the given order, padded to 8 bytes."""
    header: dict[str, object] = {"__metadata__": metadata} if metadata else {}
    pos = 0
    for name, dtype, shape in tensors:
        n = DTYPES[dtype].itemsize
        for d in shape:
            n *= d
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [pos, pos + n]}
        pos += n
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text


class ShardWriter:
    """Appends tensor data to a safetensors file whose header was written when it was opened."""

    def __init__(self, path: Path, tensors: list[tuple[str, str, tuple[int, ...]]], metadata: dict[str, str]):
        head = header_bytes(tensors, metadata)
        self.path = path
        self.expected_bytes = len(head) + sum(DTYPES[dt].itemsize * _prod(shape) for _, dt, shape in tensors)
        self._file = open(path, "wb", buffering=0)  # noqa: SIM115 - closed by close()
        self._file.write(head)
        self.written_bytes = len(head)

    def write(self, data: torch.Tensor) -> None:
        """Append the bytes of a contiguous uint8 tensor."""
        mv = memoryview(data.numpy())
        done = 0
        while done < len(mv):
            done += self._file.write(mv[done:])
        self.written_bytes += done

    def close(self, fsync: bool = True) -> None:
        try:
            if self.written_bytes != self.expected_bytes:
                raise RuntimeError(
                    f"{self.path}: wrote {self.written_bytes} bytes, the header promised {self.expected_bytes}"
                )
            if fsync:
                os.fsync(self._file.fileno())
        finally:
            self._file.close()

    def abort(self) -> None:
        self._file.close()


def _prod(shape: tuple[int, ...]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n
