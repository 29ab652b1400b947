"""ASGI middleware of the judge API: the body-size limit (413) and request latency."""

from __future__ import annotations

import time

from fastapi import HTTPException
from fastapi.responses import JSONResponse
from prometheus_client import Histogram


class BodyLimit:
    """ASGI middleware: 413 for a body over `max_bytes`, by Content-Length or while it streams in."""

    def __init__(self, app, max_bytes: int):
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        message = f"request body over the limit of {self.max_bytes // (1 << 20)} MB (FRONTIER_MAX_BODY_MB)"
        for name, value in scope.get("headers", ()):
            if name == b"content-length" and value.isdigit() and int(value) > self.max_bytes:
                response = JSONResponse(status_code=413, content={"detail": message})
                return await response(scope, receive, send)
        seen = 0

        async def limited():
            nonlocal seen
            msg = await receive()
            if msg["type"] == "http.request":
                seen += len(msg.get("body", b""))
                if seen > self.max_bytes:
                    raise HTTPException(status_code=413, detail=message)
            return msg

        return await self.app(scope, limited, send)


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
