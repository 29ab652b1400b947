"""What the tests share, and the only test code a test module imports (tests/unit/test_test_imports.py
checks it): paths, the Redis claim, the judge stack, problems, models, records and waiting helpers.
Fixtures live in the conftest.py files of the tiers (tests/unit, tests/sandbox, tests/stack, tests/e2e)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUNDLED = ROOT / "problems" / "bundled"
FIXTURES = ROOT / "tests" / "fixtures"
