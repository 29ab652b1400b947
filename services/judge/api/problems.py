"""Problems over HTTP: PUT /problems/{problem_id} (problem.json plus tests as JSON, or a tar.gz), GET
/problems and GET /problems/{problem_id}. Test files are stored once by content hash.

Hidden stays hidden (docs/spec.md section 9.6): no answer carries a hash of a hidden test (a small
expected output falls to a brute force of its SHA-256, and a lookup table keyed by it passes tests it
never solved); a definition's digest is keyed by a random salt of this Redis, so it cannot be
recomputed from guessed test data; and an upload's answer never says whether a test file was already
stored (which would tell whether any problem holds a guessed content)."""

from __future__ import annotations

import asyncio
import json
from typing import Annotated, Any

import pydantic_core
from fastapi import APIRouter, FastAPI, HTTPException, Path, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import ValidationError

from services.ids import matches
from services.judge.api.errors import invalid
from services.judge.api.models import ProblemStored, ProblemUpload
from services.judge.api.state import JudgeState, JudgeStateDep
from services.judge.queue import checks
from services.judge.queue import problems as pstore
from services.problems.spec import PROBLEM_ID_RE, ProblemSpec, ProgramChecker
from services.problems.store import (
    Problem,
    ProblemError,
    ProblemLimits,
    ProblemTooLarge,
    build_problem,
    load_problem_tar,
    sha256,
)
from services.security import ANONYMOUS, OPERATOR, ClientDep, may_see
from services.serving import JsonRoute

router = APIRouter(route_class=JsonRoute)

GZIP_TYPES = ("application/gzip", "application/x-gzip", "application/x-tar+gzip", "application/tar+gzip")


@router.put(
    "/problems/{problem_id}",
    response_model=ProblemStored,
    responses={201: {"model": ProblemStored}, 413: {}, 422: {}},
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {
                "application/json": {"schema": {"$ref": "#/components/schemas/ProblemUpload"}},
                "application/gzip": {"schema": {"type": "string", "format": "binary"}},
            },
        }
    },
)
async def put_problem(
    state: JudgeStateDep,
    request: Request,
    client: ClientDep,
    # the pattern is documented here and checked below, with a message that names it
    problem_id: Annotated[str, Path(json_schema_extra={"pattern": PROBLEM_ID_RE.pattern})],
) -> JSONResponse:
    """Upload a problem: problem.json's fields plus `tests` as JSON, or the problem directory as a
    tar.gz (`Content-Type: application/gzip`). Idempotent; each test file is stored once by hash.
    A problem is replaced only by the client that first uploaded it, or the operator (403); every
    client may judge against it."""
    if not PROBLEM_ID_RE.match(problem_id):
        raise HTTPException(422, f"bad problem id {problem_id!r}: {PROBLEM_ID_RE.pattern}")
    # before the body is read; checked again where it is stored (two first uploads at once)
    _may_replace(problem_id, client, await pstore.owner(state.aconn, state.keys, problem_id))
    body = await request.body()
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    blobs = _Blobs()
    try:
        if ctype in GZIP_TYPES:
            problem = await asyncio.to_thread(load_problem_tar, body, blobs, state.limits)
            if problem.id != problem_id:
                raise HTTPException(
                    422, f"the archive's problem.json has id {problem.id!r}, the URL says {problem_id!r}"
                )
        elif ctype in ("application/json", ""):
            problem = await asyncio.to_thread(_problem_from_json, body, problem_id, blobs, state.limits)
        else:
            raise HTTPException(
                415, f"Content-Type {ctype!r}: send application/json or application/gzip (a tar.gz)"
            )
    except ProblemTooLarge as err:
        state.metrics.rejected.labels("problem_too_large").inc()
        raise HTTPException(413, str(err)) from None
    except ProblemError as err:
        raise HTTPException(422, str(err)) from None
    await _check_checker(state, problem)  # a program checker that does not compile refuses it (spec 2.4)
    stored = await asyncio.to_thread(_store_problem, state, problem, blobs, client)
    return JSONResponse(status_code=201 if stored.created else 200, content=stored.model_dump())


