"""Auth before cost (issue 38): a request without a valid token is answered 401 from its headers, its
body never read, on every route the judge serves (its own, the SandboxFusion and Judge0 ones, the
token in the URL); and an authorised large JSON body is parsed without holding the event loop."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import threading
import time

import httpx
import pytest
import uvicorn
from fastapi import APIRouter, Body, FastAPI
from fastapi.routing import APIRoute

from services.serving import SLICED_JSON_BYTES, JsonRoute, guard
from services.settings import Settings
from tests.support.redis import claim_redis_db

TOKEN_A = "alice-0123456789abcdef-secret"
TOKEN_B = "bob-fedcba9876543210-secretxx"
BODY_BYTES = 16 << 20


@pytest.fixture(scope="module")
def redis_url():
    yield from claim_redis_db([*range(15, 7, -1), *range(1, 8)])


def _settings(redis_url: str, tmp) -> Settings:
    return Settings(
        state_dir=tmp,
        redis_url=redis_url,
        redis_prefix=f"af{os.getpid()}",
        judge_queue=f"judge-af{os.getpid()}",
        api_tokens=f"alice:{TOKEN_A},bob:{TOKEN_B}",
        max_body_mb=64,
    )


@pytest.fixture(scope="module")
def judge_url(redis_url, tmp_path_factory):
    """The judge's API served by uvicorn in a thread, with two named tokens."""
    from services.judge.api import create_app

    app = create_app(_settings(redis_url, tmp_path_factory.mktemp("authfirst")))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "the API did not start"
        time.sleep(0.05)
    yield ("127.0.0.1", port)
    server.should_exit = True
    thread.join(timeout=30)


def _headers_only(address, method: str, path: str, authorization: str | None) -> bytes:
    """Send a request's headers announcing a 16 MiB JSON body, and none of the body: what comes back
    (b"" if the server waits for the body instead, until the socket's timeout)."""
    lines = [
        f"{method} {path} HTTP/1.1",
        f"Host: {address[0]}:{address[1]}",
        "Content-Type: application/json",
        f"Content-Length: {BODY_BYTES}",
    ]
    if authorization:
        lines.append(f"Authorization: {authorization}")
    with socket.create_connection(address, timeout=20) as conn:
        conn.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        try:
            return conn.recv(4096)
        except TimeoutError:
            return b""


ROUTES = [
    ("POST", "/judge"),
    ("PUT", "/problems/p1"),
    ("POST", "/run_code"),
    ("POST", "/judge0/submissions?wait=true"),
    ("POST", "/sessions"),
    ("POST", "/no/such/route"),
]


@pytest.mark.parametrize("method, path", ROUTES)
@pytest.mark.parametrize(
    "authorization, prefix",
    [
        (None, ""),
        ("Bearer wrong-token-0000000000000", ""),
        (f"Bearer {TOKEN_A}x", ""),
        (None, "/t/wrong-0000000000000000"),
    ],
    ids=["none", "wrong", "longer", "wrong-in-url"],
)
def test_a_request_without_a_valid_token_is_refused_before_its_body_is_sent(
    judge_url, method, path, authorization, prefix
):
    answer = _headers_only(judge_url, method, prefix + path, authorization)
    assert answer.startswith(b"HTTP/1.1 401"), answer[:200]
    assert b"FRONTIER_API_TOKEN" in answer


@pytest.mark.parametrize("authorization, prefix", [(f"Bearer {TOKEN_A}", ""), (None, f"/t/{TOKEN_B}")])
def test_with_a_valid_token_the_same_request_waits_for_its_body(judge_url, authorization, prefix):
    """The control: the 401 above came from the token, not from the missing body."""
    with socket.create_connection(judge_url, timeout=1) as conn:
        head = (
            f"POST {prefix}/run_code HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"Content-Length: {BODY_BYTES}\r\n"
            + (f"Authorization: {authorization}\r\n" if authorization else "")
        )
        conn.sendall((head + "\r\n").encode())
        with pytest.raises(TimeoutError):
            conn.recv(4096)


