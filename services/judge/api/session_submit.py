"""A session's submit (docs/spec.md section 6.6): the program of a session (a file of it, or code)
judged on the session's problem through the judge's own batch path, so its answer is the result object
of `POST /judge`. It sits with the judge API (which mounts the session routes) so that the session
routes import nothing of the API."""

from __future__ import annotations

import base64
import json

from fastapi import APIRouter, HTTPException, Response
from pydantic import ValidationError

import services.judge.api.sessions as sessions
from services.judge.api.batches import accept_batch, batch_results_json, wait_batch
from services.judge.api.models import JudgeRequest
from services.judge.api.session_models import SubmitRequest
from services.judge.api.state import JudgeStateDep
from services.judge.core.models import JudgeResult
from services.judge.core.options import JudgeOptions
from services.security import ClientDep
from services.serving import JsonRoute

router = APIRouter(prefix="/sessions", tags=["sessions"], route_class=JsonRoute)


@router.post(
    "/{sid}/submit", response_model=JudgeResult, responses={404: {}, 409: {}, 410: {}, 413: {}, 422: {}}
)
async def submit(
    sid: str, body: SubmitRequest, state: JudgeStateDep, s: sessions.SessionsDep, client: ClientDep
) -> Response:
    """Judge a program of the session (a file, or code) on the session's problem: POST /judge's result,
    counted against the client's share of the queue (docs/spec.md 6.8)."""
    meta = await sessions.meta_of(s, sid, client)
    problem_id = meta.get("problem_id")
    if not problem_id:
        raise HTTPException(409, f"session {sid} was created without a problem_id: nothing to submit to")
    code = body.code
    if code is None:
        path = sessions.checked_path(body.path)
        msg = {"op": "get", "path": path, "max_bytes": s.settings.max_code_kb << 10}
        try:
            reply = await sessions.on_worker(s, sid, meta, msg)
        except sessions.Dead:
            raise sessions.gone(sid, meta) from None
        try:
            code = base64.b64decode(reply["data"]).decode("utf-8")
        except UnicodeDecodeError:
            raise HTTPException(422, f"{path!r} is not UTF-8 text") from None
    try:
        batch = JudgeRequest(
            submissions=[{"id": sid, "problem_id": problem_id, "language": body.language, "code": code}],
            **JudgeOptions.of(body).model_dump(),
        )
    except ValidationError as err:
        raise HTTPException(422, f"cannot judge this program: {err.errors()[0]['msg']}") from None
    batch_id = await accept_batch(state, batch, "sessions", client=client)
    if not await wait_batch(state, batch_id, s.settings.judge_wait_s):
        raise HTTPException(504, f"batch {batch_id} not finished; GET /submissions/{batch_id}")
    results = await batch_results_json(state, batch_id)
    return Response(json.dumps(json.loads(results)[0]), media_type="application/json")
