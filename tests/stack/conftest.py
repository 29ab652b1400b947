"""The stack tier: the judge (and merger) as services: a claimed database of the machine's Redis, API
and worker processes (tests/support/stack.py), and in-process engines beside them."""

from tests.support.fixtures import _every_tle_is_cpu_time, engine, settings, state_dir, store  # noqa: F401