def test_healthz_needs_no_token(judge_url):
    assert httpx.get(f"http://{judge_url[0]}:{judge_url[1]}/healthz").status_code == 200


# -- a large authorised body ---------------------------------------------------------------------
def test_every_route_of_every_api_parses_json_through_the_sliced_route(redis_url, tmp_path):
    from services.evaluator.api import create_app as evaluator_app
    from services.judge.api import create_app as judge_app
    from services.merger.api import create_app as merger_app

    settings = _settings(redis_url, tmp_path)
    apps = {
        "judge": judge_app(settings),
        "merger": merger_app(settings=settings, queue_name=f"m-af{os.getpid()}"),
        "evaluator": evaluator_app(settings),
    }
    for name, app in apps.items():
        routes = [r for r in _api_routes(app.router)]
        assert len(routes) >= 3, name
        plain = [r.path for r in routes if not isinstance(r, JsonRoute)]
        assert plain == [], (name, plain)


def _api_routes(router):
    for route in router.routes:
        original = getattr(route, "original_router", None)  # an included router
        if original is not None:
            yield from _api_routes(original)
        elif isinstance(route, APIRoute):
            yield route


def _ticking_app(route_class) -> FastAPI:
    app = FastAPI()
    guard(app, Settings())
    router = APIRouter(route_class=route_class)

    @router.post("/take")
    async def take(body: list = Body()) -> dict:
        return {"items": len(body)}

    app.include_router(router)
    return app


async def _post_counting_ticks(app: FastAPI, body: bytes) -> tuple[httpx.Response, int]:
    """POST `body` to the app in this event loop while a task counts how often the loop ran it."""
    ticks = 0
    stop = False

    async def ticker():
        nonlocal ticks
        while not stop:
            await asyncio.sleep(0)
            ticks += 1

    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://app") as client:
        task = asyncio.create_task(ticker())
        await asyncio.sleep(0)
        start = ticks
        response = await client.post("/take", content=body, headers={"content-type": "application/json"})
        stop = True
        await task
    return response, ticks - start


# 16 MB of small objects: json.loads holds the loop (and the GIL) for the whole parse
BIG_BODY = json.dumps([{"k": i} for i in range(1_600_000)]).encode()


def test_a_large_authorised_body_is_parsed_with_the_event_loop_served_throughout():
    """Counted, not timed: the loop runs other tasks many times during the parse (once a 64 KiB
    slice), where json.loads on the loop lets them run only around it."""
    assert len(BIG_BODY) > 16 * SLICED_JSON_BYTES
    response, ticks = asyncio.run(_post_counting_ticks(_ticking_app(JsonRoute), BIG_BODY))
    assert response.status_code == 200 and response.json() == {"items": 1_600_000}
    assert ticks >= len(BIG_BODY) // (64 << 10) // 2, ticks


def test_fastapis_own_route_holds_the_loop_for_the_same_body():
    """The measure above tells the two apart: FastAPI's route parses on the loop in one go."""
    response, ticks = asyncio.run(_post_counting_ticks(_ticking_app(APIRoute), BIG_BODY))
    assert response.status_code == 200
    assert ticks < 50, ticks


@pytest.mark.parametrize(
    "body, says",
    [
        (BIG_BODY[:-1], "premature EOF"),
        (BIG_BODY + b"}", "trailing garbage"),
        (BIG_BODY[:-1] + b", NaN]", "invalid char"),
    ],
    ids=["truncated", "trailing", "nan"],
)
def test_a_large_malformed_body_is_a_422_saying_malformed_json(body, says):
    response, _ = asyncio.run(_post_counting_ticks(_ticking_app(JsonRoute), body))
    assert response.status_code == 422
    assert response.json()["detail"].startswith("malformed JSON") and says in response.json()["detail"]


def test_small_bodies_are_parsed_as_json_loads_does():
    body = b'[{"x": NaN}, 123456789012345678901234567890]'
    response, _ = asyncio.run(_post_counting_ticks(_ticking_app(JsonRoute), body))
    assert response.status_code == 200 and response.json() == {"items": 2}