async def _check_checker(state: JudgeState, problem: Problem) -> None:
    """Have a worker compile the problem's program checker and its interactor, if it has them, in its
    sandbox (services/judge/queue/checks.py): 422 with the compiler's first errors when one does not
    compile; 503 at once when FRONTIER_MAX_CHECKS checks are in flight or no worker is alive, or when
    no answer comes in time. The API only waits on Redis: no compile, no thread."""
    checker = problem.spec.checker
    if getattr(checker, "type", None) == "program" and problem.checker_source is not None:
        await _check_program(
            state, "checker", checker.language, problem.checker_source, problem.checker_latin1
        )
    interactor = getattr(problem.spec, "interactor", None)
    if interactor is not None and problem.interactor_source is not None:
        await _check_program(state, "interactor", interactor.language, problem.interactor_source, False)


async def _check_program(state: JudgeState, what: str, language: str, source: str, latin1: bool) -> None:
    """One program of the problem's (`what`: checker, interactor) compiled by a worker's check job."""
    request = checks.CheckRequest(language=language, source=source, latin1=latin1)
    settings = state.settings
    outcome = await checks.cached(state.aconn, settings, request)
    if outcome is None:
        if not state.n_workers():
            raise HTTPException(
                503,
                f"no judge worker is alive to compile the {what}; retry later",
                headers={"Retry-After": "5"},
            )
        try:
            check_id = await checks.admit(state.aconn, settings)
        except checks.ChecksBusy as err:
            state.metrics.rejected.labels("checks_busy").inc()
            raise HTTPException(503, str(err), headers={"Retry-After": "5"}) from None
        try:
            await asyncio.to_thread(checks.enqueue, state.conn, settings, check_id, request)
            outcome = await checks.wait(state.aconn, settings, check_id, checks.CHECK_WAIT_S)
        finally:
            await checks.forget(state.aconn, settings, check_id)
    if outcome is None:
        raise HTTPException(503, f"the {what}'s compile was not done in {checks.CHECK_WAIT_S} s; retry later")
    if outcome.status == "judge_error":
        raise HTTPException(503, f"the judge could not check the {what}: {outcome.message}")
    if outcome.status == "refused":
        raise HTTPException(422, f"{what} does not compile: {outcome.message}")


@router.get("/problems")
async def list_problems(state: JudgeStateDep) -> list[dict[str, Any]]:
    """Every problem's metadata, test count and input sizes."""
    raw = await pstore.summaries(state.aconn, state.keys)
    return sorted((json.loads(v) for v in raw), key=lambda s: s["id"])


@router.get("/problems/{problem_id}", responses={404: {}})
async def get_problem(state: JudgeStateDep, problem_id: str) -> dict[str, Any]:
    """One problem: metadata, statement, and each test's name and input size (and a public test's
    content hashes; a hidden test's are never shown)."""
    known = matches(PROBLEM_ID_RE.pattern, problem_id)
    found = await pstore.definition(state.aconn, state.keys, problem_id) if known else None
    if found is None:
        raise HTTPException(404, f"unknown problem {problem_id!r}; upload it with PUT /problems/{problem_id}")
    digest, raw = found
    problem = Problem.model_validate_json(raw)
    return {
        **problem.summary(),
        "digest": digest,
        "statement": problem.statement,
        "tests": [_test_entry(problem, t) for t in problem.tests],
    }


def _test_entry(problem: Problem, test) -> dict[str, Any]:
    if problem.is_public(test.name):
        return {**test.model_dump(), "public": True}
    return {"name": test.name, "input_bytes": test.input_bytes, "public": False}


