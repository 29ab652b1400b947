"""ASGI middleware of the judge API: request latency (the body limit is services/serving.py's)."""

from __future__ import annotations

import time

from prometheus_client import Histogram


class Timed:
    """ASGI middleware: request latency by method, route template and status."""

    def __init__(self, app, histogram: Histogram):
        self.app = app
        self.histogram = histogram

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        start = time.perf_counter()
        status = 500

        async def send_status(message):
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_status)
        finally:
            route = getattr(scope.get("route"), "path", "unmatched")
            self.histogram.labels(scope["method"], route, str(status)).observe(time.perf_counter() - start)
