"""A run's contract as data (docs/spec.md 6.5): what to run (`RunRequest`) and how it ended
(`RunOutcome`), with their limits. Pure models: the compat wire formats (services/judge/compat/)
translate to and from them without reaching the queue's Redis side (services/judge/queue/runs.py)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from services.judge.core.models import Language
from services.judge.core.verdicts import Verdict

MAX_TIME_LIMIT_MS = 60_000
MAX_MEMORY_LIMIT_MB = 16_384
MAX_OUTPUT_BYTES = 8 << 20  # stdout or stderr kept for the answer; more is an output-limit failure


class RunRequest(BaseModel):
    """What to run. `files` maps a plain file name in the working directory to its bytes (latin-1 text
    of the bytes in JSON, so the payload stays JSON)."""

    language: Language
    code: str
    stdin: str = ""
    files: dict[str, str] = Field(default_factory=dict)
    time_limit_ms: int = Field(gt=0, le=MAX_TIME_LIMIT_MS)
    wall_limit_ms: int = Field(gt=0, le=MAX_TIME_LIMIT_MS * 3)
    memory_limit_mb: int = Field(gt=0, le=MAX_MEMORY_LIMIT_MB)
    args: list[str] = Field(default_factory=list, description="after the program's own argv")
    compile_time_limit_ms: int | None = Field(default=None, gt=0, le=MAX_TIME_LIMIT_MS)
    compiler_flags: list[str] = Field(default_factory=list, description="checked by Runner.check_flags")
    fetch: list[str] = Field(default_factory=list, description="work-dir paths copied out after the run")
    tag: dict = Field(default_factory=dict, description="kept for the compat layer; never run")
    # docs/spec.md 6.7: past this (epoch seconds) nobody waits for the outcome; `cancellable`: a caller
    # waits on a connection, and the run's cancel key says when it went away
    answer_by_s: float | None = None
    cancellable: bool = False
    # carried to the retry (queue/carry.py): once running, its deadline does not stop it; it runs on
    # to its own limits (its cancel key still does: a caller gone)
    carry: bool = False
    client: str = "anonymous"  # whose fair queue and depth counter (docs/spec.md 6.8)
    # its caller asked for a callback (Judge0's callback_url, kept in the tag): its worker sends it
    callback: bool = False


class RunOutcome(BaseModel):
    """How a run ended. `verdict` is None when the program exited 0 within its limits (it ran fine);
    otherwise CE (a compiled language's compile failure; Python's syntax errors are RE, as for any
    interpreter), TLE, MLE, OLE or RE. `status: judge_error` means the judge failed, and says nothing
    of the program; `status: refused` that it never ran: its memory did not fit the worker's budget
    (`message`, a 503).
    `abandoned`: the run was stopped or never started because its caller went away or its deadline
    passed (docs/spec.md 6.7), which says nothing of the program either."""

    status: Literal["ok", "judge_error", "refused", "abandoned"]
    # an abandoned run's why: "deadline", "caller_gone" or "no_time" (the start rule, docs/spec.md 6.7)
    reason: str | None = None
    verdict: Verdict | None = None
    compile_output: str | None = None
    exit_code: int | None = None
    signal: int | None = None
    cpu_ms: int | None = None
    wall_ms: int | None = None
    memory_kb: int | None = None
    stdout: str = ""
    stderr: str = ""
    message: str | None = None
    # per fetched path: "ok", "missing" or "too_large"; `files` holds each "ok" one base64-encoded
    fetched: dict[str, str] = Field(default_factory=dict)
    files: dict[str, str] = Field(default_factory=dict)
