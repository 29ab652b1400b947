"""The one HTTP client of the judge, sync (`JudgeClient`) and async (`AsyncJudgeClient`).

Used by the trainer, the evaluator and the merger, and meant for users' own training code:

    from services.judge.client import JudgeClient

    with JudgeClient("http://127.0.0.1:8000") as judge:
        results = judge.judge([{"id": "r1", "problem_id": "p1", "language": "python", "code": "print(1)"}])
        for r in results:
            reward = None if r.status == "judge_error" else r.rewards["R_inf"]  # mask judge errors

A batch's options are a `JudgeOptions` (services/judge/core/options.py), given as one or by name
(`judge.judge(subs, mode="full", feedback=True)`); both clients build every request body with the same
functions (`_options`, `_bodies`, `_submit_body`, ...) and differ only in how they send them.

What it does for you: large batches are cut into requests of `batch_size` submissions sent up to
`max_parallel` at a time, and answered in the order and with the ids you gave; connection errors,
502/503/504 and 429 are retried with exponential backoff (a 429's `Retry-After` is honoured); a batch
that outlives the server's wait is followed to its end through `GET /submissions/{id}`. Any other
4xx raises `JudgeClientError` with the server's message. Every request carries the bearer token
(`token=`, else FRONTIER_API_TOKEN) when there is one.

Sessions (docs/spec.md section 6.6): `create_session`, `session_exec` (never retried: an exec must not
run twice), `put_session_file`, `get_session_file`, `submit_session`, `delete_session`, `sessions`, or
`open_session(...)`, a `Session` object that is deleted at the end of a `with` block.
"""

from __future__ import annotations

import asyncio
import io
import random
import tarfile
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from pydantic import ValidationError

from services.judge.core.models import JudgeResult, Submission
from services.judge.core.options import JudgeOptions
from services.settings import get_settings

RETRY_STATUSES = (429, 502, 503, 504)


class JudgeClientError(RuntimeError):
    """The judge refused a request (a 4xx other than 429), or kept failing after every retry."""

    def __init__(self, message: str, status_code: int | None = None):
        super().__init__(message)
        self.status_code = status_code


@dataclass(frozen=True)
class RetryPolicy:
    retries: int = 8
    backoff_s: float = 0.25
    max_backoff_s: float = 30.0

    def delay_s(self, attempt: int, response: httpx.Response | None) -> float:
        """Seconds to wait before retry number `attempt` (0-based): Retry-After if given, else jittered backoff."""
        if response is not None:
            after = response.headers.get("retry-after", "")
            if after.replace(".", "", 1).isdigit():
                return min(float(after), self.max_backoff_s * 4)
        return min(self.max_backoff_s, self.backoff_s * 2**attempt) * (0.5 + random.random() / 2)


# -- shared request shaping -------------------------------------------------------------------------
def _submission_dict(s: Submission | dict) -> dict:
    return s.model_dump(exclude_none=True) if isinstance(s, Submission) else dict(s)


def _chunks(items: Sequence, size: int) -> list[Sequence]:
    return [items[i : i + size] for i in range(0, len(items), size)] or [items]


# Both clients build every request body here; each only sends them (and follows a batch to its end).
def _options(options: JudgeOptions | str | None, fields: dict[str, Any]) -> JudgeOptions:
    """A call's JudgeOptions: `options` (or a mode name alone, as the clients took before) with the
    options named in the call (`mode=`, `ks=`, `feedback=`, `feedback_template=`, `isolation=`)
    over it. Options the judge would refuse raise JudgeClientError before anything is sent, with the
    status the judge would have answered (422)."""
    try:
        return JudgeOptions.given(options, fields)
    except ValidationError as err:
        raise JudgeClientError(f"invalid judge options: {_first_error(err)}", 422) from None


def _first_error(err: ValidationError) -> str:
    first = err.errors()[0]
    where = ".".join(str(part) for part in first["loc"])
    return f"{where}: {first['msg']}" if where else first["msg"]


def _body(submissions: Sequence[dict], options: JudgeOptions) -> dict:
    """A batch's body (docs/spec.md 6.3): the submissions, `mode`, and the options that differ from
    the judge's defaults."""
    return {"submissions": list(submissions), **options.fields()}


def _bodies(submissions: Iterable[Submission | dict], options: JudgeOptions, batch_size: int) -> list[dict]:
    """The bodies of a batch cut into requests of at most `batch_size` submissions."""
    subs = [_submission_dict(s) for s in submissions]
    return [_body(chunk, options) for chunk in _chunks(subs, batch_size)]


