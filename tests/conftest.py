"""The suite's tiers, by what a test needs (a folder each, a marker each, `-m` works too):
unit (neither root nor Redis), sandbox (root: the engine and its sandbox), stack (Redis and service
processes) and e2e (whole flows: the evaluator, replication, deploy renders, clusters). Fixtures live
in each tier's conftest.py, helpers in tests/support/. This file imports nothing of the product."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

TIERS = ("unit", "sandbox", "stack", "e2e")
HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config, items):
    for item in items:
        try:
            tier = Path(item.fspath).resolve().relative_to(HERE).parts[0]
        except ValueError:
            continue
        if tier in TIERS:
            item.add_marker(getattr(pytest.mark, tier))


def pytest_report_header(config):
    return f"judge runs as uid {os.geteuid()}"
