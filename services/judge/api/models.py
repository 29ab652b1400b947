"""The judge API's HTTP bodies (docs/spec.md section 4): requests, answers, problem uploads."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from services.judge.core.models import JudgeResult, Submission
from services.judge.core.options import JudgeOptions
from services.problems.spec import ProblemSpec


class SubmissionIn(Submission):
    """One program to judge: `code`, or a model's `completion` to extract the code from."""

    @model_validator(mode="after")
    def _code_or_completion(self) -> SubmissionIn:
        if (self.code is None) == (self.completion is None):
            raise ValueError("give exactly one of 'code' and 'completion'")
        return self


class JudgeRequest(JudgeOptions):
    """A batch: its submissions, the options they are judged with (`JudgeOptions`'s fields, at the top
    level of the body as ever: `mode`, `ks`, `feedback`, `feedback_template`, `isolation`) and how long
    the caller waits."""

    model_config = ConfigDict(extra="forbid", frozen=False)

    submissions: list[SubmissionIn]

    timeout_ms: float | None = Field(
        default=None,
        gt=0,
        le=7 * 24 * 3600 * 1000,
        description="How long the caller waits, from arrival (like the X-Timeout-Ms header; the earlier "
        "of the two counts): a 504 comes before it, and nothing is judged past it (docs/spec.md 6.7).",
    )

    @property
    def options(self) -> JudgeOptions:
        return JudgeOptions.of(self)


class JudgeResponse(BaseModel):
    results: list[JudgeResult]


class BatchAccepted(BaseModel):
    batch_id: str


class BatchStatus(BaseModel):
    batch_id: str
    status: str = Field(description="queued | running | done")
    submissions: int
    distinct: int = Field(description="distinct (code, language, problem) units judged for the batch")
    judged: int = Field(description="distinct units judged so far")
    results: list[JudgeResult] | None = None


class TestIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    input: str
    output: str


class ProblemUpload(ProblemSpec):
    """problem.json's fields plus the tests; `statement` is the statement's Markdown text here."""

    # filled in from the URL before validation when absent (`_problem_from_json`), so never empty here
    id: str = Field(default="", description="The problem id; defaults to the URL's, must equal it if given.")
    statement: str = Field(default="", description="The statement's Markdown text.")
    tests: list[TestIn] = Field(min_length=1)


class ProblemStored(BaseModel):
    id: str
    digest: str
    created: bool
    tests: int
    files: int = Field(description="distinct test files in the upload (the same content counted once)")
    summary: dict[str, Any]