def _tar_gz(problem_dir: Path) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        tar.add(problem_dir, arcname=problem_dir.name)
    return buf.getvalue()


def _error(response: httpx.Response) -> JudgeClientError:
    try:
        detail = response.json().get("detail", response.text)
    except ValueError:
        detail = response.text
    return JudgeClientError(f"judge answered {response.status_code}: {detail}", response.status_code)


def _results(payload: dict) -> list[JudgeResult]:
    return [JudgeResult.model_validate(r) for r in payload["results"]]


def _still_running(response: httpx.Response) -> str | None:
    """The batch id of a POST /judge that answered 504 because the batch outlived the server's wait."""
    if response.status_code == 504:
        try:
            return response.json().get("batch_id")
        except ValueError:
            return None
    return None


class _Base:
    def __init__(
        self,
        base_url: str | None,
        timeout_s: float | None,
        batch_size: int,
        max_parallel: int,
        retry: RetryPolicy | None,
        token: str | None,
    ):
        settings = get_settings()
        self.base_url = (base_url or settings.judge_url).rstrip("/")
        # the bearer token: this argument, else FRONTIER_API_TOKEN (what the judge asks for when set)
        self.headers = {"Authorization": f"Bearer {token}"} if token else settings.auth_headers()
        # POST /judge answers only when the whole batch is judged: the read timeout must cover that
        self.timeout = httpx.Timeout(timeout_s, connect=5.0)
        self.batch_size = batch_size
        self.max_parallel = max(1, max_parallel)
        # how often a request the judge did not answer is tried again: FRONTIER_JUDGE_CLIENT_RETRIES
        self.retry = retry or RetryPolicy(retries=settings.judge_client_retries)


