"""The sandbox tier: tests that run programs in the real sandbox (root: slots, cgroups, namespaces),
most through a session-wide engine."""

from tests.support.fixtures import _every_tle_is_cpu_time, engine, settings, state_dir, store  # noqa: F401
