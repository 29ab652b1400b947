"""What an evaluation samples and on what (`EvalConfig`), spelled once: the function (`evaluate`), the
job payloads, the HTTP bodies (POST /eval = `EvalRequest`, POST /sweep = `SweepRequest`) and the CLI
(`frontier eval`, `frontier sweep`) all take it."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

FiniteFloat = Annotated[float, Field(allow_inf_nan=False)]


# -- what is sampled, and on what ------------------------------------------------------------------
class EvalConfig(BaseModel):
    """An evaluation's settings: the benchmark, and how each checkpoint is sampled on it."""

    model_config = ConfigDict(extra="forbid")

    benchmark: str = Field(
        default="bundled",
        min_length=1,
        description="'bundled', 'families', a directory of problem directories, or one problem directory",
    )
    problems: list[str] | None = Field(default=None, description="only these problem ids, in this order")
    n_samples: int = Field(default=8, ge=1, le=4096, description="samples per problem and checkpoint")
    temperature: FiniteFloat = Field(
        default=0.8, ge=0.0, le=5.0, description="sampling temperature (0: greedy)"
    )
    max_tokens: int = Field(default=4096, ge=1, le=131072, description="most new tokens per sample")
    top_p: FiniteFloat = Field(default=1.0, gt=0.0, le=1.0, description="nucleus sampling")
    seed: int = Field(default=0, ge=0, description="run seed; each generation request's seed derives from it")
    backend: Literal["auto", "vllm", "transformers"] | None = Field(
        default=None,
        description="auto (vLLM with a GPU, else transformers), vllm or transformers; "
        "default: FRONTIER_EVAL_BACKEND, else auto",
    )
    batch_size: int | None = Field(
        default=None,
        ge=1,
        le=4096,
        description="samples per generation request (default: a resumed run's, else min(n_samples, 8))",
    )
    repair_turns: int = Field(
        default=0,
        ge=0,
        le=5,
        description="repair evaluation after the eval (0: off): attempts per sample, the first included, "
        "each failed one retried with the judge's feedback; the report gets each checkpoint's repair rate "
        "and first-attempt pass@1",
    )

    def body(self) -> dict:
        """The JSON fields, less repair_turns when it is off: a request without repair stays what it was."""
        return self.model_dump(mode="json", exclude=None if self.repair_turns else {"repair_turns"})

    def config(self) -> EvalConfig:
        """The settings alone (a request's, less what names its job)."""
        return EvalConfig.model_validate(self.model_dump(include=set(EvalConfig.model_fields)))


# -- the requests (HTTP bodies and job payloads) ----------------------------------------------------
class _JobFields(EvalConfig):
    run_dir: str | None = Field(
        default=None, description="absolute path of the run directory; default: <eval_dir>/<job_id>"
    )

    @field_validator("run_dir")
    @classmethod
    def _absolute(cls, v: str | None) -> str | None:
        if v is not None and not Path(v).is_absolute():
            raise ValueError("run_dir must be an absolute path")
        return v


class EvalRequest(_JobFields):
    """POST /eval: checkpoints (directories, or hub ids) evaluated on a benchmark."""

    checkpoints: list[Annotated[str, Field(min_length=1)]] = Field(min_length=1, max_length=256)


class SweepRequest(_JobFields):
    """POST /sweep: theta_a = a*high + (1-a)*low for each alpha, each evaluated."""

    low: str = Field(min_length=1)
    high: str = Field(min_length=1)
    alphas: list[FiniteFloat] = Field(min_length=1, max_length=256)
    mode: Literal["in_place", "merger"] = Field(
        default="in_place",
        description="in_place: alphas loaded into one live model, nothing written; "
        "merger: checkpoints written by the merger service under RUN_DIR/checkpoints",
    )
    dtype: Literal["bfloat16", "float16", "float32"] | None = Field(
        default=None, description="merger mode: the merged checkpoints' dtype"
    )

    @field_validator("alphas")
    @classmethod
    def _alphas(cls, v: list[float]) -> list[float]:
        from merger.models import check_alphas

        return check_alphas(v)