# -- sync -------------------------------------------------------------------------------------------
class JudgeClient(_Base):
    """Blocking client; safe to share between threads."""

    def __init__(
        self,
        base_url: str | None = None,
        *,
        timeout_s: float | None = 3600.0,
        batch_size: int = 1000,
        max_parallel: int = 4,
        retry: RetryPolicy | None = None,
        transport: httpx.BaseTransport | None = None,
        token: str | None = None,
    ):
        super().__init__(base_url, timeout_s, batch_size, max_parallel, retry, token)
        self._http = httpx.Client(
            base_url=self.base_url, timeout=self.timeout, transport=transport, headers=self.headers
        )

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> JudgeClient:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _request(self, method: str, path: str, *, retry: bool = True, **kw) -> httpx.Response:
        # retry=False: one attempt, for a request that must not run twice (a session's exec)
        retries = self.retry.retries if retry else 0
        response = None
        for attempt in range(retries + 1):
            try:
                response = self._http.request(method, path, **kw)
            except httpx.TransportError as err:
                if attempt == retries:
                    raise JudgeClientError(f"judge at {self.base_url} unreachable: {err}") from err
                response = None
            else:
                if response.status_code < 400 or _still_running(response):
                    return response
                if response.status_code not in RETRY_STATUSES or attempt == retries:
                    raise _error(response)
            time.sleep(self.retry.delay_s(attempt, response))
        raise AssertionError("unreachable")

    # problems
    def put_problem(self, problem_id: str, problem: dict) -> dict:
        """Upload a problem as JSON: problem.json's fields plus `tests: [{name, input, output}]`."""
        return self._request("PUT", f"/problems/{problem_id}", json=problem).json()

    def put_problem_dir(self, problem_dir: Path | str, problem_id: str | None = None) -> dict:
        """Upload a problem directory (problem.json, tests/) as a tar.gz."""
        problem_dir = Path(problem_dir)
        return self._request(
            "PUT",
            f"/problems/{problem_id or problem_dir.name}",
            content=_tar_gz(problem_dir),
            headers={"content-type": "application/gzip"},
        ).json()

    def problems(self) -> list[dict]:
        return self._request("GET", "/problems").json()

    def problem(self, problem_id: str) -> dict:
        return self._request("GET", f"/problems/{problem_id}").json()

    # batches
    def judge(
        self, submissions: Iterable[Submission | dict], options: JudgeOptions | str | None = None, **fields
    ) -> list[JudgeResult]:
        """Judge submissions with `options` (JudgeOptions, or its fields by name: `mode`, `ks`,
        `feedback`, `feedback_template`, `isolation`); results in the same order, with the same ids.
        With `feedback`, each failing result carries `feedback` and `feedback_text` (docs/spec.md
        section 5.1), rendered with `feedback_template` (a style name or an object of parts) when
        given. `isolation`: "test" or "submission" (docs/spec.md 4.8); default the judge's
        FRONTIER_ISOLATION."""
        bodies = _bodies(submissions, _options(options, fields), self.batch_size)
        if len(bodies) == 1:
            return self._judge_one(bodies[0])
        with ThreadPoolExecutor(min(self.max_parallel, len(bodies))) as pool:
            parts = list(pool.map(self._judge_one, bodies))
        return [r for part in parts for r in part]

    def _judge_one(self, body: dict) -> list[JudgeResult]:
        response = self._request("POST", "/judge", json=body)
        batch_id = _still_running(response)
        if batch_id:
            return self.wait(batch_id)
        return _results(response.json())

    def submit(
        self, submissions: Iterable[Submission | dict], options: JudgeOptions | str | None = None, **fields
    ) -> str:
        """Queue a batch and return its id at once (POST /submissions); options as `judge`'s."""
        body = _body([_submission_dict(s) for s in submissions], _options(options, fields))
        return self._request("POST", "/submissions", json=body).json()["batch_id"]

    def batch(self, batch_id: str, wait_s: float = 0) -> dict:
        """A batch's status; with `wait_s`, the server holds the request up to that long for it to finish."""
        return self._request("GET", f"/submissions/{batch_id}", params={"wait_s": wait_s}).json()

    def wait(self, batch_id: str, timeout_s: float | None = None) -> list[JudgeResult]:
        """Block until a batch is done (long polls, no busy polling) and return its results."""
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        while True:
            step = 60.0 if deadline is None else max(0.0, min(60.0, deadline - time.monotonic()))
            state = self.batch(batch_id, wait_s=step)
            if state["status"] == "done":
                return _results(state)
            if deadline is not None and time.monotonic() >= deadline:
                raise JudgeClientError(f"batch {batch_id} not done after {timeout_s} s")

    def healthz(self) -> dict:
        return self._request("GET", "/healthz").json()

    # sessions (docs/spec.md section 6.6)
    def create_session(
        self, kind: str = "python", problem_id: str | None = None, limits: dict | None = None
    ) -> dict:
        """Start a session; returns `{"id", "kind", "problem_id", "expires_at", "files"}`."""
        return self._request("POST", "/sessions", json=_session_body(kind, problem_id, limits)).json()

    def open_session(
        self, kind: str = "python", problem_id: str | None = None, limits: dict | None = None
    ) -> Session:
        """A `Session` object (a context manager that deletes the session on exit)."""
        return Session(self, self.create_session(kind, problem_id, limits))

    def session_exec(
        self, session_id: str, *, code: str | None = None, command: str | None = None, timeout_s: float = 30.0
    ) -> dict:
        """Run Python `code` or a bash `command` in the session: the exec result (`status`, `stdout`, ...).
        Never retried: an exec must not run twice."""
        body = _exec_body(code, command, timeout_s)
        return self._request("POST", f"/sessions/{session_id}/exec", json=body, retry=False).json()

    def put_session_file(self, session_id: str, path: str, data: bytes | str) -> dict:
        content = data.encode() if isinstance(data, str) else data
        return self._request("PUT", f"/sessions/{session_id}/files/{_quote(path)}", content=content).json()

    def get_session_file(self, session_id: str, path: str) -> bytes:
        return self._request("GET", f"/sessions/{session_id}/files/{_quote(path)}").content

    def submit_session(
        self,
        session_id: str,
        *,
        path: str | None = None,
        code: str | None = None,
        language: str = "python",
        options: JudgeOptions | None = None,
        **fields,
    ) -> JudgeResult:
        """Judge a file of the session (or `code`) on its problem: the result object of `judge`
        (`options` as there; a session's submit takes no `feedback_template`)."""
        body = _submit_body(path, code, language, _options(options, fields))
        return JudgeResult.model_validate(
            self._request("POST", f"/sessions/{session_id}/submit", json=body).json()
        )

    def delete_session(self, session_id: str) -> bool:
        """End the session; False when it was already gone."""
        try:
            self._request("DELETE", f"/sessions/{session_id}")
        except JudgeClientError as err:
            if err.status_code == 404:
                return False
            raise
        return True

    def sessions(self) -> list[dict]:
        return self._request("GET", "/sessions").json()


