"""What every HTTP API of the stack (judge, merger, evaluator, reward) does the same way.

Running one in the foreground: the one place that sets up logging, warns when a service without a
token listens beyond loopback (docs/spec.md section 9.1), and starts uvicorn. And its edges
(`guard`): a request body over FRONTIER_MAX_BODY_MB is a 413, and a request that does not validate is
a 422 whose `detail` says in words which field is wrong and how, with the `errors` list beside it.
"""

from __future__ import annotations

import logging

from fastapi import HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def setup_logging() -> None:
    logging.basicConfig(level=logging.INFO, format=LOG_FORMAT)


def serve_http(what: str, app, host: str, port: int, settings, **uvicorn_options) -> None:
    """Serve `app` on host:port until interrupted; `what` names the service in the exposure warning."""
    import uvicorn

    from services.security import warn_if_exposed

    setup_logging()
    warn_if_exposed(what, host, settings)
    uvicorn.run(app, host=host, port=port, **uvicorn_options)


# -- the edges every API shares -------------------------------------------------------------------
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


def describe_error(err: dict) -> str:
    """One validation error in words: the field's dotted path, what is wrong, and the value if short."""
    loc = [str(p) for p in err.get("loc", ()) if p != "body"]
    where = ".".join(loc) or "body"
    if err.get("type") == "json_invalid":
        where = f" at character {loc[-1]}" if loc and loc[-1].isdigit() else ""
        return f"malformed JSON{where}: {err.get('ctx', {}).get('error', 'cannot be parsed')}"
    if err.get("type") == "literal_error" and loc and loc[-1] == "language":
        return f"{where}: unsupported language {err.get('input')!r}; supported: python, cpp"
    msg = err.get("msg", "invalid")
    value = err.get("input")
    if isinstance(value, str | int | float) and len(str(value)) <= 40 and err.get("type") != "missing":
        msg += f" (got {value!r})"
    return f"{where}: {msg}"


async def validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
    """The 422 of every API: `detail` (text, up to 20 errors) and `errors` (loc, msg, type each; never
    the input, which may not be JSON: a NaN, say)."""
    errors = exc.errors()
    return JSONResponse(
        status_code=422,
        content={
            "detail": "; ".join(describe_error(e) for e in errors[:20]),
            "errors": [
                {"loc": [str(p) for p in e.get("loc", ())], "msg": str(e.get("msg")), "type": e.get("type")}
                for e in errors
            ],
        },
    )


def guard(app, settings) -> None:
    """Give `app` the shared edges: the body limit (413), the readable 422, and the token in the URL's
    path (`/t/<token>/...`, services/security.py's PathToken)."""
    from services.security import PathToken  # security imports settings only; serving stays light

    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_mb << 20)
    app.add_middleware(PathToken)
