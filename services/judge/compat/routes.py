"""The compat routes: SandboxFusion's `/run_code` and `/run_jupyter`, and Judge0's API under `/judge0`.

Each request becomes a run (`runs`) on the judge's own queue and workers; the routes only translate
(`sandboxfusion`, `judge0`) and wait. They sit behind the same bearer token as every judge route, and
count in the judge's /metrics (`frontier_judge_compat_*`).
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

import redis
import redis.asyncio as aioredis
from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from prometheus_client import CollectorRegistry, Counter
from pydantic import BaseModel, Field

from services.ids import HEX_ID, matches
from services.judge.compat import judge0, runs, sandboxfusion
from services.judge.compat.runs import RunOutcome, RunRequest
from services.security import api_dependencies
from services.settings import Settings

MAX_BATCH = 20  # Judge0's max_submission_batch_size


class Judge0Batch(BaseModel):
    submissions: list[judge0.SubmissionIn] = Field(min_length=1, max_length=MAX_BATCH)


def _judge0_invalid(err: RequestValidationError) -> JSONResponse:
    """A malformed Judge0 request in Judge0's own shape, `{field: [message]}` (422), plus the `detail`
    and `errors` every 422 of the judge has."""
    fields: dict[str, list[str]] = {}
    described = []
    for e in err.errors():
        loc = [str(part) for part in e.get("loc", ())]
        field = loc[-1] if len(loc) > 1 else (loc[0] if loc else "request")
        fields.setdefault(field, []).append(e.get("msg", "is invalid"))
        described.append(f"{'.'.join(loc[1:]) or field}: {e.get('msg')}")
    errors = [
        {"loc": list(e.get("loc", ())), "msg": e.get("msg"), "type": e.get("type")} for e in err.errors()
    ]
    return JSONResponse(
        status_code=422, content={**fields, "detail": "; ".join(described[:20]), "errors": errors}
    )


def _counted_route(requests: Counter) -> type[APIRoute]:
    """A route class that counts every answer by endpoint and HTTP status, refusals included, and
    answers a malformed Judge0 request in Judge0's error shape."""

    class CountedRoute(APIRoute):
        def get_route_handler(self):
            handler = super().get_route_handler()
            endpoint = f"{','.join(sorted(self.methods))} {self.path}"
            judge0_route = self.path.startswith("/judge0/")

            async def counted(request: Request):
                code = 500
                try:
                    response = await handler(request)
                    code = response.status_code
                    return response
                except HTTPException as err:
                    code = err.status_code
                    raise
                except RequestValidationError as err:
                    code = 422
                    if judge0_route:
                        return _judge0_invalid(err)
                    raise
                finally:
                    requests.labels(endpoint, str(code)).inc()

            return counted

    return CountedRoute


