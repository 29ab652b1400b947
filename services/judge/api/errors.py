"""The judge's own errors: a 422 built from a model's ValidationError, 503 when Redis is down (the
422 handler and the body limit every API shares are services/serving.py's)."""

from __future__ import annotations

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import ValidationError

from services.settings import Settings


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
