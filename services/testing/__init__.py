"""Support for the tests and benchmarks (not used by the services themselves)."""
