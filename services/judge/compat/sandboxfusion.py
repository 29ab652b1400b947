"""SandboxFusion's `/run_code` request and response, and their translation to and from a run (pure).

Field names and status strings are SandboxFusion's, as verl's `sandbox_fusion` reward and SkyRL's
code tools read them: `status` Success / Failed / SandboxError; `compile_result` and `run_result`
with `status` Finished / Error / TimeLimitExceeded. Ours is stricter in one way: `memory_limit_MB` is
enforced by the run's cgroup (SandboxFusion's -1, "no limit", becomes `DEFAULT_MEMORY_MB`).
`fetch_files` come back as SandboxFusion returns them: base64 by the path as given, a path that names
no regular file left out; paths stay inside the working directory and under the judge's size caps.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import posixpath
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from services.judge.core.flags import COMPILE_TIMED_OUT
from services.judge.core.languages import LANGUAGES as ALL_LANGUAGES
from services.judge.core.verdicts import Verdict
from services.judge.queue.run_models import MAX_MEMORY_LIMIT_MB, MAX_TIME_LIMIT_MS, RunOutcome, RunRequest

# SandboxFusion's language names, each to the language that serves it (services/judge/core/languages)
LANGUAGES = {alias: name for name, lang in ALL_LANGUAGES.items() for alias in lang.sandboxfusion}
DEFAULT_MEMORY_MB = 1024


class RunCodeRequest(BaseModel):
    model_config = ConfigDict(extra="ignore")  # clients send fields of other sandboxes' versions too

    code: str
    language: str = "python"
    stdin: str | None = None
    compile_timeout: float = Field(default=10, gt=0, le=MAX_TIME_LIMIT_MS / 1000)
    run_timeout: float = Field(default=10, gt=0, le=MAX_TIME_LIMIT_MS / 1000)
    memory_limit_MB: int = Field(default=-1, ge=-1, le=MAX_MEMORY_LIMIT_MB)
    files: dict[str, str | None] = Field(default_factory=dict, description="path -> base64 content")
    fetch_files: list[str] = Field(default_factory=list)


class CommandRunResult(BaseModel):
    status: Literal["Finished", "Error", "TimeLimitExceeded"]
    execution_time: float | None = Field(default=None, description="wall seconds")
    cpu_time: float | None = Field(default=None, description="CPU seconds")
    return_code: int | None = None
    stdout: str | None = None
    stderr: str | None = None


class RunCodeResponse(BaseModel):
    status: Literal["Success", "Failed", "SandboxError"]
    message: str = ""
    compile_result: CommandRunResult | None = None
    run_result: CommandRunResult | None = None
    executor_pod_name: str | None = None
    files: dict[str, str] = Field(default_factory=dict)


class RequestRefused(ValueError):
    """A request this judge cannot run (unsupported language, a file it cannot place)."""


MAX_FETCH_FILES = 100


def to_run(body: RunCodeRequest, compile_cap_ms: int) -> RunRequest:
    """The run a `/run_code` request asks for; RequestRefused for what we do not support.
    `compile_timeout` applies to a compiled language up to `compile_cap_ms` (the judge's own compile limit)."""
    language = LANGUAGES.get(body.language)
    if language is None:
        raise RequestRefused(f"unsupported language {body.language!r}; supported: {sorted(LANGUAGES)}")
    fetch = _fetch_paths(body.fetch_files)
    files = _files(body.files)
    run_ms = math.ceil(body.run_timeout * 1000)
    memory_mb = DEFAULT_MEMORY_MB if body.memory_limit_MB <= 0 else body.memory_limit_MB
    return RunRequest(
        language=language,
        code=body.code,
        stdin=body.stdin or "",
        files=files,
        time_limit_ms=run_ms,
        wall_limit_ms=run_ms,
        memory_limit_mb=memory_mb,
        compile_time_limit_ms=min(math.ceil(body.compile_timeout * 1000), compile_cap_ms),
        fetch=fetch,
    )


def _fetch_path(path: str) -> str | None:
    """A fetch_files path as a path inside the working directory, or None for one that leaves it."""
    name = posixpath.normpath(path)
    if not path or path.startswith("/") or "\0" in path or name in (".", "..") or name.startswith("../"):
        return None
    return name


def _fetch_paths(given: list[str]) -> list[str]:
    if len(given) > MAX_FETCH_FILES:
        raise RequestRefused(f"fetch_files: at most {MAX_FETCH_FILES} paths")
    paths = []
    for path in given:
        name = _fetch_path(path)
        if name is None:
            raise RequestRefused(
                f"fetch_files path {path!r}: only paths inside the working directory (relative, no '..')"
            )
        if name not in paths:
            paths.append(name)
    return paths


def _fetched(outcome: RunOutcome, asked: list[str]) -> tuple[dict[str, str], str]:
    """The answer's `files` (base64 by each path as asked) and a note on files over the size caps."""
    files, over = {}, []
    for path in asked:
        name = _fetch_path(path)
        if name in outcome.files:
            files[path] = outcome.files[name]
        elif outcome.fetched.get(name) == "too_large":
            over.append(path)
    note = f"fetch_files over the judge's size limit, not returned: {', '.join(over)}" if over else ""
    return files, note


def _files(given: dict[str, str | None]) -> dict[str, str]:
    """Request files (path -> base64) as a run's files (plain name -> bytes as latin-1 text)."""
    files = {}
    for path, content in given.items():
        name = posixpath.normpath(path)
        if name.startswith("./"):
            name = name[2:]
        if not name or "/" in name or "\0" in name or name in (".", ".."):
            raise RequestRefused(
                f"file {path!r}: only plain file names in the working directory are supported"
            )
        try:
            data = base64.b64decode(content or "", validate=True)
        except (binascii.Error, ValueError):
            raise RequestRefused(f"file {path!r}: content is not valid base64") from None
        files[name] = data.decode("latin-1")
    return files


def from_run(outcome: RunOutcome, language: str, fetch_files: list[str] = ()) -> RunCodeResponse:
    """SandboxFusion's answer for a run's outcome; only a compiled language has a `compile_result`."""
    if outcome.status != "ok":  # judge_error, or refused (never run: no memory for it)
        return RunCodeResponse(status="SandboxError", message=outcome.message or "the sandbox failed")
    if outcome.verdict == Verdict.CE:
        if (outcome.compile_output or "").startswith(COMPILE_TIMED_OUT):  # past compile_timeout
            compiled = CommandRunResult(status="TimeLimitExceeded", stdout="", stderr=outcome.compile_output)
        else:
            compiled = CommandRunResult(
                status="Error", return_code=1, stdout="", stderr=outcome.compile_output
            )
        return RunCodeResponse(status="Failed", message="", compile_result=compiled)
    files, note = _fetched(outcome, list(fetch_files))
    seconds = None if outcome.wall_ms is None else outcome.wall_ms / 1000
    cpu_s = None if outcome.cpu_ms is None else outcome.cpu_ms / 1000
    if outcome.verdict == Verdict.TLE:
        run = CommandRunResult(
            status="TimeLimitExceeded",
            execution_time=seconds,
            cpu_time=cpu_s,
            stdout=outcome.stdout,
            stderr=outcome.stderr,
        )
    else:
        return_code = outcome.exit_code
        if return_code is None and outcome.signal is not None:
            return_code = 128 + outcome.signal  # as a shell reports a signalled process
        run = CommandRunResult(
            status="Finished",
            execution_time=seconds,
            cpu_time=cpu_s,
            return_code=return_code,
            stdout=outcome.stdout,
            stderr=outcome.stderr,
        )
    compiled = None
    if language in ALL_LANGUAGES and ALL_LANGUAGES[language].compiled:
        compiled = CommandRunResult(status="Finished", return_code=0, stdout="", stderr="")
    ok = outcome.verdict is None
    message = "; ".join(m for m in ("" if ok else _MESSAGES.get(outcome.verdict, ""), note) if m)
    return RunCodeResponse(
        status="Success" if ok else "Failed",
        message=message,
        compile_result=compiled,
        run_result=run,
        files=files,
    )


_MESSAGES = {
    Verdict.MLE: "memory limit exceeded",
    Verdict.OLE: "output limit exceeded",
    Verdict.TLE: "time limit exceeded",
}


# -- /run_jupyter -----------------------------------------------------------------------------------
JUPYTER_DRIVER = (Path(__file__).parent.parent / "worker" / "jupyter_driver.py").read_text()


class RunJupyterRequest(BaseModel):
    model_config = ConfigDict(extra="ignore")

    cells: list[str] = Field(max_length=1000)
    cell_timeout: float = Field(default=0, ge=0, le=MAX_TIME_LIMIT_MS / 1000, description="s; 0: none")
    total_timeout: float = Field(default=45, gt=0, le=MAX_TIME_LIMIT_MS / 1000)
    kernel: str = "python3"
    files: dict[str, str | None] = Field(default_factory=dict)
    fetch_files: list[str] = Field(default_factory=list)


class CellRunResult(BaseModel):
    stdout: str
    stderr: str
    display: list[dict]
    error: list[dict]


class RunJupyterResponse(BaseModel):
    status: Literal["Success", "Failed", "SandboxError"]
    message: str = ""
    driver: CommandRunResult | None = None
    cells: list[CellRunResult] = Field(default_factory=list)
    executor_pod_name: str | None = None
    files: dict[str, str] = Field(default_factory=dict)


def to_jupyter_run(body: RunJupyterRequest) -> RunRequest:
    """The run of the notebook driver (`jupyter_driver.py`) over the request's cells."""
    if body.kernel != "python3":
        raise RequestRefused(f"unsupported kernel {body.kernel!r}; supported: python3")
    fetch = _fetch_paths(body.fetch_files)
    total_ms = math.ceil(body.total_timeout * 1000)
    return RunRequest(
        language="python",
        code=JUPYTER_DRIVER,
        stdin=json.dumps({"cells": body.cells, "cell_timeout_s": body.cell_timeout}),
        files=_files(body.files),
        time_limit_ms=total_ms,
        wall_limit_ms=total_ms,
        memory_limit_mb=DEFAULT_MEMORY_MB,
        fetch=fetch,
    )


def from_jupyter_run(outcome: RunOutcome, fetch_files: list[str] = ()) -> RunJupyterResponse:
    """SandboxFusion's answer for a notebook run: the cells that finished, and how the driver ended."""
    if outcome.status != "ok":  # judge_error, or refused (never run: no memory for it)
        return RunJupyterResponse(status="SandboxError", message=outcome.message or "the sandbox failed")
    cells = []
    for line in outcome.stdout.splitlines():
        try:
            cells.append(CellRunResult.model_validate_json(line))
        except ValidationError:
            break  # the driver was stopped while writing this line
    seconds = None if outcome.wall_ms is None else outcome.wall_ms / 1000
    timed_out = outcome.verdict == Verdict.TLE
    driver = CommandRunResult(
        status="TimeLimitExceeded" if timed_out else "Finished",
        execution_time=seconds,
        cpu_time=None if outcome.cpu_ms is None else outcome.cpu_ms / 1000,
        return_code=None if timed_out else outcome.exit_code,
        stdout="",
        stderr=outcome.stderr,
    )
    ok = outcome.verdict is None
    files, note = _fetched(outcome, list(fetch_files))
    failed = "" if ok else _MESSAGES.get(outcome.verdict, "the notebook's interpreter failed")
    return RunJupyterResponse(
        status="Success" if ok else "Failed",
        message="; ".join(m for m in (failed, note) if m),
        driver=driver,
        cells=cells,
        files=files,
    )
