"""An exec's output costs about twice its size at most in each process and in Redis (issue 38): the
worker sends the bytes it read as they are, beside the reply's JSON (no text, no JSON copy of them);
Redis holds them once, never escaped; the API holds its bytes and its text, then its text and the
answer. Measured with tracemalloc (this process's Python allocations) and Redis's MEMORY USAGE, each
against the same output sent the way it was before (its JSON in one string), which costs more."""

from __future__ import annotations

import asyncio
import base64
import json
import tracemalloc

import pytest
import redis
import redis.asyncio as aioredis

from services.judge.api.session_models import ExecResult
from services.judge.api.sessions import exec_answer
from services.judge.core.sandbox.cgroups import detect
from services.judge.core.sandbox.seccomp import filter_bpf
from services.judge.core.sandbox.session import SessionSandbox
from services.judge.queue import session_bus as bus
from services.judge.queue.session_bus import SessionKeys
from services.judge.worker.sessions import push_reply
from tests.support.redis import claim_redis_db

MIB = 1 << 20
OUTPUT = 16 * MIB
PRINT = f"import sys; n = sys.stdout.write('x' * {OUTPUT}); sys.stdout.flush()"
# 2 MiB of a control character: valid UTF-8, which JSON writes six bytes a byte (\\u0001)
CONTROL = 2 * MIB
PRINT_CONTROL = f"import sys; n = sys.stdout.write(chr(1) * {CONTROL}); sys.stdout.flush()"


@pytest.fixture(scope="module")
def conn():
    for url in claim_redis_db([*range(15, 7, -1), *range(1, 8)]):
        yield redis.Redis.from_url(url)


@pytest.fixture(scope="module")
def box(tmp_path_factory):
    cgroups, bpf = detect(), filter_bpf()
    b = SessionSandbox(
        "python",
        state_dir=tmp_path_factory.mktemp("outmem"),
        cgroup_host=cgroups,
        seccomp_bpf=bpf,
        memory_limit_mb=512,
        cpu_limit_s=60.0,
        output_limit_kb=(OUTPUT + MIB) >> 10,
    )
    b.start()
    yield b
    b.close()


KEYS = SessionKeys("outmem")


def _peak(fn) -> tuple[int, object]:
    """The most this process's Python allocations grew by while `fn` ran, and what it returned."""
    tracemalloc.start()
    try:
        value = fn()
        return tracemalloc.get_traced_memory()[1], value
    finally:
        tracemalloc.stop()


def _worker_now(box, conn, code: str, rid: str) -> None:
    """What the session worker does for an exec: run it, push the reply (manager.push_reply)."""
    result, out, err = box.exec_raw(code, 60)
    reply = {"ok": True, "result": result.__dict__, "parts": [out, err]}
    with conn.pipeline(transaction=False) as pipe:
        push_reply(pipe, KEYS, rid, reply)
        pipe.execute()


def _worker_before(box, conn, code: str, rid: str) -> None:
    """The same exec as the worker answered it before: text, then the whole reply as one JSON."""
    result = box.exec(code, 60)
    conn.rpush(KEYS.reply(rid), json.dumps({"ok": True, "result": result.__dict__}, ensure_ascii=False))


def test_the_worker_holds_an_exec_output_about_once(box, conn):
    peak, _ = _peak(lambda: _worker_now(box, conn, PRINT, "w-now"))
    assert peak < 1.5 * OUTPUT, peak / OUTPUT
    before, _ = _peak(lambda: _worker_before(box, conn, PRINT, "w-before"))
    assert before > 3 * OUTPUT, before / OUTPUT  # the measure tells the two ways apart
    conn.delete(KEYS.reply("w-before"), *conn.scan_iter(KEYS.reply("w-now") + "*"))


def test_redis_holds_an_exec_output_once_never_escaped(box, conn):
    _worker_now(box, conn, PRINT_CONTROL, "r-now")
    _worker_before(box, conn, PRINT_CONTROL, "r-before")
    now = sum(conn.memory_usage(k, samples=0) for k in conn.scan_iter(KEYS.reply("r-now") + "*"))
    before = conn.memory_usage(KEYS.reply("r-before"), samples=0)
    assert now < 1.5 * CONTROL, now / CONTROL
    assert before > 4 * CONTROL, before / CONTROL
    conn.delete(KEYS.reply("r-before"), *conn.scan_iter(KEYS.reply("r-now") + "*"))


def _api_now(conn, rid: str) -> bytes:
    """What the API does with the reply (bus.reply_of, the exec route's exec_answer), on its async
    Redis client as the route reads it."""

    async def answer() -> bytes:
        aconn = aioredis.Redis(
            connection_pool=aioredis.ConnectionPool(**conn.connection_pool.connection_kwargs)
        )
        try:
            reply = await bus.reply_of(aconn, KEYS, rid, await aconn.lpop(KEYS.reply(rid)))
            return exec_answer(reply["result"], reply["parts"])
        finally:
            await aconn.aclose()

    return asyncio.run(answer())


def test_the_api_holds_an_exec_output_about_twice_and_answers_it_whole(box, conn):
    _worker_now(box, conn, PRINT, "a-now")
    peak, body = _peak(lambda: _api_now(conn, "a-now"))
    assert peak < 2.5 * OUTPUT, peak / OUTPUT
    result = ExecResult.model_validate_json(body)
    assert result.status == "ok" and result.stdout == "x" * OUTPUT and result.stdout_encoding == "utf-8"
    del result, body

    _worker_before(box, conn, PRINT, "a-before")

    def answer_before() -> bytes:  # the route as it was: the model from the JSON, FastAPI's rendering
        from fastapi.encoders import jsonable_encoder

        async def read() -> bytes:
            aconn = aioredis.Redis(
                connection_pool=aioredis.ConnectionPool(**conn.connection_pool.connection_kwargs)
            )
            try:
                return await aconn.lpop(KEYS.reply("a-before"))
            finally:
                await aconn.aclose()

        model = ExecResult.model_validate(json.loads(asyncio.run(read()))["result"])
        return json.dumps(jsonable_encoder(model), ensure_ascii=False).encode()

    before, _ = _peak(answer_before)
    assert before > 3 * OUTPUT, before / OUTPUT


def test_output_that_is_not_utf8_is_answered_in_base64_through_the_parts(box, conn):
    _worker_now(box, conn, "import sys; n = sys.stdout.buffer.write(bytes(range(256)))", "b64")
    result = ExecResult.model_validate_json(_api_now(conn, "b64"))
    assert result.stdout_encoding == "base64"
    assert base64.b64decode(result.stdout) == bytes(range(256))
