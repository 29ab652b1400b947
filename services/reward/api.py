"""OpenRLHF's remote reward model, answered by the judge: `POST /get_reward` (spec section 13).

    frontier serve reward [--host 127.0.0.1] [--port 8003] [--k inf] [--credit r_k|discrete|continuous]
                          [--isolation test|submission]
    # OpenRLHF: --remote_rm_url http://127.0.0.1:8003/get_reward

Request `{"query": [...], "prompts": [...], "labels": [...]}`: `query` is prompt plus response as
OpenRLHF decodes it, `labels` the problem ids, `prompts` optional. Only the response is judged, never
prompt text (a prompt can hold a correct program): the query less its prompt where the query starts
with it, else what follows the last chat-template assistant marker in the query (`ASSISTANT_MARKERS`,
plus the server's `--assistant-marker`s), end-of-turn tokens at its end dropped; a query with neither
is answered 422 naming it. Answer `{"rewards": [...],
"scores": [...], "extra_logs": {...}}`: the credit of each (`R_k` by default, or a partial credit,
discrete or continuous, spec section 13.1: the server's `--credit`, or the request's `credit` field),
the same as scores, and per sample 0/1 lists for each outcome class and `judge_error`. A judge error
scores 0.0, is logged, and shows as 1 in `extra_logs.judge_error`. The judge unreachable or failing:
502 saying so. Every route but /healthz asks for the bearer token where one is set.

The routes are module routers (`router`, `health`) reaching the app's `RewardState` through the
`RewardStateDep` dependency, as the judge's API does; `create_app` makes the state and includes them.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from contextlib import asynccontextmanager
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, FastAPI, HTTPException, Request
from pydantic import BaseModel, Field, model_validator

from services.judge.client import AsyncJudgeClient, JudgeClientError, RetryPolicy
from services.judge.core import credit as credits
from services.judge.core.models import Isolation, check_isolation
from services.security import api_dependencies
from services.serving import JsonRoute, guard
from services.settings import Settings, get_settings

log = logging.getLogger("codefrontier.reward")

OUTCOMES = ("correct", "optimization_failure", "correctness_failure", "format_error")

# where a chat template starts the assistant's turn: ChatML (Qwen and others), Llama 3, Gemma,
# DeepSeek-V3/R1, Phi-3 and Zephyr, Llama 2 and Mistral
ASSISTANT_MARKERS = (
    "<|im_start|>assistant",
    "<|start_header_id|>assistant<|end_header_id|>",
    "<start_of_turn>model",
    "<\uff5cAssistant\uff5c>",
    "<|assistant|>",
    "[/INST]",
)
# what a template puts after the assistant's turn, dropped from the end of a response
END_OF_TURN = (
    "<|im_end|>",
    "<|eot_id|>",
    "<end_of_turn>",
    "<\uff5cend\u2581of\u2581sentence\uff5c>",
    "<|end|>",
    "<|endoftext|>",
    "</s>",
)


def response_of(query: str, prompt: str | None, markers: Sequence[str] = ASSISTANT_MARKERS) -> str | None:
    """The response in a query: after its prompt where it starts with it, else after the marker that
    ends last in it; None when neither is there. Linear in the query (no pattern matching)."""
    if prompt is not None and query.startswith(prompt):
        text = query[len(prompt) :]
    else:
        ends = [i + len(m) for m in markers if m and (i := query.rfind(m)) >= 0]
        if not ends:
            return None
        text = query[max(ends) :].lstrip()  # the template's own newline or space after its marker
    text = text.rstrip()
    while ending := next((e for e in END_OF_TURN if text.endswith(e)), None):
        text = text[: -len(ending)].rstrip()
    return text


class RewardRequest(BaseModel):
    query: list[str] = Field(min_length=1)
    prompts: list[str] | None = None
    labels: list[str]
    # which reward: R_k (the server's k), or a partial credit (spec 13.1); default: the server's --credit
    credit: Literal["r_k", "discrete", "continuous"] | None = None
    # each completion's tests in one process or one each (spec 4.8); default: the server's --isolation
    isolation: Isolation | None = None

    @model_validator(mode="after")
    def _same_lengths(self):
        if len(self.labels) != len(self.query):
            raise ValueError(
                f"labels has {len(self.labels)} items, query {len(self.query)}: one problem id per query"
            )
        if self.prompts is not None and len(self.prompts) != len(self.query):
            raise ValueError(f"prompts has {len(self.prompts)} items, query {len(self.query)}")
        return self

    def completions(self, markers: Sequence[str] = ASSISTANT_MARKERS) -> list[str]:
        """Each query's response (`response_of`); a 422 naming the first query that has none."""
        prompts = self.prompts if self.prompts is not None else [None] * len(self.query)
        found = [response_of(q, p, markers) for q, p in zip(self.query, prompts, strict=True)]
        missing = [i for i, r in enumerate(found) if r is None]
        if missing:
            how = "does not start with its prompt and holds" if self.prompts is not None else "holds"
            raise HTTPException(
                422,
                f"query {missing[0]} {how} no chat-template assistant marker ({', '.join(markers)}): "
                f"its response cannot be told from its prompt ({len(missing)} such queries); send "
                "'prompts', or start the server with --assistant-marker",
            )
        return found


