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
    # connections one judge API process may hold for requests waiting on their results (one per
    # request in flight); more requests than this wait for one instead of failing
    redis_max_connections: int = Field(default=1024, ge=8)

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
    # where a service's port is reachable from outside its container: docker-compose sets it to the
    # address it publishes the ports on (FRONTIER_COMPOSE_ADDRESS, default 127.0.0.1). A service whose
    # port is published beyond loopback without a token refuses to start (docs/spec.md 9.1)
    published_address: str | None = None

    # sandbox
    sandbox_mode: Literal["strict", "unsafe"] = "strict"
    # parallel sandbox slots per judge worker: at most the CPUs the worker may use (its affinity, its
    # cgroup's CPU quota); a worker asked for more refuses to start (docs/spec.md 4.1)
    slots: int = Field(default=2, ge=1, description="parallel sandbox slots per judge worker")
    # a test's wall limit: time_limit_ms * this + wall_time_extra_ms. TLE is CPU time; the wall limit
    # stops a program idle there (TLE) or one the host starved (run again, then STARVED: docs/spec.md 4.1)
    wall_time_multiplier: float = Field(default=3.0, ge=1.0)
    wall_time_extra_ms: int = 1000
    # the slots' CPU weight over the host's other work, on cgroup v2's cpu.weight scale (100: as any
    # other work; v1 cpu.shares get 10.24x it); 0 leaves it as it is (docs/spec.md 4.1). Every
    # judge on a host shares one cgroup for its slots, and with it the weight the last one set
    slot_cpu_weight: int = Field(default=1000, ge=0, le=10000)
    # the start rule's cost of one busy test (services/judge/queue/deadlines.py test_cost_s): its time limit
    # widened by the borderline band plus this much wall time (a slot has a CPU of its own)
    timeout_margin_ms: int = Field(default=500, ge=0)
    output_limit_kb: int = 65536
    stderr_keep_bytes: int = 4096
    # a hidden test's stderr (a runtime error's message) in a result without feedback; off: withheld
    hidden_stderr: bool = False
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
    # where a request does not say: "test" runs every test in a process of its own; "submission" forks
    # a Python submission's tests from one sandboxed snapshot of it, the same verdicts (spec 4.8)
    isolation: Literal["test", "submission"] = "test"
    # a result whose CPU time lies within this fraction of the limit is re-run once
    borderline_band: float = Field(default=0.1, ge=0.0, le=1.0)
    # compiled binaries kept in <state_dir>/bin, least recently used evicted past this size
    bin_cache_mb: int = Field(default=2048, ge=1)

    # HTTP and queue (issue 3)
    max_body_mb: int = 64
    # distinct submissions accepted but not yet judged, across every client; past it: 429
    max_queue_depth: int = 20000
    # a problem's checks (a checker's compile at PUT /problems) queued or running at once, across
    # every API process; past it: 503 at once (services/judge/queue/checks.py)
    max_checks: int = Field(default=4, ge=1)
    # the same limit for each client (a token's name, docs/spec.md 6.8); 0: FRONTIER_MAX_QUEUE_DEPTH
    max_client_queue_depth: int = Field(default=0, ge=0)
    # fair shares: "name:weight,..." (a client not named weighs 1); a client with weight 2 gets two
    # units judged for each one of a client with weight 1 while both have work waiting
    client_weights: str = ""
    # the most distinct submissions one queue job carries (small batches are split finer)
    job_chunk_size: int = 32
    judge_queue: str = "judge"
    # prefix of the judge's own Redis keys (RQ's keys are its own `rq:` ones)
    redis_prefix: str = "frontier"
    # a running job's lease, renewed by its worker; a killed worker's job is requeued once it lapses
    job_lease_s: int = Field(default=30, ge=2)
    # how many times a job whose worker was lost is run again before its submissions get judge_error
    job_retries: int = Field(default=2, ge=0)
    # on SIGTERM a judge worker finishes the jobs in hand for up to this long, then hands back what is
    # left (requeued at once, no retry spent) and exits: keep it under the grace period of what stops
    # it (Kubernetes' terminationGracePeriodSeconds, compose's stop_grace_period), README "Beyond one machine"
    drain_s: float = Field(default=20.0, ge=0)
    # how long batch state and results stay in Redis
    result_ttl_s: int = 86400
    # how long POST /judge waits for a batch before answering 504 with its batch id
    judge_wait_s: int = 3600
    # deadlines (docs/spec.md 6.7): the judge answers 504 this long before a caller's deadline, so the
    # answer arrives before the caller's own timeout fires (network, the client's clock started first)
    deadline_margin_s: float = Field(default=2.0, ge=0.0)
    # a SandboxFusion client waits compile_timeout + run_timeout + this (verl's API_TIMEOUT) for /run_code
    sandboxfusion_client_slack_s: float = Field(default=10.0, ge=0.0)
    # the start rule (docs/spec.md 6.7): `estimate` (the default) starts no unit or run whose expected
    # cost (a high quantile of the costs this worker measured for its kind, its limits before that and as
    # the cap) cannot finish before its answer is due; it is answered 504 at once. `limits` takes the
    # limits alone (compile + tests x a busy test's cost, deadlines.test_cost_s) as the cost; `off`: work is started while its
    # answer is not yet due, and stopped at its deadline
    deadline_start_rule: Literal["estimate", "limits", "off"] = "estimate"
    # carry to the retry (docs/spec.md 6.7): a /run_code or /run_jupyter run still running when its
    # answer is due is answered 504 but not stopped; it runs on to its own limits, and the same request
    # from the same client (the retry SandboxFusion's clients send on a 504) gets its outcome instead of
    # a new run, for this long after the run's limits would end it. 0: off, stopped at the deadline
    deadline_carry_s: float = Field(default=120.0, ge=0.0, le=3600.0)
    # a SandboxFusion client sends a request at most this many times (verl: 3 attempts, retrying only a
    # 504): its last attempt's run is not carried past its deadline (no retry would take it), it is
    # stopped there. 0: unknown, every attempt's run is carried
    sandboxfusion_client_attempts: int = Field(default=3, ge=0, le=100)

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
    # memory admission (services/judge/worker/admission.py): a worker takes a session or a run only while the
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
    # more tokens, one per client, each with a name that logs and metrics show (never the token):
    # "name1:token1,name2:token2". Any of them (or api_token, named "default") opens every endpoint,
    # as a bearer header or in the URL's path (`/t/<token>/...`, for clients that only take a URL)
    api_tokens: SecretStr | None = None
    # the operator's token (its client is named "operator"): opens every endpoint as the others do,
    # and may also see, read and end every client's sessions, batches and runs and replace any problem
    # (docs/spec.md 9.7); every other client sees only what it created
    operator_token: SecretStr | None = None
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

    @field_validator("api_tokens", "operator_token", mode="before")
    @classmethod
    def _empty_tokens_are_none(cls, v):
        return None if v is None or (isinstance(v, str) and not v.strip()) else v

    @field_validator("api_tokens")
    @classmethod
    def _tokens_parse(cls, v: SecretStr | None) -> SecretStr | None:
        if v is not None:
            parse_named_tokens(v.get_secret_value())  # a ValueError says what is wrong, never the token
        return v

    def named_tokens(self) -> dict[str, str]:
        """Every accepted token by its client's name: FRONTIER_API_TOKENS, and FRONTIER_API_TOKEN as
        "default" (a name given twice, or a token given twice, is refused when the settings load)."""
        tokens = parse_named_tokens(self.api_tokens.get_secret_value()) if self.api_tokens else {}
        if self.api_token is not None:
            if "default" in tokens:
                raise ValueError("FRONTIER_API_TOKENS names a client 'default', FRONTIER_API_TOKEN's name")
            tokens["default"] = self.api_token.get_secret_value()
        if self.operator_token is not None:
            if "operator" in tokens:
                raise ValueError(
                    "FRONTIER_API_TOKENS names a client 'operator', FRONTIER_OPERATOR_TOKEN's name"
                )
            tokens["operator"] = self.operator_token.get_secret_value()
        if len(set(tokens.values())) != len(tokens):
            raise ValueError("FRONTIER_API_TOKENS: two clients have the same token")
        return tokens

    @property
    def auth_required(self) -> bool:
        return self.api_token is not None or self.api_tokens is not None or self.operator_token is not None

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

    def client_queue_limit(self) -> int:
        return self.max_client_queue_depth or self.max_queue_depth

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
        """What a client of the stack's services sends: the bearer token, where one is set
        (FRONTIER_API_TOKEN, else the first of FRONTIER_API_TOKENS)."""
        if self.api_token is not None:
            return {"Authorization": f"Bearer {self.api_token.get_secret_value()}"}
        if self.api_tokens is not None:
            first = next(iter(parse_named_tokens(self.api_tokens.get_secret_value()).values()))
            return {"Authorization": f"Bearer {first}"}
        if self.operator_token is not None:
            return {"Authorization": f"Bearer {self.operator_token.get_secret_value()}"}
        return {}


