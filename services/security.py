"""The stack's security settings at its HTTP edges (SPEC section 7): the bearer token every service
asks for, the warning for a service exposed without one, and the data roots that confine the paths a
merger or evaluator request may name.

The token is a FastAPI dependency (`token_dependency`) that each service puts on its API router, and
`/healthz` stays outside that router so probes need no secret. Clients send `Settings.auth_headers()`.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import logging
import re
import socket
from pathlib import Path

from fastapi import Depends, HTTPException
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from services.settings import Settings

log = logging.getLogger("codefrontier.security")

_bearer = HTTPBearer(
    auto_error=False,
    scheme_name="FRONTIER_API_TOKEN",
    description="`Authorization: Bearer <FRONTIER_API_TOKEN>` on every endpoint but /healthz.",
)


# -- the bearer token -------------------------------------------------------------------------------
def token_dependency(settings: Settings):
    """A FastAPI dependency: 401 unless the request carries `Authorization: Bearer <api_token>`.

    The comparison takes the same time wherever the given token first differs (hmac.compare_digest
    of the two tokens' SHA-256 digests, so not even the token's length shows), and response times do
    not reveal how much of a guess was right."""
    expected = _digest(settings.api_token.get_secret_value()) if settings.api_token else None

    async def require_token(
        credentials: HTTPAuthorizationCredentials | None = Depends(_bearer),
    ) -> None:
        if expected is None:
            return
        given = _digest(credentials.credentials if credentials is not None else "")
        # compare even when the header is missing, so both refusals take the same time
        if not hmac.compare_digest(given, expected) or credentials is None:
            raise HTTPException(
                401,
                "missing or wrong bearer token: send 'Authorization: Bearer <FRONTIER_API_TOKEN>'",
                headers={"WWW-Authenticate": "Bearer"},
            )

    return require_token


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8", "surrogateescape")).digest()


def api_dependencies(settings: Settings) -> list:
    """What a service's API router depends on: the token check where a token is set, else nothing."""
    return [Depends(token_dependency(settings))] if settings.api_token is not None else []


def is_loopback(host: str) -> bool:
    """Whether a listen address only accepts connections from this machine."""
    if host in ("localhost", "ip6-localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        try:
            return ipaddress.ip_address(socket.gethostbyname(host)).is_loopback
        except (OSError, ValueError):
            return False


def exposure_warning(service: str, host: str, settings: Settings) -> str | None:
    """The warning for a service about to listen beyond this machine without a token, or None."""
    if settings.api_token is not None or is_loopback(host):
        return None
    return (
        f"{service} listens on {host}, beyond this machine, WITHOUT AUTHENTICATION: anyone who can reach "
        f"the port can use it. Set FRONTIER_API_TOKEN (the same value for every service and client), "
        f"or bind to 127.0.0.1. See the README's section on running on a shared network."
    )


def warn_if_exposed(service: str, host: str, settings: Settings) -> None:
    """Log the exposure warning loudly, in a banner, at a service's start."""
    message = exposure_warning(service, host, settings)
    if message:
        bar = "!" * 100
        log.warning("\n%s\n%s\n%s", bar, message, bar)


# -- data roots -------------------------------------------------------------------------------------
class PathNotAllowed(ValueError):
    """A path in a request that lies outside FRONTIER_DATA_ROOTS (after resolving symlinks)."""


# a hub repository id: `name` or `namespace/name`, letters, digits, '-', '_', '.', no '..'
_HUB_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,95}(/[A-Za-z0-9][A-Za-z0-9_.\-]{0,95})?$")


def is_hub_id(value: str) -> bool:
    return bool(_HUB_ID_RE.match(value)) and ".." not in value


def confine(path: str | Path, settings: Settings, field: str) -> Path:
    """`path` resolved (symlinks followed, as far as it exists), if it lies under a data root."""
    roots = settings.allowed_data_roots()
    try:
        resolved = Path(path).expanduser().resolve()
    except (OSError, RuntimeError, ValueError) as err:  # a symlink loop, a NUL byte
        raise PathNotAllowed(f"{field}: {str(path)!r} cannot be resolved ({err})") from None
    if any(resolved == root or resolved.is_relative_to(root) for root in roots):
        return resolved
    shown = ":".join(str(r) for r in roots)
    where = "" if str(resolved) == str(path) else f" (resolves to {resolved})"
    raise PathNotAllowed(
        f"{field}: {str(path)!r}{where} is outside the allowed data roots {shown} (FRONTIER_DATA_ROOTS)"
    )


def confine_source(source: str, settings: Settings, field: str) -> str:
    """A checkpoint source as a request names it: a hub id is left as it is, anything that is a path
    (absolute, relative, `~`, or a name that exists here) must lie under a data root."""
    if is_hub_id(source) and not Path(source).exists():
        return source
    confine(source, settings, field)
    return source
