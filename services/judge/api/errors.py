"""Errors a person can read: 422 messages that name the field and what is wrong, 503 when Redis is down."""

from __future__ import annotations

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import ValidationError

from services.settings import Settings


def _describe(err: dict) -> str:
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
    errors = exc.errors()
    return JSONResponse(
        status_code=422,
        content={
            "detail": "; ".join(_describe(e) for e in errors[:20]),
            "errors": [
                {"loc": list(e.get("loc", ())), "msg": e.get("msg"), "type": e.get("type")} for e in errors
            ],
        },
    )


def invalid(err: ValidationError, prefix: tuple = ("body",)) -> RequestValidationError:
    return RequestValidationError([{**e, "loc": (*prefix, *e["loc"])} for e in err.errors()])


async def redis_down(request: Request, exc: Exception) -> JSONResponse:
    settings: Settings = request.app.state.settings
    return JSONResponse(
        status_code=503,
        headers={"Retry-After": "5"},
        content={
            "detail": f"the judge's Redis ({_safe_url(settings.redis_url)}) is unavailable: {exc}. "
            "Nothing was accepted by this request; retry when Redis is back."
        },
    )


def _safe_url(url: str) -> str:
    """The Redis URL without a password."""
    if "@" in url:
        scheme, rest = url.split("://", 1)
        return f"{scheme}://***@{rest.split('@', 1)[1]}"
    return url