# -- async ------------------------------------------------------------------------------------------
class AsyncJudgeClient(_Base):
    """The same API for asyncio code: `await client.judge(...)`."""

    def __init__(
        self,
        base_url: str | None = None,
        *,
        timeout_s: float | None = 3600.0,
        batch_size: int = 1000,
        max_parallel: int = 4,
        retry: RetryPolicy | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        token: str | None = None,
    ):
        super().__init__(base_url, timeout_s, batch_size, max_parallel, retry, token)
        self._http = httpx.AsyncClient(
            base_url=self.base_url, timeout=self.timeout, transport=transport, headers=self.headers
        )

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncJudgeClient:
        return self

    async def __aexit__(self, *exc) -> None:
        await self.aclose()

    async def _request(self, method: str, path: str, *, retry: bool = True, **kw) -> httpx.Response:
        # retry=False: one attempt, for a request that must not run twice (a session's exec)
        retries = self.retry.retries if retry else 0
        response = None
        for attempt in range(retries + 1):
            try:
                response = await self._http.request(method, path, **kw)
            except httpx.TransportError as err:
                if attempt == retries:
                    raise JudgeClientError(f"judge at {self.base_url} unreachable: {err}") from err
                response = None
            else:
                if response.status_code < 400 or _still_running(response):
                    return response
                if response.status_code not in RETRY_STATUSES or attempt == retries:
                    raise _error(response)
            await asyncio.sleep(self.retry.delay_s(attempt, response))
        raise AssertionError("unreachable")

    async def put_problem(self, problem_id: str, problem: dict) -> dict:
        return (await self._request("PUT", f"/problems/{problem_id}", json=problem)).json()

    async def put_problem_dir(self, problem_dir: Path | str, problem_id: str | None = None) -> dict:
        problem_dir = Path(problem_dir)
        response = await self._request(
            "PUT",
            f"/problems/{problem_id or problem_dir.name}",
            content=_tar_gz(problem_dir),
            headers={"content-type": "application/gzip"},
        )
        return response.json()

    async def problems(self) -> list[dict]:
        return (await self._request("GET", "/problems")).json()

    async def problem(self, problem_id: str) -> dict:
        return (await self._request("GET", f"/problems/{problem_id}")).json()

    async def judge(
        self, submissions: Iterable[Submission | dict], options: JudgeOptions | str | None = None, **fields
    ) -> list[JudgeResult]:
        """As JudgeClient.judge."""
        bodies = _bodies(submissions, _options(options, fields), self.batch_size)
        gate = asyncio.Semaphore(self.max_parallel)

        async def one(body: dict) -> list[JudgeResult]:
            async with gate:
                return await self._judge_one(body)

        parts = await asyncio.gather(*(one(b) for b in bodies))
        return [r for part in parts for r in part]

    async def _judge_one(self, body: dict) -> list[JudgeResult]:
        response = await self._request("POST", "/judge", json=body)
        batch_id = _still_running(response)
        if batch_id:
            return await self.wait(batch_id)
        return _results(response.json())

    async def submit(
        self, submissions: Iterable[Submission | dict], options: JudgeOptions | str | None = None, **fields
    ) -> str:
        body = _body([_submission_dict(s) for s in submissions], _options(options, fields))
        return (await self._request("POST", "/submissions", json=body)).json()["batch_id"]

    async def batch(self, batch_id: str, wait_s: float = 0) -> dict:
        return (await self._request("GET", f"/submissions/{batch_id}", params={"wait_s": wait_s})).json()

    async def wait(self, batch_id: str, timeout_s: float | None = None) -> list[JudgeResult]:
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        while True:
            step = 60.0 if deadline is None else max(0.0, min(60.0, deadline - time.monotonic()))
            state = await self.batch(batch_id, wait_s=step)
            if state["status"] == "done":
                return _results(state)
            if deadline is not None and time.monotonic() >= deadline:
                raise JudgeClientError(f"batch {batch_id} not done after {timeout_s} s")

    async def healthz(self) -> dict:
        return (await self._request("GET", "/healthz")).json()

    # sessions (docs/spec.md section 6.6)
    async def create_session(
        self, kind: str = "python", problem_id: str | None = None, limits: dict | None = None
    ) -> dict:
        body = _session_body(kind, problem_id, limits)
        return (await self._request("POST", "/sessions", json=body)).json()

    async def open_session(
        self, kind: str = "python", problem_id: str | None = None, limits: dict | None = None
    ) -> AsyncSession:
        """An `AsyncSession` (`async with`: deleted on exit)."""
        return AsyncSession(self, await self.create_session(kind, problem_id, limits))

    async def session_exec(
        self, session_id: str, *, code: str | None = None, command: str | None = None, timeout_s: float = 30.0
    ) -> dict:
        body = _exec_body(code, command, timeout_s)
        return (await self._request("POST", f"/sessions/{session_id}/exec", json=body, retry=False)).json()

    async def put_session_file(self, session_id: str, path: str, data: bytes | str) -> dict:
        content = data.encode() if isinstance(data, str) else data
        url = f"/sessions/{session_id}/files/{_quote(path)}"
        return (await self._request("PUT", url, content=content)).json()

    async def get_session_file(self, session_id: str, path: str) -> bytes:
        return (await self._request("GET", f"/sessions/{session_id}/files/{_quote(path)}")).content

    async def submit_session(
        self,
        session_id: str,
        *,
        path: str | None = None,
        code: str | None = None,
        language: str = "python",
        options: JudgeOptions | None = None,
        **fields,
    ) -> JudgeResult:
        body = _submit_body(path, code, language, _options(options, fields))
        response = await self._request("POST", f"/sessions/{session_id}/submit", json=body)
        return JudgeResult.model_validate(response.json())

    async def delete_session(self, session_id: str) -> bool:
        try:
            await self._request("DELETE", f"/sessions/{session_id}")
        except JudgeClientError as err:
            if err.status_code == 404:
                return False
            raise
        return True

    async def sessions(self) -> list[dict]:
        return (await self._request("GET", "/sessions")).json()


