"""HTTP bodies of the session routes (docs/spec.md section 6.6)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from services.judge.core.models import Language
from services.judge.core.options import JudgeOptions

MAX_TIMEOUT_S = 600

ExecStatus = Literal["ok", "timeout", "memory", "output_limit", "dead"]


class SessionLimits(BaseModel):
    """A session's limits. CPU time is per exec; memory covers every process and file of the session."""

    model_config = ConfigDict(extra="forbid")

    cpu_s: float = Field(default=10.0, gt=0, le=MAX_TIMEOUT_S, description="CPU seconds one exec may use")
    memory_mb: int = Field(default=512, ge=32, le=16384, description="memory of the whole session (cgroup)")
    lifetime_s: int = Field(
        default=3600, ge=1, le=7 * 86400, description="the session ends this long after creation"
    )
    idle_s: int = Field(
        default=600, ge=1, le=86400, description="the session ends after this long without a call"
    )
    output_kb: int = Field(default=1024, ge=1, le=65536, description="stdout plus stderr one exec may return")


class CreateSession(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: Literal["python", "bash"]
    problem_id: str | None = Field(
        default=None,
        description="statement.md and the problem's public tests are put in the working directory",
    )
    limits: SessionLimits = Field(default_factory=SessionLimits)


class SessionCreated(BaseModel):
    id: str
    kind: str
    problem_id: str | None
    expires_at: float = Field(description="Unix time at which the session ends (lifetime_s)")
    files: list[str] = Field(description="files put in the working directory at creation")


class ExecRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    code: str | None = Field(default=None, description="Python code (python sessions)")
    command: str | None = Field(default=None, description="a bash command line (bash sessions)")
    timeout_s: float = Field(
        default=30.0, gt=0, le=MAX_TIMEOUT_S, description="wall-clock limit of this exec"
    )

    @model_validator(mode="after")
    def _one_of(self) -> ExecRequest:
        if (self.code is None) == (self.command is None):
            raise ValueError("give exactly one of 'code' (python sessions) and 'command' (bash sessions)")
        if "\x00" in (self.code or self.command or ""):
            raise ValueError("code and command cannot hold NUL characters")
        return self


OutputEncoding = Literal["utf-8", "base64"]


class ExecResult(BaseModel):
    stdout: str = Field(description="the exec's stdout: its text, or base64 where stdout_encoding says so")
    stderr: str = Field(description="the exec's stderr, as stdout (stderr_encoding)")
    exit_code: int | None = Field(description="the code's exit status; null when the exec was killed")
    status: ExecStatus
    cpu_ms: int
    wall_ms: int
    restarted: bool = Field(
        default=False,
        description="the shell had to be started again (killed after a limit, or it exited): "
        "Python variables are lost; bash keeps its exported environment and cwd",
    )
    stdout_encoding: OutputEncoding = Field(
        default="utf-8",
        description="utf-8: stdout is the output itself; base64: the output was not UTF-8, stdout holds "
        "its bytes in base64. output_kb counts stdout and stderr as the answer carries them",
    )
    stderr_encoding: OutputEncoding = Field(default="utf-8", description="as stdout_encoding, for stderr")


class SubmitRequest(JudgeOptions):
    """A program of the session, judged with a batch's options (JudgeOptions' fields, as POST /judge's)."""

    model_config = ConfigDict(extra="forbid", frozen=False)

    path: str | None = Field(default=None, description="a file of the session's working directory")
    code: str | None = None
    language: Language = "python"

    @model_validator(mode="after")
    def _one_of(self) -> SubmitRequest:
        if (self.path is None) == (self.code is None):
            raise ValueError("give exactly one of 'path' and 'code'")
        return self


class FileWritten(BaseModel):
    path: str
    bytes: int


class SessionInfo(BaseModel):
    id: str
    kind: str
    problem_id: str | None
    worker: str
    state: Literal["live", "dead"]
    created_at: float
    expires_at: float
    last_used_at: float | None = Field(default=None, description="Unix time of the last exec or file call")
    limits: SessionLimits
