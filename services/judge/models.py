"""Pydantic models at the judge's boundaries: submissions and the result object (docs/spec.md sections 3, 5).

The problem format itself (problem.json, checkers, tests) is services/problems/spec.py."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from services.judge.verdicts import Outcome, Verdict
from services.problems.spec import Language

Mode = Literal["first_failure", "full"]


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


class FirstFailure(BaseModel):
    test: str
    input_bytes: int
    verdict: Verdict


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
