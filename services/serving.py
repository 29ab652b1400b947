"""What every HTTP API of the stack (judge, merger, evaluator, reward) does the same way.

Running one in the foreground: the one place that sets up logging, warns when a service without a
token listens beyond loopback (docs/spec.md section 9.1), and starts uvicorn. And its edges
(`guard`): a request body over FRONTIER_MAX_BODY_MB is a 413, and a request that does not validate is
a 422 whose `detail` says in words which field is wrong and how, with the `errors` list beside it.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import ijson
from fastapi import HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute

LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def setup_logging() -> None:
    logging.basicConfig(level=logging.INFO, format=LOG_FORMAT)


def serve_http(what: str, app, host: str, port: int, settings, **uvicorn_options) -> None:
    """Serve `app` on host:port until interrupted; `what` names the service in the exposure warning.
    A port published beyond loopback without a token is refused before anything is served."""
    import uvicorn

    from services.security import refuse_if_published_open, warn_if_exposed

    setup_logging()
    refuse_if_published_open(what, settings)
    # in a container the service listens on every interface; what reaches it is where it is published
    warn_if_exposed(what, settings.published_address or host, settings)
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


# a JSON body past this many bytes is parsed in slices of _JSON_SLICE_BYTES, the event loop served
# between two slices (json.loads of 16 MB of small objects holds the loop, and the GIL, for seconds:
# a thread would not free the loop)
SLICED_JSON_BYTES = 1 << 20
_JSON_SLICE_BYTES = 64 << 10


async def parse_json_sliced(body: bytes) -> Any:
    """`body` parsed as JSON a slice at a time (ijson's C parser), yielding to the event loop after
    each slice. Stricter than json.loads: no NaN or Infinity, integers within 64 bits. A malformed
    body raises json.JSONDecodeError (FastAPI's 422), at the slice where it was found."""
    found = ijson.sendable_list()
    parser = ijson.items_coro(found, "", use_float=True)
    at = 0
    try:
        for at in range(0, len(body), _JSON_SLICE_BYTES):
            parser.send(body[at : at + _JSON_SLICE_BYTES])
            await asyncio.sleep(0)
        parser.close()
    except ijson.JSONError as err:
        reason = (str(err).splitlines() or ["cannot be parsed"])[0]
        raise json.JSONDecodeError(reason, "", at) from None
    return found[0]


class _SlicedJsonRequest(Request):
    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            body = await self.body()
            self._json = json.loads(body) if len(body) <= SLICED_JSON_BYTES else await parse_json_sliced(body)
        return self._json


class JsonRoute(APIRoute):
    """The route class of every API router: a JSON body over SLICED_JSON_BYTES is parsed without
    holding the event loop (`parse_json_sliced`); smaller ones by json.loads, as FastAPI does."""

    def get_route_handler(self):
        handler = super().get_route_handler()

        async def sliced(request: Request):
            return await handler(_SlicedJsonRequest(request.scope, request.receive))

        return sliced


def describe_error(err: dict) -> str:
    """One validation error in words: the field's dotted path, what is wrong, and the value if short."""
    loc = [str(p) for p in err.get("loc", ()) if p != "body"]
    where = ".".join(loc) or "body"
    if err.get("type") == "json_invalid":
        where = f" at character {loc[-1]}" if loc and loc[-1].isdigit() else ""
        return f"malformed JSON{where}: {err.get('ctx', {}).get('error', 'cannot be parsed')}"
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


# what a request may reach without a token: the probe and the API's description (it acts on nothing)
PUBLIC_PATHS = ("/healthz",)


def guard(app, settings) -> None:
    """Give `app` the shared edges, outermost first: the token in the URL's path (`/t/<token>/...`,
    services/security.py's PathToken), the token check before any body is read (TokenGate, 401), the
    body limit (413), and the readable 422."""
    from services.security import PathToken, TokenGate  # security imports settings only; serving stays light

    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_mb << 20)
    described = (app.openapi_url, app.docs_url, app.redoc_url, app.swagger_ui_oauth2_redirect_url)
    public = frozenset([*PUBLIC_PATHS, *(p for p in described if p)])
    app.add_middleware(TokenGate, settings=settings, public=public)
    app.add_middleware(PathToken)
