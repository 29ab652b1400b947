"""A session's file paths: the one rule the API applies to refuse a bad path early (422) and the
session's sandbox applies before its keeper sees one (services/judge/core/sandbox/session.py). Pure."""

from __future__ import annotations

from pathlib import PurePosixPath

MAX_PATH_BYTES = 1024


class BadPath(ValueError):
    """A file path that is not a plain relative path inside the session's directory."""


def check_path(path: str) -> str:
    """The path as the keeper gets it: relative, normalised, no `..`, no empty or odd components."""
    if not path or len(path.encode()) > MAX_PATH_BYTES:
        raise BadPath(f"path must be 1..{MAX_PATH_BYTES} bytes")
    if "\x00" in path or "\\" in path:
        raise BadPath(f"path {path!r} holds a NUL byte or a backslash")
    p = PurePosixPath(path)
    if p.is_absolute():
        raise BadPath(f"path {path!r} is absolute; paths are relative to the session's directory")
    parts = [part for part in p.parts if part != "."]
    if not parts or any(part == ".." for part in parts):
        raise BadPath(f"path {path!r} leaves the session's directory (no '..')")
    return "/".join(parts)
