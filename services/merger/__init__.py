"""The merger service: its HTTP API, its RQ worker and its commands, on top of the pure `merger` library."""