# -- sessions ---------------------------------------------------------------------------------------
def _session_body(kind: str, problem_id: str | None, limits: dict | None) -> dict:
    body: dict[str, Any] = {"kind": kind}
    if problem_id is not None:
        body["problem_id"] = problem_id
    if limits:
        body["limits"] = dict(limits)
    return body


def _exec_body(code: str | None, command: str | None, timeout_s: float) -> dict:
    body: dict[str, Any] = {"timeout_s": timeout_s}
    if code is not None:
        body["code"] = code
    if command is not None:
        body["command"] = command
    return body


def _submit_body(path: str | None, code: str | None, language: str, options: JudgeOptions) -> dict:
    """A session's submit (docs/spec.md 6.6): the program, and the options as a batch's."""
    body: dict[str, Any] = {"language": language, **options.fields()}
    if path is not None:
        body["path"] = path
    if code is not None:
        body["code"] = code
    return body


def _quote(path: str) -> str:
    """A session file path in a URL, `/` included, escaped: so `..` reaches the judge as written (and is
    refused there) instead of being resolved away by the URL parser."""
    from urllib.parse import quote

    return quote(path, safe="")


class Session:
    """One session of a `JudgeClient`; deleted on `close()` or at the end of a `with` block:

    with judge.open_session("python", problem_id="p1") as s:
        s.exec("x = 41")
        s.exec("x + 1")["stdout"]            # '42\n'
        s.write("solution.py", program)
        result = s.submit(path="solution.py")  # the result object of judge()
    """

    def __init__(self, client: JudgeClient, created: dict):
        self.client = client
        self.id: str = created["id"]
        self.kind: str = created["kind"]
        self.expires_at: float = created["expires_at"]
        self.files: list[str] = created.get("files", [])

    def exec(self, text: str, timeout_s: float = 30.0) -> dict:
        """Python code in a python session, a command line in a bash session."""
        field = "code" if self.kind == "python" else "command"
        return self.client.session_exec(self.id, timeout_s=timeout_s, **{field: text})

    def write(self, path: str, data: bytes | str) -> dict:
        return self.client.put_session_file(self.id, path, data)

    def read(self, path: str) -> bytes:
        return self.client.get_session_file(self.id, path)

    def submit(self, **kw) -> JudgeResult:
        return self.client.submit_session(self.id, **kw)

    def close(self) -> None:
        self.client.delete_session(self.id)

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class AsyncSession:
    """`Session` for asyncio code (`async with await judge.open_session(...) as s`)."""

    def __init__(self, client: AsyncJudgeClient, created: dict):
        self.client = client
        self.id: str = created["id"]
        self.kind: str = created["kind"]
        self.expires_at: float = created["expires_at"]
        self.files: list[str] = created.get("files", [])

    async def exec(self, text: str, timeout_s: float = 30.0) -> dict:
        field = "code" if self.kind == "python" else "command"
        return await self.client.session_exec(self.id, timeout_s=timeout_s, **{field: text})

    async def write(self, path: str, data: bytes | str) -> dict:
        return await self.client.put_session_file(self.id, path, data)

    async def read(self, path: str) -> bytes:
        return await self.client.get_session_file(self.id, path)

    async def submit(self, **kw) -> JudgeResult:
        return await self.client.submit_session(self.id, **kw)

    async def close(self) -> None:
        await self.client.delete_session(self.id)

    async def __aenter__(self) -> AsyncSession:
        return self

    async def __aexit__(self, *exc) -> None:
        await self.close()
