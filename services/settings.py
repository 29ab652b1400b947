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
    model_config = SettingsConfigDict(env_prefix="FRONTIER_", extra="ignore", use_attribute_docstrings=True)

    # storage and Redis
    state_dir: Path = Path("/var/lib/codefrontier")
    """Where the judge keeps content-addressed test data, compiled binaries and slot state."""
    redis_url: str = "redis://127.0.0.1:6379/0"
    """The Redis every service and worker of the stack shares (queues, batches, results, sessions)."""
    redis_max_connections: int = Field(default=1024, ge=8)
    """Connections one judge API process may hold for requests waiting on their results (one per
    request in flight); more requests than this wait for one instead of failing."""

    # ports and addresses (docs/spec.md sections 6-8)
    judge_port: int = 8000
    """The judge API's port."""
    judge_host: str = "127.0.0.1"
    """The judge API's listen address (0.0.0.0 in a container)."""
    merger_port: int = 8001
    """The merger API's port."""
    evaluator_port: int = 8002
    """The evaluator API's port."""
    judge_url: str = "http://127.0.0.1:8000"
    """Where clients (the trainer's rewards, the evaluator, the reward service, the CLI with
    `--url`) reach the judge; may carry a token in its path (`http://host:8000/t/<token>`)."""
    merger_url: str = "http://127.0.0.1:8001"
    """Where clients (the evaluator, the replication driver) reach the merger."""
    merger_host: str = "127.0.0.1"
    """The merger API's listen address."""
    merger_queue: str = "merge"
    """The RQ queue of merge jobs."""
    evaluator_url: str = "http://127.0.0.1:8002"
    """Where clients (the replication driver, `frontier eval --service`) reach the evaluator."""
    evaluator_host: str = "127.0.0.1"
    """The evaluator API's listen address."""
    published_address: str | None = None
    """Where a service's port is reachable from outside its container: docker-compose sets it to the
    address it publishes the ports on (FRONTIER_COMPOSE_ADDRESS, default 127.0.0.1). A service whose
    port is published beyond loopback without a token refuses to start (docs/spec.md 9.1)."""

    # sandbox, limits and results
    sandbox_mode: Literal["strict", "unsafe"] = "strict"
    """`strict`: programs run in the sandbox (namespaces, cgroups, uids, seccomp), and a judge without
    root or cgroups refuses to start; `unsafe`: without isolation, logged loudly, never for untrusted
    code."""
    slots: int = Field(default=2, ge=1)
    """Parallel sandbox slots per judge worker: at most the CPUs the worker may use (its affinity, its
    cgroup's CPU quota); a worker asked for more refuses to start (docs/spec.md 4.1)."""
    wall_time_multiplier: float = Field(default=3.0, ge=1.0)
    """A test's wall limit is time_limit_ms * this + FRONTIER_WALL_TIME_EXTRA_MS. TLE is CPU time; the
    wall limit stops a program idle there (TLE) or one the host starved (run again, then STARVED:
    docs/spec.md 4.1)."""
    wall_time_extra_ms: int = 1000
    """Added to a test's wall limit (see FRONTIER_WALL_TIME_MULTIPLIER)."""
    slot_cpu_weight: int = Field(default=1000, ge=0, le=10000)
    """The slots' CPU weight over the host's other work, on cgroup v2's cpu.weight scale (100: as any
    other work; v1 cpu.shares get 10.24x it); 0 leaves it as it is (docs/spec.md 4.1). Every judge on
    a host shares one cgroup for its slots, and with it the weight the last one set."""
    timeout_margin_ms: int = Field(default=500, ge=0)
    """The start rule's cost of one busy test: its time limit widened by the borderline band plus this
    much wall time (a slot has a CPU of its own; docs/spec.md 6.7)."""
    output_limit_kb: int = 65536
    """The most a program may write to stdout in one test; past it, OLE."""
    stderr_keep_bytes: int = 4096
    """How much of a program's or compiler's stderr is kept for a result's messages."""
    hidden_stderr: bool = False
    """Show a hidden test's stderr (a runtime error's message) in a result without feedback; off:
    withheld."""
    feedback_template: str = "rlef"
    """The feedback a batch gets where its request names no template (docs/spec.md section 5.1): a
    style name (`rlef`, `stats`) or a JSON object of template parts."""
    judge_client_retries: int = Field(default=8, ge=0)
    """How often a judge client (trainer rewards, reward service, verl adapter) retries a request the
    judge did not answer (connection errors, 502/503/504, 429) before it gives up."""
    tmp_size_mb: int = 64
    """The size of each sandbox's private /tmp (a tmpfs), and the most a compat run's files may hold."""
    pids_max: int = 64
    """Processes and threads a program (or a session) may have at once (the cgroup's pids limit)."""
    open_files_max: int = 256
    """Open files a program may hold (RLIMIT_NOFILE)."""
    compile_time_limit_ms: int = 20000
    """The time limit of one compile (C++, C, Java, Go, Rust, a JavaScript check) in the sandbox."""
    compile_memory_limit_mb: int = 1024
    """The memory limit of one compile in the sandbox."""
    checker_time_limit_ms: int = 10000
    """The time limit of a program checker's run on one test."""
    checker_memory_limit_mb: int = 1024
    """The memory limit of a program checker's run on one test."""
    isolation: Literal["test", "submission"] = "test"
    """Where a request does not say: `test` runs every test in a process of its own; `submission`
    forks a Python submission's tests from one sandboxed snapshot of it, with the same verdicts
    (docs/spec.md 4.8)."""
    fanout: bool = True
    """Fan-out (docs/spec.md 4.10): a submission's tests also run on the worker's idle slots (slots no
    caller waits for and no unit of a job in hand will take), each test in its own sandbox as on one
    slot, its results assembled in run order and the same as a serial run's; under `first_failure`
    the tests after a failure are not started, or stopped and reported SKIPPED. An interactive
    problem's tests stay on one slot. `false`: every submission's tests run in turn on one slot."""
    fanout_shards: bool = True
    """Fan-out across workers (docs/spec.md 4.10), with FRONTIER_FANOUT: when no judge job waits and
    other workers' loops are idle, a submission's tests are also claimed by shard jobs those loops take
    (from the queue `<FRONTIER_JUDGE_QUEUE>-shards`, before their own), through a counter and reports
    in Redis; the records are a serial run's. A worker refuses a shard of a worker whose limit settings
    differ. `false`: this worker neither pushes shard jobs nor takes any."""
    borderline_band: float = Field(default=0.1, ge=0.0, le=1.0)
    """A result whose CPU time lies within this fraction of the limit is re-run once and flagged
    `borderline`."""
    bin_cache_mb: int = Field(default=2048, ge=1)
    """Compiled binaries kept in <state_dir>/bin; the least recently used are evicted past this size."""
    precompiled_headers: bool = True
    """Precompile C++'s `bits/stdc++.h` once per flag set in the sandbox (on the set's second
    compile; at most 4 kept in <state_dir>/bin, about 100 MB each) and let compiles that include it
    read it: a fifth of the compile's CPU time, the same binary. Off: every compile parses the header."""

    # HTTP and queue
    max_body_mb: int = 64
    """The largest request body any API accepts; past it, 413."""
    max_queue_depth: int = 20000
    """Distinct submissions accepted but not yet judged, across every client; past it, 429."""
    max_checks: int = Field(default=4, ge=1)
    """A problem's checks (a checker's compile at PUT /problems) queued or running at once, across
    every API process; past it, 503 at once."""
    max_client_queue_depth: int = Field(default=0, ge=0)
    """FRONTIER_MAX_QUEUE_DEPTH for each client (a token's name, docs/spec.md 6.8); 0: the global
    limit."""
    client_weights: str = ""
    """Fair shares: `name:weight,...` (a client not named weighs 1); a client with weight 2 gets two
    units judged for each one of a client with weight 1 while both have work waiting."""
    job_chunk_size: int = 32
    """The most distinct submissions one queue job carries (small batches are split finer)."""
    judge_queue: str = "judge"
    """The RQ queue of judge jobs (what autoscalers watch: `rq:queue:<name>`)."""
    redis_prefix: str = "frontier"
    """Prefix of the judge's own Redis keys (RQ's keys are its own `rq:` ones)."""
    job_lease_s: int = Field(default=30, ge=2)
    """A running job's lease, renewed by its worker; a killed worker's job is requeued once it lapses."""
    job_retries: int = Field(default=2, ge=0)
    """How many times a job whose worker was lost is run again before its submissions get
    judge_error."""
    drain_s: float = Field(default=20.0, ge=0)
    """On SIGTERM a judge worker finishes the jobs in hand for up to this long, then hands back what is
    left (requeued at once, no retry spent) and exits: keep it under the grace period of what stops it
    (Kubernetes' terminationGracePeriodSeconds, compose's stop_grace_period)."""
    result_ttl_s: int = 86400
    """How long batch state and results stay in Redis."""
    judge_wait_s: int = 3600
    """How long POST /judge waits for a batch before answering 504 with its batch id."""

    # deadlines (docs/spec.md 6.7)
    deadline_margin_s: float = Field(default=2.0, ge=0.0)
    """The judge answers 504 this long before a caller's deadline, so the answer arrives before the
    caller's own timeout fires (network, the client's clock started first)."""
    sandboxfusion_client_slack_s: float = Field(default=10.0, ge=0.0)
    """A SandboxFusion client waits compile_timeout + run_timeout + this (verl's API_TIMEOUT) for
    /run_code: the deadline the judge assumes for it."""
    deadline_start_rule: Literal["estimate", "limits", "off"] = "estimate"
    """`estimate` starts no unit or run whose expected cost (what this worker measured for it or its
    kind, its limits before that and as the cap) cannot finish before its answer is due; it is answered
    504 at once. `limits` takes the limits alone (compile + tests x a busy test's cost) as the cost;
    `off`: work is started while its answer is not yet due, and stopped at its deadline."""
    deadline_carry_s: float = Field(default=120.0, ge=0.0, le=3600.0)
    """Carry to the retry: a /run_code or /run_jupyter run still running when its answer is due is
    answered 504 but not stopped; the same request from the same client (the retry SandboxFusion's
    clients send on a 504) gets its outcome instead of a new run, for this long after the run's limits
    would end it. 0: off, stopped at the deadline."""
    sandboxfusion_client_attempts: int = Field(default=3, ge=0, le=100)
    """A SandboxFusion client sends a request at most this many times (verl: 3 attempts, retrying only
    a 504): its last attempt's run is not carried past its deadline, it is stopped there. 0: unknown,
    every attempt's run is carried."""

    # compat APIs (docs/spec.md section 6.5)
    compat_fetch_file_mb: int = Field(default=8, ge=1)
    """SandboxFusion's fetch_files: the most one fetched file may hold."""
    compat_fetch_total_mb: int = Field(default=16, ge=1)
    """SandboxFusion's fetch_files: the most all of one run's fetched files may hold."""
    judge0_submission_delete: bool = False
    """Judge0's DELETE /submissions/{token} (Judge0's enable_submission_delete; off as in Judge0)."""
    judge0_callback_hosts: str = "127.0.0.1,localhost,::1"
    """Hosts a Judge0 callback_url may name (comma-separated host names or addresses; `*`: any; empty:
    callbacks refused). Loopback by default: the judge PUTs from inside its network to what a caller
    names, so other hosts are opened explicitly."""

    # sessions and memory admission (docs/spec.md sections 6.6, 10.2)
    session_max_per_worker: int = Field(default=64, ge=0)
    """How many sessions one judge worker process holds (0: none)."""
    session_disk_mb: int = Field(default=256, ge=1)
    """The size of each session's tmpfs (its working directory)."""
    session_max_file_mb: int = Field(default=16, ge=1)
    """The largest file read or written through the session API; past it, 413."""
    session_problem_files_mb: int = Field(default=16, ge=1)
    """A problem's files put in a new session (statement and public tests), in all; the rest are left
    out."""
    session_idle_cpus: float = Field(default=0.05, ge=0.0, le=64.0)
    """The CPUs a session's processes share between its calls (a cgroup quota: what a background
    process left spinning costs the judged programs beside it); 0: no quota."""
    admit_memory_share: float = Field(default=0.75, gt=0.0, le=1.0)
    """A worker takes a session or a run only while the memory limits granted to those its host holds
    fit this share of the host's RAM (or FRONTIER_ADMIT_MEMORY_MB where set); past it a session's create
    answers 503, a run waits up to FRONTIER_ADMIT_WAIT_S, then 503."""
    admit_memory_mb: int = Field(default=0, ge=0)
    """The host's memory budget for sessions and runs, in MiB, instead of FRONTIER_ADMIT_MEMORY_SHARE
    of its RAM; 0: the share."""
    admit_wait_s: float = Field(default=10.0, ge=0.0, le=600.0)
    """How long a run waits for its memory grant before it is answered 503."""
    session_warm: int = Field(default=2, ge=0)
    """Sandboxes of each kind a worker keeps started ahead of time, so that a create takes
    milliseconds."""

    # evaluator and merger
    eval_queue: str = "eval"
    """The RQ queue of evaluation jobs."""
    eval_dir: Path | None = None
    """Where evaluation runs are written (run.json, samples.jsonl, reports); unset: <state_dir>/eval."""
    eval_backend: Literal["auto", "vllm", "transformers"] = "auto"
    """The generation backend: `auto` is vLLM where it imports and a GPU is visible, else transformers
    on CPU."""
    merge_result_ttl_s: int = Field(default=7 * 24 * 3600, ge=60)
    """How long GET /merge/{job_id} answers after a job ends."""

    # security (docs/spec.md section 9)
    api_token: SecretStr | None = None
    """The bearer token every endpoint of the judge, merger and evaluator but /healthz asks for; unset
    or empty: none."""
    api_tokens: SecretStr | None = None
    """More tokens, one per client, each with a name that logs and metrics show (never the token):
    `name1:token1,name2:token2`. Any of them (or FRONTIER_API_TOKEN, named `default`) opens every
    endpoint, as a bearer header or in the URL's path (`/t/<token>/...`, for clients that only take a
    URL)."""
    operator_token: SecretStr | None = None
    """The operator's token (its client is named `operator`): opens every endpoint as the others do,
    and may also see, read and end every client's sessions, batches and runs and replace any problem
    (docs/spec.md 9.7); every other client sees only what it created."""
    data_roots: Annotated[list[Path], NoDecode] = Field(default_factory=list)
    """The only directories merger and evaluator requests may name (colon-separated); unset: the
    checkout's runs/ and the eval dir."""
    max_problem_mb: int = Field(default=512, ge=1)
    """An uploaded or loaded problem's files: their total uncompressed size."""
    max_problem_files: int = Field(default=20000, ge=4)
    """How many files an uploaded problem archive may hold."""
    max_code_kb: int = Field(default=512, ge=1)
    """One submission's code (or completion), in KiB; past it, 413."""

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
