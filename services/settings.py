"""The one settings object of the stack: every knob comes from a `FRONTIER_*` environment variable."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

# the checkout this package runs from: its runs/ is one of the default data roots
REPO_ROOT = Path(__file__).resolve().parent.parent


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
    evaluator_host: str = "127.0.0.1"

    # sandbox
    sandbox_mode: Literal["strict", "unsafe"] = "strict"
    slots: int = Field(default=2, ge=1, description="parallel sandbox slots per judge worker")
    wall_time_multiplier: float = Field(default=3.0, ge=1.0)
    wall_time_extra_ms: int = 1000
    # the time-out cap (docs/spec.md 4.1): a busy run is stopped at time_limit_ms * (1 + borderline_band)
    # plus this much wall time, loaded host or not; an idle one (sleeping) at the wall limit above
    timeout_margin_ms: int = Field(default=500, ge=0)
    output_limit_kb: int = 65536
    stderr_keep_bytes: int = 4096
    # the feedback a batch asks for (docs/spec.md section 5.1): a style name ("rlef", "stats") or a JSON
    # object of template parts, used where the request names none
    feedback_template: str = "rlef"
    # how often a judge client (trainer rewards, reward service, verl adapter) retries a request the
    # judge did not answer (connection errors, 502/503/504, 429) before it gives up
    judge_client_retries: int = Field(default=8, ge=0)
    tmp_size_mb: int = 64
    pids_max: int = 64
    open_files_max: int = 256
    compile_time_limit_ms: int = 20000
    compile_memory_limit_mb: int = 1024
    checker_time_limit_ms: int = 10000
    checker_memory_limit_mb: int = 1024
    # where a request does not say: "test" runs every test in a process of its own; "submission" runs
    # a Python submission's tests in turn in one sandboxed process, failures confirmed alone (spec 4.8)
    isolation: Literal["test", "submission"] = "test"
    # a result whose CPU time lies within this fraction of the limit is re-run once
    borderline_band: float = Field(default=0.1, ge=0.0, le=1.0)
    # compiled binaries kept in <state_dir>/bin, least recently used evicted past this size
    bin_cache_mb: int = Field(default=2048, ge=1)

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

    # compat APIs (docs/spec.md section 6.5)
    # SandboxFusion's fetch_files: the most one fetched file, and all of one run's, may hold
    compat_fetch_file_mb: int = Field(default=8, ge=1)
    compat_fetch_total_mb: int = Field(default=16, ge=1)
    # Judge0's DELETE /submissions/{token} (Judge0's enable_submission_delete; off as in Judge0)
    judge0_submission_delete: bool = False
    # hosts a Judge0 callback_url may name (comma-separated host names or addresses; "*": any; empty:
    # callbacks refused). Loopback by default: the judge PUTs from inside its network to what a
    # caller names, so other hosts are opened explicitly.
    judge0_callback_hosts: str = "127.0.0.1,localhost,::1"

    # sessions (docs/spec.md section 6.6): how many one judge worker process holds (0: none), the size
    # of each session's tmpfs, and the largest file read or written through the API
    session_max_per_worker: int = Field(default=64, ge=0)
    session_disk_mb: int = Field(default=256, ge=1)
    session_max_file_mb: int = Field(default=16, ge=1)
    # a problem's files put in a new session (statement and public tests), in all; the rest left out
    session_problem_files_mb: int = Field(default=16, ge=1)
    # the CPUs a session's processes share between its calls (a cgroup quota: what a background
    # process left spinning costs the judged programs beside it); 0: no quota
    session_idle_cpus: float = Field(default=0.05, ge=0.0, le=64.0)
    # memory admission (services/judge/admission.py): a worker takes a session or a run only while the
    # memory limits granted to those its host holds fit this share of the host's RAM (or, where set,
    # admit_memory_mb); past it a session's create answers 503, a run waits up to admit_wait_s, then 503
    admit_memory_share: float = Field(default=0.75, gt=0.0, le=1.0)
    admit_memory_mb: int = Field(default=0, ge=0)
    admit_wait_s: float = Field(default=10.0, ge=0.0, le=600.0)
    # sandboxes of each kind a worker keeps started ahead of time, so that a create takes milliseconds
    session_warm: int = Field(default=2, ge=0)

    # evaluator (issue 6)
    eval_queue: str = "eval"
    # where eval runs are written (run.json, samples.jsonl, reports); default: <state_dir>/eval
    eval_dir: Path | None = None
    # generation backend: auto = vLLM where it imports and a GPU is visible, else transformers on CPU
    eval_backend: Literal["auto", "vllm", "transformers"] = "auto"

    # merger (issue 9): how long GET /merge/{job_id} answers after a job ends
    merge_result_ttl_s: int = Field(default=7 * 24 * 3600, ge=60)

    # security (SPEC section 7, issue 9)
    # bearer token every endpoint of the judge, merger and evaluator but /healthz asks for; unset: none
    api_token: SecretStr | None = None
    # the only directories merger and evaluator requests may name (colon-separated); default:
    # the checkout's runs/, the state dir and the eval dir
    data_roots: Annotated[list[Path], NoDecode] = Field(default_factory=list)
    # an uploaded or loaded problem: its files' total uncompressed size, and how many files an archive holds
    max_problem_mb: int = Field(default=512, ge=1)
    max_problem_files: int = Field(default=20000, ge=4)
    # one submission's code (or completion), in KiB
    max_code_kb: int = Field(default=512, ge=1)

    @field_validator("api_token", mode="before")
    @classmethod
    def _empty_token_is_none(cls, v):
        # FRONTIER_API_TOKEN= (set but empty, as docker-compose passes an unset variable) means no token
        return None if v is None or (isinstance(v, str) and not v.strip()) else v

    @field_validator("data_roots", mode="before")
    @classmethod
    def _colon_separated(cls, v):
        if isinstance(v, str):
            return [part for part in v.split(":") if part.strip()]
        return v

    def allowed_data_roots(self) -> list[Path]:
        """FRONTIER_DATA_ROOTS resolved (symlinks followed), or the defaults where it is not set: the
        checkout's runs/ and the eval dir, never the whole state dir (the judge's test store, compiled
        binaries, slots and sessions live there, and no request may read or write them)."""
        roots = self.data_roots or [
            REPO_ROOT / "runs",
            Path(self.eval_dir) if self.eval_dir else Path(self.state_dir) / "eval",
        ]
        return list(dict.fromkeys(Path(r).expanduser().resolve() for r in roots))

    def feedback_template_value(self) -> str | dict:
        """FRONTIER_FEEDBACK_TEMPLATE: a JSON object when it looks like one, else a style name."""
        text = self.feedback_template.strip()
        if text.startswith("{"):
            import json

            try:
                return json.loads(text)
            except ValueError as err:
                raise ValueError(f"FRONTIER_FEEDBACK_TEMPLATE is not valid JSON ({err})") from None
        return text

    def auth_headers(self) -> dict[str, str]:
        """What a client of the stack's services sends: the bearer token, where one is set."""
        if self.api_token is None:
            return {}
        return {"Authorization": f"Bearer {self.api_token.get_secret_value()}"}


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
