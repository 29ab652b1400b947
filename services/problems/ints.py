"""Integers of any size in trusted data: Python's int digit limit lifted for a block."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def any_int_size() -> Iterator[None]:
    """Python's int digit limit lifted for the block (trusted data only: test files, references)."""
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(limit)
