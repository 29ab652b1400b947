"""The judge API's HTTP bodies (docs/spec.md section 4): requests, answers, problem uploads."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from services.judge.core.feedback import parse_template
from services.judge.core.models import Isolation, JudgeResult, Mode, Submission
from services.problems.spec import ProblemSpec


class SubmissionIn(Submission):
    """One program to judge: `code`, or a model's `completion` to extract the code from."""

    @model_validator(mode="after")
    def _code_or_completion(self) -> SubmissionIn:
        if (self.code is None) == (self.completion is None):
            raise ValueError("give exactly one of 'code' and 'completion'")
        return self


class JudgeRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    submissions: list[SubmissionIn]
    mode: Mode = "first_failure"
    ks: list[Annotated[int, Field(ge=1, le=18)]] | None = Field(
        default=None, description="Which R_k to report; default: every k the problem's tests need."
    )
    feedback: bool = Field(
        default=False,
        description="Failing results carry `feedback` and `feedback_text` (docs/spec.md section 5.1); "
        "only public tests show their content.",
    )
    feedback_template: str | dict[str, str | int] | None = Field(
        default=None,
        description="How feedback_text is written: a style name ('rlef', 'stats') or an object of "
        "template parts; default FRONTIER_FEEDBACK_TEMPLATE.",
    )

    isolation: Isolation | None = Field(
        default=None,
        description="'test': every test in a process of its own; 'submission': a Python submission's "
        "tests forked in turn from one sandboxed snapshot of it, taken before its first test "
        "(docs/spec.md 4.8); default FRONTIER_ISOLATION.",
    )

    timeout_ms: float | None = Field(
        default=None,
        gt=0,
        le=7 * 24 * 3600 * 1000,
        description="How long the caller waits, from arrival (like the X-Timeout-Ms header; the earlier "
        "of the two counts): a 504 comes before it, and nothing is judged past it (docs/spec.md 6.7).",
    )

    @field_validator("feedback_template")
    @classmethod
    def _template_ok(cls, v: str | dict | None) -> str | dict | None:
        if v is not None:
            parse_template(v)  # a ValueError names what is wrong (422)
        return v


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