_CLIENT_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")


def parse_named_tokens(text: str) -> dict[str, str]:
    """`name1:token1,name2:token2` as {name: token}. A client's name is 1 to 64 letters, digits, '_',
    '.' or '-'; a token is at least 16 characters, none of them ',', '/' or whitespace (it travels in
    URL paths). Errors name the entry by position and name, never its token."""
    tokens: dict[str, str] = {}
    for i, entry in enumerate(text.split(","), 1):
        entry = entry.strip()
        if not entry:
            continue
        name, sep, token = entry.partition(":")
        name = name.strip()
        if not sep or not name or len(name) > 64 or not set(name) <= _CLIENT_NAME_CHARS:
            raise ValueError(
                f"FRONTIER_API_TOKENS entry {i}: write name:token, the name of letters, digits, '_.-'"
            )
        if len(token) < 16 or any(c.isspace() or c in ",/" for c in token):
            raise ValueError(
                f"FRONTIER_API_TOKENS entry {i} ({name}): a token has at least 16 characters, "
                "no whitespace, ',' or '/'"
            )
        if name in tokens:
            raise ValueError(f"FRONTIER_API_TOKENS: client {name!r} is named twice")
        tokens[name] = token
    if not tokens:
        raise ValueError("FRONTIER_API_TOKENS is set but names no client")
    return tokens


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