def router(
    settings: Settings,
    conn: redis.Redis,
    aconn: aioredis.Redis,
    registry: CollectorRegistry | None = None,
) -> APIRouter:
    """The compat router, with the judge API's token dependency; its counters go to `registry` (the
    judge API's own, so they show in its /metrics)."""
    registry = registry if registry is not None else CollectorRegistry()
    requests = Counter(
        "frontier_judge_compat_requests",
        "Compat API requests answered, by endpoint and HTTP status (refusals included).",
        ["endpoint", "code"],
        registry=registry,
    )
    accepted = Counter(
        "frontier_judge_compat_runs",
        "Runs the compat APIs put on the judge's queue, by API.",
        ["api"],
        registry=registry,
    )
    finished = Counter(
        "frontier_judge_compat_sandboxfusion_results",
        "SandboxFusion answers with a run's result, by endpoint and status (Success, Failed, SandboxError).",
        ["endpoint", "status"],
        registry=registry,
    )
    api = APIRouter(dependencies=api_dependencies(settings), route_class=_counted_route(requests))
    code_limit = settings.max_code_kb << 10

    def too_large(code: str) -> bool:
        return len(code) * 4 > code_limit and len(code.encode()) > code_limit

    async def wait_run(run_id: str, wait_s: float) -> RunOutcome | None:
        """The run's outcome (runs.wait); a run no worker had the memory for is a 503 with the reason."""
        outcome = await runs.wait(aconn, settings, run_id, wait_s)
        if outcome is not None and outcome.status == "refused":
            raise HTTPException(
                503, f"run {run_id} was not run: {outcome.message}", headers={"Retry-After": "5"}
            )
        return outcome

    async def start(request: RunRequest, api_name: str) -> str:
        try:
            run_id = await asyncio.to_thread(runs.submit, conn, settings, request)
        except runs.QueueFull as err:
            raise HTTPException(429, f"{err}; retry in 5 s", headers={"Retry-After": "5"}) from None
        accepted.labels(api_name).inc()
        return run_id

    # -- SandboxFusion ------------------------------------------------------------------------------
    @api.post(
        "/run_code",
        tags=["compat"],
        response_model=sandboxfusion.RunCodeResponse,
        responses={400: {}, 413: {}, 422: {}, 429: {}, 504: {}},
    )
    async def run_code(body: sandboxfusion.RunCodeRequest) -> Any:
        """SandboxFusion's /run_code: run one program on one stdin in the judge's sandbox."""
        try:
            # off the event loop: decoding the files' base64 costs work in their size
            request = await asyncio.to_thread(sandboxfusion.to_run, body, settings.compile_time_limit_ms)
        except sandboxfusion.RequestRefused as err:
            refused = sandboxfusion.RunCodeResponse(status="SandboxError", message=str(err))
            return JSONResponse(status_code=400, content={**refused.model_dump(), "detail": str(err)})
        if too_large(request.code):
            raise HTTPException(
                413, f"code over the limit of {settings.max_code_kb} KB (FRONTIER_MAX_CODE_KB)"
            )
        run_id = await start(request, "sandboxfusion")
        outcome = await wait_run(run_id, settings.judge_wait_s)
        if outcome is None:
            late = sandboxfusion.RunCodeResponse(
                status="SandboxError", message=f"run {run_id} not finished after {settings.judge_wait_s} s"
            )
            return JSONResponse(status_code=504, content={**late.model_dump(), "detail": late.message})
        answer = sandboxfusion.from_run(outcome, request.language, body.fetch_files)
        finished.labels("/run_code", answer.status).inc()
        return answer

    @api.post(
        "/run_jupyter",
        tags=["compat"],
        response_model=sandboxfusion.RunJupyterResponse,
        responses={400: {}, 413: {}, 422: {}, 429: {}, 504: {}},
    )
    async def run_jupyter(body: sandboxfusion.RunJupyterRequest) -> Any:
        """SandboxFusion's /run_jupyter: cells in turn in one Python interpreter, in one sandboxed run."""
        try:
            request = sandboxfusion.to_jupyter_run(body)
        except sandboxfusion.RequestRefused as err:
            refused = sandboxfusion.RunJupyterResponse(status="SandboxError", message=str(err))
            return JSONResponse(status_code=400, content={**refused.model_dump(), "detail": str(err)})
        if too_large(request.stdin):
            raise HTTPException(
                413, f"cells over the limit of {settings.max_code_kb} KB (FRONTIER_MAX_CODE_KB)"
            )
        run_id = await start(request, "sandboxfusion")
        outcome = await wait_run(run_id, settings.judge_wait_s)
        if outcome is None:
            late = sandboxfusion.RunJupyterResponse(
                status="SandboxError", message=f"run {run_id} not finished after {settings.judge_wait_s} s"
            )
            return JSONResponse(status_code=504, content={**late.model_dump(), "detail": late.message})
        answer = sandboxfusion.from_jupyter_run(outcome, body.fetch_files)
        finished.labels("/run_jupyter", answer.status).inc()
        return answer

    # -- Judge0 -------------------------------------------------------------------------------------
    j0 = "/judge0"

    @api.get(f"{j0}/languages", tags=["compat"])
    async def j0_languages() -> list[dict]:
        return judge0.LANGUAGES

    @api.get(f"{j0}/languages/{{language_id}}", tags=["compat"], responses={404: {}})
    async def j0_language(language_id: int) -> Any:
        for language in judge0.LANGUAGES:
            if language["id"] == language_id:
                return language
        detail = f"language with id {language_id} doesn't exist"
        return JSONResponse(status_code=404, content={"error": detail, "detail": detail})

    @api.get(f"{j0}/statuses", tags=["compat"])
    async def j0_statuses() -> list[dict]:
        return [{"id": i, "description": d} for i, d in judge0.STATUSES.items()]

    @api.get(f"{j0}/about", tags=["compat"])
    async def j0_about() -> dict:
        return judge0.about()

    @api.get(f"{j0}/config_info", tags=["compat"])
    async def j0_config_info() -> dict:
        return judge0.config_info(settings)

    def fields_of(fields: str | None) -> list[str] | None:
        return [f.strip() for f in fields.split(",") if f.strip()] if fields else None

    def j0_request(sub: judge0.SubmissionIn, base64_encoded: bool) -> RunRequest:
        request = judge0.to_run(
            sub,
            base64_encoded,
            callback_hosts=settings.judge0_callback_hosts,
            max_files_bytes=settings.tmp_size_mb << 20,
        )
        if too_large(request.code):
            raise judge0.SubmissionRefused(
                {"source_code": [f"is over the limit of {settings.max_code_kb} KB"]}
            )
        return request

    async def j0_tag(token: str) -> dict | None:
        """A Judge0 submission's tag; None, as Judge0 answers an unknown token, for a token of another
        shape (checked before it names a key: `<token>:res` must not reach the run's result)."""
        if not matches(HEX_ID, token):
            return None
        tag = await runs.tag(aconn, settings, token)
        return tag if tag is not None and "judge0" in tag else None

    async def j0_answer(
        token: str, base64_encoded: bool, fields: str | None, wait_s: float, refuse: bool = False
    ) -> dict | None:
        """`refuse`: a run that was refused (no memory for it) is a 503 (a POST that waits); a read
        later shows it as Judge0's status 13 with the reason, as its callback does."""
        tag = await j0_tag(token)
        if tag is None:
            return None
        outcome = await (wait_run(token, wait_s) if refuse else runs.wait(aconn, settings, token, wait_s))
        running = outcome is None and await runs.started(aconn, settings, token)
        return judge0.submission(token, tag, outcome, base64_encoded, fields_of(fields), running)

    @api.post(f"{j0}/submissions", tags=["compat"], status_code=201, responses={413: {}, 422: {}, 429: {}})
    async def j0_submit(
        body: judge0.SubmissionIn,
        base64_encoded: bool = False,
        wait: bool = False,
        fields: Annotated[str | None, Query(max_length=1000)] = None,
    ) -> Any:
        """Judge0's POST /submissions: a token at once, or with `wait=true` the finished submission."""
        try:
            # off the event loop: base64 and an additional_files zip cost work in their size
            request = await asyncio.to_thread(j0_request, body, base64_encoded)
        except judge0.SubmissionRefused as err:
            # Judge0's own shape ({field: [messages]}), plus the `detail` every 4xx of the judge has
            code = 413 if isinstance(err, judge0.SubmissionTooLarge) else 422
            return JSONResponse(status_code=code, content={**err.errors, "detail": str(err)})
        token = await start(request, "judge0")
        if not wait:
            return {"token": token}
        return await j0_answer(token, base64_encoded, fields, settings.judge_wait_s, refuse=True)

    @api.post(f"{j0}/submissions/batch", tags=["compat"], status_code=201, responses={422: {}, 429: {}})
    async def j0_submit_batch(body: Judge0Batch, base64_encoded: bool = False) -> list[dict]:
        """Judge0's batch submit: a token, or the submission's errors, for each in order."""
        answers: list[dict] = []
        for sub in body.submissions:
            try:
                request = await asyncio.to_thread(j0_request, sub, base64_encoded)
            except judge0.SubmissionRefused as err:
                answers.append(err.errors)
                continue
            answers.append({"token": await start(request, "judge0")})
        return answers

    @api.get(f"{j0}/submissions/batch", tags=["compat"], responses={404: {}})
    async def j0_get_batch(
        tokens: Annotated[str, Query(max_length=20 * 40)],
        base64_encoded: bool = False,
        fields: Annotated[str | None, Query(max_length=1000)] = None,
    ) -> dict:
        """Judge0's batch read: `tokens` comma-separated; an unknown token answers null in its place."""
        wanted = [t.strip() for t in tokens.split(",") if t.strip()]
        if not wanted or len(wanted) > MAX_BATCH:
            raise HTTPException(422, f"tokens: give 1 to {MAX_BATCH} comma-separated tokens")
        return {"submissions": [await j0_answer(t, base64_encoded, fields, 0) for t in wanted]}

    @api.get(f"{j0}/submissions/{{token}}", tags=["compat"], responses={404: {}})
    async def j0_get(
        token: str,
        base64_encoded: bool = False,
        fields: Annotated[str | None, Query(max_length=1000)] = None,
    ) -> Any:
        """Judge0's GET /submissions/{token}: status 1 (In Queue), then 2 (Processing) once a worker
        took it, then its result."""
        answer = await j0_answer(token, base64_encoded, fields, 0)
        if answer is None:
            detail = f"unknown submission token {token!r} (never accepted, or expired)"
            return JSONResponse(status_code=404, content={"error": "Not Found", "detail": detail})
        return answer

    @api.delete(f"{j0}/submissions/{{token}}", tags=["compat"], responses={400: {}, 404: {}})
    async def j0_delete(token: str, fields: Annotated[str | None, Query(max_length=1000)] = None) -> Any:
        """Judge0's DELETE /submissions/{token}: where FRONTIER_JUDGE0_SUBMISSION_DELETE allows it, a
        finished submission is forgotten and answered one last time, base64-encoded (as Judge0 does)."""
        if not settings.judge0_submission_delete:
            detail = "delete not allowed (FRONTIER_JUDGE0_SUBMISSION_DELETE is off)"
            return JSONResponse(status_code=400, content={"error": "delete not allowed", "detail": detail})
        tag = await j0_tag(token)
        if tag is None:
            detail = f"unknown submission token {token!r} (never accepted, or expired)"
            return JSONResponse(status_code=404, content={"error": "Not Found", "detail": detail})
        outcome = await runs.wait(aconn, settings, token, 0)
        if outcome is None:
            sid = 2 if await runs.started(aconn, settings, token) else 1
            error = f"submission cannot be deleted because its status is {sid} ({judge0.STATUSES[sid]})"
            return JSONResponse(status_code=400, content={"error": error, "detail": error})
        answer = judge0.submission(token, tag, outcome, True, fields_of(fields))
        await runs.forget(aconn, settings, token)
        return answer

    return api
