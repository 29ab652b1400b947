"""The evaluator's records on disk: one judged sample (a line of `RUN_DIR/samples.jsonl`) and the run's
metadata (`RUN_DIR/run.json`).

samples.jsonl is appended to as samples are judged, and is also how a killed eval resumes: on reading,
a later record for the same (checkpoint, problem_id, sample_index) replaces an earlier one (a retried
judge error), and a final line cut off mid-write is dropped.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import BinaryIO, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from services.judge.core.models import JudgeResult
from services.judge.core.verdicts import Outcome

SAMPLES_FILE = "samples.jsonl"
RUN_FILE = "run.json"
# the repair evaluation's files in a run directory (services/evaluator/repair.py, docs/spec.md 11.1)
REPAIR_SAMPLES_FILE = "repair.jsonl"
REPAIR_SUMMARY_FILE = "repair.json"

SampleKey = tuple[str, str, int]


class SampleRecord(BaseModel):
    """One model sample of one problem from one checkpoint, as the judge classified it.

    A `judge_error` sample has no outcome: the judge failed, not the program. It is left out of pass@k
    and outcome fractions and counted on its own.
    """

    model_config = ConfigDict(extra="forbid")

    checkpoint: str
    alpha: float | None = None
    problem_id: str
    difficulty: str | None = None
    sample_index: int = Field(ge=0)
    status: Literal["ok", "judge_error"] = "ok"
    outcome: Outcome | None = None
    rewards: dict[str, int] | None = None
    first_failure: dict | None = None
    completion: str | None = None
    seed: int | None = None
    message: str | None = None

    @model_validator(mode="after")
    def _outcome_matches_status(self) -> SampleRecord:
        if self.status == "ok" and self.outcome is None:
            raise ValueError("a sample with status 'ok' needs an outcome")
        if self.status == "judge_error" and self.outcome is not None:
            raise ValueError("a judge_error sample has no outcome (the judge failed, not the program)")
        return self

    @property
    def key(self) -> SampleKey:
        return (self.checkpoint, self.problem_id, self.sample_index)

    @classmethod
    def from_judge_result(
        cls,
        result: JudgeResult,
        *,
        checkpoint: str,
        alpha: float | None,
        sample_index: int,
        difficulty: str | None = None,
        completion: str | None = None,
        seed: int | None = None,
    ) -> SampleRecord:
        return cls(
            checkpoint=checkpoint,
            alpha=alpha,
            problem_id=result.problem_id,
            difficulty=difficulty,
            sample_index=sample_index,
            status=result.status,
            outcome=result.outcome if result.status == "ok" else None,
            rewards=result.rewards,
            first_failure=result.first_failure.model_dump(mode="json") if result.first_failure else None,
            completion=completion,
            seed=seed,
            message=result.message,
        )


class CheckpointInfo(BaseModel):
    name: str
    alpha: float | None = None
    path: str | None = None


class RunMeta(BaseModel):
    """run.json. Extra fields (backend, max_tokens, model ids) are kept and shown in the report."""

    model_config = ConfigDict(extra="allow")

    checkpoints: list[CheckpointInfo]
    benchmark: str
    n_samples: int = Field(ge=1)
    temperature: float
    seeds: list[int] = Field(default_factory=list)


def read_run_meta(run_dir: Path) -> RunMeta:
    return RunMeta.model_validate_json((Path(run_dir) / RUN_FILE).read_text())


def write_run_meta(run_dir: Path, meta: RunMeta) -> None:
    Path(run_dir).mkdir(parents=True, exist_ok=True)
    (Path(run_dir) / RUN_FILE).write_text(meta.model_dump_json(indent=2) + "\n")


def read_samples(path: Path) -> list[SampleRecord]:
    """Every record of a samples.jsonl, the last one per key, in order of first appearance."""
    path = Path(path)
    if not path.exists():
        return []
    text = path.read_text()
    lines = text.split("\n")
    # a final line without its newline was being written when the eval was killed
    complete, tail = lines[:-1], lines[-1]
    by_key: dict[SampleKey, SampleRecord] = {}
    for lineno, line in enumerate(complete, start=1):
        if not line.strip():
            continue
        try:
            record = SampleRecord.model_validate_json(line)
        except ValueError as e:
            raise ValueError(f"{path}:{lineno}: not a sample record: {e}") from e
        by_key[record.key] = record
    if tail.strip():
        try:
            record = SampleRecord.model_validate_json(tail)
            by_key[record.key] = record
        except ValueError:
            pass
    return list(by_key.values())


def append_samples(path: Path, records: Iterable[SampleRecord]) -> None:
    """Append records, one JSON line each, first cutting off a partial line left by a killed writer."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a+b") as f:
        _drop_partial_line(f)
        for record in records:
            f.write((json.dumps(record.model_dump(mode="json")) + "\n").encode())
        f.flush()


def _drop_partial_line(f: BinaryIO) -> None:
    end = f.seek(0, 2)
    if end == 0:
        return
    f.seek(end - 1)
    if f.read(1) == b"\n":
        return
    # scan back to the last newline; the tail after it is kept only if it is a whole record
    start = end
    while start > 0:
        start = max(0, start - 65536)
        f.seek(start)
        nl = f.read(end - start).rfind(b"\n")
        if nl >= 0:
            start += nl + 1
            break
    f.seek(start)
    tail = f.read(end - start)
    try:
        SampleRecord.model_validate_json(tail)
        f.write(b"\n")
    except ValueError:
        f.truncate(start)


def judged_keys(records: Iterable[SampleRecord]) -> set[SampleKey]:
    """Keys a resumed eval need not redo: samples with a verdict (judge errors are retried)."""
    return {r.key for r in records if r.status == "ok"}
