"""Pydantic models at the judge's boundaries: submissions and the result object (docs/spec.md sections 3, 5),
with the feedback a batch asked for with `feedback: true` (section 5.1).

The problem format itself (problem.json, checkers, tests) is services/problems/spec.py."""

from __future__ import annotations

from typing import Annotated, Literal, get_args

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, WithJsonSchema

from services.judge.core.languages import LANGUAGES, check_language
from services.judge.core.verdicts import Outcome, Verdict

# a submission's language: one of services/judge/core/languages, refused (422) naming them else
Language = Annotated[
    str,
    AfterValidator(check_language),
    WithJsonSchema({"type": "string", "enum": list(LANGUAGES)}),
]

Mode = Literal["first_failure", "full"]
Isolation = Literal["test", "submission"]  # docs/spec.md 4.8
ISOLATIONS: tuple[str, ...] = get_args(Isolation)


def check_isolation(value: str | None) -> str | None:
    """`value` when it is an isolation or None (the judge's default); a ValueError naming them else."""
    if value is not None and value not in ISOLATIONS:
        raise ValueError(
            f"isolation must be one of {', '.join(ISOLATIONS)} (docs/spec.md 4.8), got {value!r}"
        )
    return value


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Submission(_Strict):
    id: str
    problem_id: str
    language: Language = "python"
    code: str | None = None
    completion: str | None = None


class TestReport(BaseModel):
    __test__ = False  # not a pytest class
    name: str
    input_bytes: int
    verdict: Verdict
    cpu_ms: int | None = None
    wall_ms: int | None = None
    memory_kb: int | None = None
    borderline: bool = False
    message: str | None = None
    # a testlib checker's points verdict (quitp): the fraction of the test earned, 0..1 (spec 2.4)
    points: float | None = None
    # the run's CPU time over its wall time (threads add up): well under 1 for a busy program means
    # the host shared its CPU (docs/spec.md 4.1)
    cpu_share: float | None = None
    # runs of this test the host starved (run again; STARVED when every run was)
    starved_runs: int = 0


class FirstFailure(BaseModel):
    test: str
    input_bytes: int
    verdict: Verdict


class FirstDiff(BaseModel):
    """Where a wrong answer first departs from the expected output (1-based line and column of the
    answer, and the byte offset into it)."""

    line: int
    column: int
    offset: int


class TestFeedback(BaseModel):
    """One failing test as feedback (docs/spec.md section 5.1). Every test shows its verdict, size and
    statistics; only a public test shows content (input, expected and actual output, stderr)."""

    __test__ = False  # not a pytest class
    name: str
    public: bool
    verdict: Verdict
    input_bytes: int
    cpu_ms: int | None = None
    wall_ms: int | None = None
    time_limit_ms: int
    memory_kb: int | None = None
    memory_limit_kb: int
    # public tests only: each text cut to the judge's limit, `truncated` true when any of them was cut
    input: str | None = None
    expected: str | None = None
    actual: str | None = None
    truncated: bool = False
    first_diff: FirstDiff | None = None
    stderr: str | None = None
    message: str | None = None


class Feedback(BaseModel):
    """The failing tests of one result (all of them in `full` mode, the first in `first_failure`
    mode), and the compiler's message for a compile error, sandbox paths rewritten."""

    tests: list[TestFeedback] = Field(default_factory=list)
    compile_output: str | None = None


class JudgeResult(BaseModel):
    id: str
    problem_id: str
    status: Literal["ok", "judge_error"]
    outcome: Outcome | None = None
    rewards: dict[str, int] | None = None
    in_scope: dict[str, int] | None = None
    first_failure: FirstFailure | None = None
    tests: list[TestReport] = Field(default_factory=list)
    message: str | None = None
    compile_output: str | None = None
    # only when the batch asked for feedback, and only on a failing result (docs/spec.md section 5.1)
    feedback: Feedback | None = None
    feedback_text: str | None = None