class RewardResponse(BaseModel):
    rewards: list[float]
    scores: list[float]
    extra_logs: dict[str, list[float]]


def parse_k(value: str) -> int | str:
    """The reward R_k's k: a positive integer or 'inf'."""
    if value == "inf":
        return value
    try:
        k = int(value)
    except ValueError:
        k = 0
    if k < 1:
        raise ValueError(f"k must be a positive integer or 'inf', got {value!r}")
    return k


class RewardState:
    """What the route shares: the server's reward (k, credit, isolation), its assistant markers and the
    judge client (opened by the app's lifespan)."""

    def __init__(self, settings: Settings, k, judge_url, credit, isolation, markers: Sequence[str]):
        self.settings = settings
        self.k, self.credit, self.isolation, self.markers = k, credit, isolation, tuple(markers)
        self.judge_url = judge_url or settings.judge_url
        self.judge: AsyncJudgeClient | None = None


async def reward_state(request: Request) -> RewardState:
    """The app's RewardState (made by create_app): what a route declares as `state: RewardStateDep`."""
    return request.app.state.reward


RewardStateDep = Annotated[RewardState, Depends(reward_state)]

# /healthz answers without the bearer token; `router` is included with it (create_app)
health = APIRouter(route_class=JsonRoute)
router = APIRouter(route_class=JsonRoute)


@router.post("/get_reward", response_model=RewardResponse)
async def get_reward(request: RewardRequest, state: RewardStateDep) -> RewardResponse:
    subs = [
        {"id": str(i), "problem_id": pid, "language": "python", "completion": c}
        for i, (pid, c) in enumerate(zip(request.labels, request.completions(state.markers), strict=True))
    ]
    k = state.k
    wanted = request.credit or state.credit
    mode, ks = credits.request(wanted, k)
    try:
        results = await state.judge.judge(
            subs, mode=mode, ks=ks, isolation=request.isolation or state.isolation
        )
    except JudgeClientError as err:
        if err.status_code is not None and 400 <= err.status_code < 500 and err.status_code != 429:
            # the request's fault (an unknown problem id): say so, as the judge did
            raise HTTPException(422, str(err)) from err
        log.error("judge request failed: %s", err)
        raise HTTPException(502, f"the judge did not answer the reward request: {err}") from err
    rewards = []
    logs: dict[str, list[float]] = {name: [] for name in (*OUTCOMES, "judge_error")}
    for r in results:
        outcome = r.outcome if r.status == "ok" else "judge_error"
        if r.status != "ok":
            log.error("judge error on problem %s (reward 0.0, marked): %s", r.problem_id, r.message)
        rewards.append(credits.score(r, wanted, k) if r.status == "ok" else 0.0)
        for name in logs:
            logs[name].append(1.0 if name == outcome else 0.0)
    return RewardResponse(rewards=rewards, scores=rewards, extra_logs=logs)


@health.get("/healthz")
def healthz(state: RewardStateDep) -> dict:
    return {"status": "ok", "reward": f"R_{state.k}" if state.credit == "r_k" else f"{state.credit}_credit"}


def create_app(
    settings: Settings | None = None,
    k: int | str = "inf",
    judge_url: str | None = None,
    credit: str = "r_k",
    isolation: str | None = None,
    assistant_markers: Sequence[str] = (),
) -> FastAPI:
    """The reward app; `assistant_markers` are tried beside ASSISTANT_MARKERS (another chat template)."""
    settings = settings or get_settings()
    markers = (*ASSISTANT_MARKERS, *(m for m in assistant_markers if m))
    credits.request(credit, k)  # a ValueError for an unknown credit, before anything starts
    check_isolation(isolation)  # a ValueError, before anything starts
    state = RewardState(settings, k, judge_url, credit, isolation, markers)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        # the judge's URL and bearer token from the settings, as every client of the stack
        retry = RetryPolicy(retries=settings.judge_client_retries)  # FRONTIER_JUDGE_CLIENT_RETRIES
        async with AsyncJudgeClient(state.judge_url, retry=retry) as client:
            state.judge = client
            yield

    app = FastAPI(title="codefrontier reward", description=__doc__.split("\n\n")[0], lifespan=lifespan)
    app.state.reward = state
    guard(app, settings)  # 413 past FRONTIER_MAX_BODY_MB, readable 422s (services/serving.py)
    app.include_router(router, dependencies=api_dependencies(settings))
    app.include_router(health)
    return app
