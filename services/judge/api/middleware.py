"""ASGI middleware of the judge API: request latency, and requests by client (the token's name; the
body limit and the token in the path are services/serving.py's)."""

from __future__ import annotations

import time

from prometheus_client import Counter, Histogram


class Timed:
    """ASGI middleware: request latency by method, route template and status; requests by client
    (the name the token check left in the request's state) and status, where `clients` is given."""

    def __init__(self, app, histogram: Histogram, clients: Counter | None = None):
        self.app = app
        self.histogram = histogram
        self.clients = clients

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
            if self.clients is not None:
                client = (scope.get("state") or {}).get("client", "unauthenticated")
                self.clients.labels(client, str(status)).inc()
