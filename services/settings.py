"""The one settings object of the stack: every knob comes from a `FRONTIER_*` environment variable."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="FRONTIER_", extra="ignore")

    # where the judge keeps content-addressed test data, compiled binaries and slot state
    state_dir: Path = Path("/var/lib/codefrontier")
    redis_url: str = "redis://127.0.0.1:6379/0"

    # ports (SPEC section 4)
    judge_port: int = 8000
    # the judge API's listen address (0.0.0.0 in a container)
    judge_host: str = "127.0.0.1"
    merger_port: int = 8001
    evaluator_port: int = 8002
    judge_url: str = "http://127.0.0.1:8000"
    merger_url: str = "http://127.0.0.1:8001"
    merger_host: str = "127.0.0.1"
    merger_queue: str = "merge"
    evaluator_url: str = "http://127.0.0.1:8002"

    # sandbox
    sandbox_mode: Literal["strict", "unsafe"] = "strict"
    slots: int = Field(default=2, ge=1, description="parallel sandbox slots per judge worker")
    wall_time_multiplier: float = Field(default=3.0, ge=1.0)
    wall_time_extra_ms: int = 1000
    output_limit_kb: int = 65536
    stderr_keep_bytes: int = 4096
    tmp_size_mb: int = 64
    pids_max: int = 64
    open_files_max: int = 256
    compile_time_limit_ms: int = 20000
    compile_memory_limit_mb: int = 1024
    checker_time_limit_ms: int = 10000
    checker_memory_limit_mb: int = 1024
    # a result whose CPU time lies within this fraction of the limit is re-run once
    borderline_band: float = Field(default=0.1, ge=0.0, le=1.0)

    # HTTP and queue (issue 3)
    max_body_mb: int = 64
    # distinct submissions accepted but not yet judged, across every client; past it: 429
    max_queue_depth: int = 20000
    # the most distinct submissions one queue job carries (small batches are split finer)
    job_chunk_size: int = 32
    judge_queue: str = "judge"
    # prefix of the judge's own Redis keys (RQ's keys are its own `rq:` ones)
    redis_prefix: str = "frontier"
    # a running job's lease, renewed by its worker; a killed worker's job is requeued once it lapses
    job_lease_s: int = Field(default=30, ge=2)
    # how many times a job whose worker was lost is run again before its submissions get judge_error
    job_retries: int = Field(default=2, ge=0)
    # how long batch state and results stay in Redis
    result_ttl_s: int = 86400
    # how long POST /judge waits for a batch before answering 504 with its batch id
    judge_wait_s: int = 3600

    # evaluator (issue 6)
    eval_queue: str = "eval"
    # where eval runs are written (run.json, samples.jsonl, reports); default: <state_dir>/eval
    eval_dir: Path | None = None
    # generation backend: auto = vLLM where it imports and a GPU is visible, else transformers on CPU
    eval_backend: Literal["auto", "vllm", "transformers"] = "auto"


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
