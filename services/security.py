"""The stack's security settings at its HTTP edges (SPEC section 7): the bearer token every service
asks for, the warning for a service exposed without one, and the data roots that confine the paths a
merger or evaluator request may name.

The token is a FastAPI dependency (`token_dependency`) that each service puts on its API router, and
`/healthz` stays outside that router so probes need no secret. Clients send `Settings.auth_headers()`,
or, where a client only takes a URL, the token travels in the path (`PathToken`). Tokens can be several
(FRONTIER_API_TOKENS), one per client, each with a name for logs, metrics and fair shares.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import logging
import re
import socket
from pathlib import Path
from typing import Annotated

from fastapi import Depends, HTTPException, Request
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from services.settings import Settings

log = logging.getLogger("codefrontier.security")

_bearer = HTTPBearer(
    auto_error=False,
    scheme_name="FRONTIER_API_TOKEN",
    description="`Authorization: Bearer <FRONTIER_API_TOKEN>` on every endpoint but /healthz.",
)


# -- the bearer token -------------------------------------------------------------------------------
# where PathToken leaves the token it took out of the URL's path, in the ASGI scope
PATH_TOKEN_SCOPE_KEY = "frontier.path_token"
# where the token check leaves the name of the client it found (request.state.client)
ANONYMOUS = "anonymous"


_REFUSAL = (
    "missing or wrong token: send 'Authorization: Bearer <token>', or put the token in the "
    "URL's path (http://<host>:<port>/t/<token>/...); FRONTIER_API_TOKEN or FRONTIER_API_TOKENS"
)


class TokenCheck:
    """The stack's tokens by client name, and the one comparison both `TokenGate` and the router
    dependency make.

    The comparison takes the same time wherever the given token first differs and whichever token it
    matches (hmac.compare_digest of SHA-256 digests against every token, no early exit, so not even a
    token's length shows), and response times do not reveal how much of a guess was right."""

    def __init__(self, settings: Settings):
        self.expected = [(name, _digest(token)) for name, token in settings.named_tokens().items()]

    def client(self, in_path: str | None, bearer: str | None) -> str | None:
        """The name of the client whose token came (in the path, else as a bearer header), or None."""
        given = in_path if in_path is not None else bearer
        digest = _digest(given or "")
        found = None
        for name, want in self.expected:  # every token compared, so the time says nothing of which matched
            if hmac.compare_digest(digest, want) and found is None:
                found = name
        # compared even when nothing was given, so both refusals take the same time
        return found if given is not None else None


def _bearer_of(headers) -> str | None:
    """The credentials of an `Authorization: Bearer <token>` header (raw ASGI headers), as
    fastapi.security.HTTPBearer reads them, or None."""
    for name, value in headers:
        if name == b"authorization":
            scheme, _, credentials = value.decode("latin-1").partition(" ")
            return credentials if scheme.lower() == "bearer" and credentials else None
    return None


class TokenGate:
    """ASGI middleware: a request without one of the stack's tokens is answered 401 before anything of
    it past its headers is read (a body is never received, parsed or held for it), on every route but
    `public` ones (/healthz, the API's description). It leaves the client's name in the request's
    state, where `client_name` and the route metrics read it. PathToken runs before it."""

    def __init__(self, app, settings: Settings, public: frozenset[str]):
        self.app = app
        self.check = TokenCheck(settings)
        self.public = public

    async def __call__(self, scope, receive, send):
        if scope["type"] not in ("http", "websocket") or not self.check.expected:
            return await self.app(scope, receive, send)
        found = self.check.client(scope.get(PATH_TOKEN_SCOPE_KEY), _bearer_of(scope.get("headers", ())))
        if found is None:
            if scope.get("path") in self.public:
                return await self.app(scope, receive, send)
            if scope["type"] == "websocket":
                return await send({"type": "websocket.close", "code": 1008})
            # close the connection after this answer: the body that may follow is never read
            response = JSONResponse(
                {"detail": _REFUSAL}, 401, headers={"WWW-Authenticate": "Bearer", "Connection": "close"}
            )
            return await response(scope, receive, send)
        scope.setdefault("state", {})["client"] = found
        return await self.app(scope, receive, send)


def token_dependency(settings: Settings):
    """A FastAPI dependency: 401 unless the request carries one of the stack's tokens, as
    `Authorization: Bearer <token>` or in the URL's path (`/t/<token>/...`, `PathToken`). It sets
    `request.state.client` to the token's name (FRONTIER_API_TOKENS; FRONTIER_API_TOKEN is "default").
    `TokenGate` has made the same check before the body was read; this one documents the scheme in
    the OpenAPI description and holds for a route served without the gate."""
    check = TokenCheck(settings)

    async def require_token(
        request: Request,
        credentials: HTTPAuthorizationCredentials | None = Depends(_bearer),
    ) -> str:
        if not check.expected:
            request.state.client = ANONYMOUS
            return ANONYMOUS
        found = check.client(
            request.scope.get(PATH_TOKEN_SCOPE_KEY), credentials.credentials if credentials else None
        )
        if found is None:
            raise HTTPException(401, _REFUSAL, headers={"WWW-Authenticate": "Bearer"})
        request.state.client = found
        return found

    return require_token


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8", "surrogateescape")).digest()


def api_dependencies(settings: Settings) -> list:
    """What a service's API router depends on: the token check where a token is set, else nothing."""
    return [Depends(token_dependency(settings))] if settings.auth_required else []


def client_name(request: Request) -> str:
    """The name of the client whose token opened this request ("anonymous" on an open service)."""
    return getattr(request.state, "client", ANONYMOUS)


# -- tenants: what a client created is its own ---------------------------------------------------
# the client of FRONTIER_OPERATOR_TOKEN: sees and acts on every client's records
OPERATOR = "operator"


async def requesting_client(request: Request) -> str:
    """The dependency form of `client_name`: a route declares `client: ClientDep`."""
    return client_name(request)


ClientDep = Annotated[str, Depends(requesting_client)]


def may_see(client: str, owner: str | bytes | None) -> bool:
    """Whether `client` may see and act on a record that `owner` created (a session, a batch, a run,
    a Judge0 token): its own, or any for the operator. A record written before owners were kept
    counts as the open service's (`anonymous`)."""
    if isinstance(owner, bytes):
        owner = owner.decode()
    return client == OPERATOR or (owner or ANONYMOUS) == client


def check_owner(client: str, owner: str | bytes | None, unknown: str) -> None:
    """404 with `unknown` (the very answer to an id never created, so another client's record is not
    even shown to exist) unless `client` may see what `owner` created."""
    if not may_see(client, owner):
        raise HTTPException(404, unknown)


class PathToken:
    """ASGI middleware for clients that only take a URL (verl, SkyRL, OpenRLHF send no header): a
    request to `/t/<token>/rest` is served as `/rest`, the token kept in the scope for the token check.

    The path is rewritten in the scope uvicorn itself logs from, so the token never reaches an access
    log, and route metrics see the route's own template."""

    PREFIX = "/t/"

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] in ("http", "websocket") and scope.get("path", "").startswith(self.PREFIX):
            token, _, rest = scope["path"][len(self.PREFIX) :].partition("/")
            scope[PATH_TOKEN_SCOPE_KEY] = token
            scope["path"] = "/" + rest
            scope["raw_path"] = scope["path"].encode("utf-8", "surrogateescape")
        return await self.app(scope, receive, send)


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
    if settings.auth_required or is_loopback(host):
        return None
    return (
        f"{service} listens on {host}, beyond this machine, WITHOUT AUTHENTICATION: anyone who can reach "
        f"the port can use it. Set FRONTIER_API_TOKEN (the same value for every service and client), "
        f"or bind to 127.0.0.1. See docs/security.md, running on a shared network."
    )


def refuse_if_published_open(service: str, settings: Settings) -> None:
    """Closed by default: a service whose port is published beyond loopback (FRONTIER_PUBLISHED_ADDRESS,
    what docker-compose sets) without a token exits at start with the reason, serving nothing."""
    address = settings.published_address
    if address and not settings.auth_required and not is_loopback(address):
        raise SystemExit(
            f"{service}: refusing to start: its port is published on {address}, beyond this machine, "
            "WITHOUT A TOKEN, so anyone who reaches it could use it. Set FRONTIER_API_TOKEN (or "
            "FRONTIER_API_TOKENS) in the shell or in .env, or publish on 127.0.0.1 (unset "
            "FRONTIER_COMPOSE_ADDRESS). docs/security.md: running on a shared network."
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
