"""Pydantic models at the merger's boundaries (the HTTP body, the job payload) and output naming.

Kept free of torch, so that the API process and `frontier --help` stay light.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

DType = Literal["bfloat16", "float16", "float32"]
FiniteFloat = Annotated[float, Field(allow_inf_nan=False)]


def alpha_dir_name(alpha: float) -> str:
    """The directory of one alpha of a sweep: `alpha_-0.5`, `alpha_0.0`, `alpha_1.25` (repr: unique)."""
    return f"alpha_{float(alpha) + 0.0!r}"  # + 0.0 turns -0.0 into 0.0


def check_alphas(alphas: list[float]) -> list[float]:
    """The alphas as Python floats: at least one, all finite, none twice. Raises ValueError."""
    values = [float(a) + 0.0 for a in alphas]
    if not values:
        raise ValueError("no alphas given")
    for a in values:
        if not math.isfinite(a):
            raise ValueError(f"alpha {a!r} is not a finite number")
    if len(set(values)) != len(values):
        raise ValueError(f"alphas repeat: {values}")
    return values


def parse_alphas(text: str) -> list[float]:
    """Alphas as written on a command line: `-1,-0.5,0` or `start:stop:step` (stop included). Raises
    ValueError."""
    text = text.strip()
    if ":" in text:
        try:
            start, stop, step = (float(x) for x in text.split(":"))
        except ValueError:
            raise ValueError(f"{text!r} is not start:stop:step") from None
        if step <= 0 or stop < start:
            raise ValueError(f"{text!r}: step must be > 0 and stop >= start")
        n = int(round((stop - start) / step))
        return [round(start + i * step, 12) for i in range(n + 1)]
    try:
        return [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise ValueError(f"{text!r} is not a comma-separated list of numbers") from None


class ModelWeight(BaseModel):
    model_config = ConfigDict(extra="forbid")

    path: str = Field(min_length=1, description="checkpoint directory or hub id")
    weight: FiniteFloat


class MergeRequest(BaseModel):
    """POST /merge: the alpha form (low, high, alphas) or the general form (base, models)."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "low": "/ckpt/lax",
                    "high": "/ckpt/strict",
                    "alphas": [-0.5, 0, 0.5, 1, 1.5],
                    "output_dir": "/out",
                },
                {
                    "base": "/ckpt/base",
                    "models": [{"path": "/ckpt/a", "weight": 0.7}],
                    "output_dir": "/out/m",
                },
            ]
        },
    )

    low: str | None = Field(default=None, min_length=1)
    high: str | None = Field(default=None, min_length=1)
    alphas: list[FiniteFloat] | None = None
    base: str | None = Field(default=None, min_length=1)
    models: list[ModelWeight] | None = None
    normalize: bool = Field(default=False, description="general form: divide the weights by their sum")
    output_dir: str = Field(min_length=1, description="alpha form: one alpha_<a>/ per alpha inside it")
    dtype: DType | None = None
    overwrite: bool = False

    @model_validator(mode="after")
    def _one_form(self) -> MergeRequest:
        alpha_form = [self.low, self.high, self.alphas]
        general_form = [self.base, self.models]
        if any(v is not None for v in alpha_form) and any(v is not None for v in general_form):
            raise ValueError("give either low/high/alphas or base/models, not both")
        if any(v is not None for v in alpha_form):
            if any(v is None for v in alpha_form):
                raise ValueError("the alpha form needs all of low, high and alphas")
            self.alphas = check_alphas(self.alphas)
            if self.normalize:
                raise ValueError("normalize belongs to the general form (base/models)")
        elif all(v is not None for v in general_form):
            if not self.models:
                raise ValueError("models is empty")
            if self.normalize and math.fsum(m.weight for m in self.models) == 0.0:
                raise ValueError("weights sum to zero and cannot be normalised")
        else:
            raise ValueError("give low/high/alphas (alpha merge) or base/models (task arithmetic)")
        return self

    @property
    def is_alpha_form(self) -> bool:
        return self.alphas is not None

    def planned_outputs(self) -> list[dict]:
        """Where each output will be: [{"alpha", "path"}] or [{"weights", "path"}]."""
        if self.is_alpha_form:
            root = Path(self.output_dir)
            return [{"alpha": a, "path": str(root / alpha_dir_name(a))} for a in self.alphas]
        return [{"weights": [m.weight for m in self.models], "path": self.output_dir}]

    def input_sources(self) -> dict[str, str]:
        if self.is_alpha_form:
            return {"low": self.low, "high": self.high}
        return {"base": self.base, **{f"models[{i}].path": m.path for i, m in enumerate(self.models)}}


class JobAccepted(BaseModel):
    job_id: str


class JobProgress(BaseModel):
    tensors_done: int = 0
    tensors_total: int = 0
    bytes_done: int = 0  # input tensor bytes read so far; every output advances with them
    bytes_total: int = 0
    fraction: float = 0.0


class OutputStatus(BaseModel):
    alpha: float | None = None
    weights: list[float] | None = None
    path: str
    status: Literal["pending", "writing", "done", "failed"] = "pending"
    fraction: float = 0.0
    warnings: list[dict] = Field(default_factory=list, description="NaN/Inf counts per tensor")


class JobStatus(BaseModel):
    job_id: str
    status: str  # RQ's: queued, started, finished, failed, ...
    progress: JobProgress
    outputs: list[OutputStatus]
    notes: list[str] = Field(default_factory=list)
    error: str | None = None
    seconds: float | None = None
    enqueued_at: str | None = None
    started_at: str | None = None
    ended_at: str | None = None