def document_problem_upload(app: FastAPI) -> None:
    """PUT /problems reads its body itself (JSON or tar.gz); put the JSON form's schema in the OpenAPI."""
    make_schema = app.openapi

    def openapi() -> dict:
        if app.openapi_schema is None:
            schema = make_schema()
            upload = ProblemUpload.model_json_schema(ref_template="#/components/schemas/{model}")
            components = schema.setdefault("components", {}).setdefault("schemas", {})
            components.update(upload.pop("$defs", {}))
            components["ProblemUpload"] = upload
        return app.openapi_schema

    app.openapi = openapi


class _Blobs:
    """Collects test bytes by content hash; stands in for TestStore.put while a problem is built."""

    def __init__(self):
        self.data: dict[str, bytes] = {}

    def put(self, data: bytes) -> str:
        digest = sha256(data)
        self.data[digest] = data
        return digest


def _problem_from_json(body: bytes, problem_id: str, blobs: _Blobs, limits: ProblemLimits) -> Problem:
    try:
        # pydantic's parser, as for every other body: it refuses lone surrogates, which no file can hold
        raw = pydantic_core.from_json(body)
    except ValueError as err:
        raise RequestValidationError(
            [{"type": "json_invalid", "loc": ("body",), "msg": str(err), "ctx": {"error": str(err)}}]
        ) from None
    if not isinstance(raw, dict):
        raise HTTPException(422, "the body must be a JSON object: problem.json's fields plus 'tests'")
    if raw.setdefault("id", problem_id) != problem_id:
        raise HTTPException(422, f"body id {raw['id']!r} differs from the URL's {problem_id!r}")
    try:
        upload = ProblemUpload.model_validate(raw)
    except ValidationError as err:
        raise invalid(err) from None
    checker_source = None
    if isinstance(upload.checker, ProgramChecker):
        if not upload.checker.source:
            raise HTTPException(422, "checker: a program checker uploaded over HTTP needs its 'source'")
        checker_source = upload.checker.source
    interactor_source = None
    if upload.interactor is not None:
        if not upload.interactor.source:
            raise HTTPException(422, "interactor: an interactor uploaded over HTTP needs its 'source'")
        interactor_source = upload.interactor.source
    spec = ProblemSpec.model_validate(upload.model_dump(exclude={"tests", "statement"}))
    tests = [(t.name, t.input.encode(), t.output.encode()) for t in upload.tests]
    return build_problem(spec, tests, blobs, upload.statement, checker_source, limits, interactor_source)


def _may_replace(problem_id: str, client: str, owner: bytes | None) -> None:
    if owner is not None and not may_see(client, owner):
        raise HTTPException(
            403,
            f"problem {problem_id!r} was uploaded by another client: only its uploader or the operator "
            "(FRONTIER_OPERATOR_TOKEN) may replace it; judging against it is open to every client",
        )


def _store_problem(
    state: JudgeState, problem: Problem, blobs: _Blobs, client: str = ANONYMOUS
) -> ProblemStored:
    """Blobs only where absent (each test file stored once), then the definition under its digest."""
    conn, keys = state.conn, state.keys
    digests = sorted(blobs.data)
    pstore.store_blobs(conn, keys, blobs.data)
    definition = problem.model_dump_json()
    digest = sha256(_digest_salt(state) + definition.encode())
    summary = problem.summary()
    summary_json = json.dumps({**summary, "digest": digest})
    created, owner = pstore.store_definition(
        conn, keys, problem.id, digest, definition, summary_json, client, OPERATOR
    )
    if created is None:
        _may_replace(problem.id, client, owner)
    created = bool(created)
    # the count of the upload's own distinct files: whether one was stored already is never told
    return ProblemStored(
        id=problem.id,
        digest=digest,
        created=created,
        tests=len(problem.tests),
        files=len(digests),
        summary=summary,
    )


def _digest_salt(state: JudgeState) -> bytes:
    """This Redis's random salt of definition digests (services/judge/queue/problems.py)."""
    return pstore.digest_salt(state.conn, state.keys)
