"""Judge0's submission API: its languages, statuses, request and response shapes, and their translation
to and from a run (pure).

Status ids and descriptions are Judge0's. `time` is CPU seconds as a string, `wall_time` wall seconds,
`memory` peak KB, as Judge0 reports them. With `expected_output`, stdout is compared as Judge0 does:
trailing whitespace of each line and trailing blank lines do not count. A `callback_url` gets the
finished submission PUT to it as Judge0 sends it (base64-encoded, its default fields), from the worker
that ran it, to the hosts FRONTIER_JUDGE0_CALLBACK_HOSTS allows.
"""

from __future__ import annotations

import base64
import binascii
import io
import logging
import math
import posixpath
import shlex
import stat
import struct
import threading
import time
import urllib.parse
import zipfile
import zlib
from typing import Any

import httpx
from pydantic import BaseModel, ConfigDict, Field

from services.judge.core.flags import MAX_FLAGS_CHARS, check_flags
from services.judge.core.languages import LANGUAGES as ALL_LANGUAGES
from services.judge.core.verdicts import Verdict
from services.judge.queue.run_models import MAX_MEMORY_LIMIT_MB, RunOutcome, RunRequest
from services.settings import Settings

log = logging.getLogger(__name__)

# Judge0's ids (1.13 and 1.14) for each language's toolchain (services/judge/core/languages declares them)
LANGUAGE_IDS: dict[int, str] = {i: name for name, lang in ALL_LANGUAGES.items() for i in lang.judge0_ids}
_NAMES = {name: lang.judge0_name for name, lang in ALL_LANGUAGES.items()}
LANGUAGES = [
    {"id": i, "name": _NAMES[lang], "is_archived": False} for i, lang in sorted(LANGUAGE_IDS.items())
]

STATUSES: dict[int, str] = {
    1: "In Queue",
    2: "Processing",
    3: "Accepted",
    4: "Wrong Answer",
    5: "Time Limit Exceeded",
    6: "Compilation Error",
    7: "Runtime Error (SIGSEGV)",
    8: "Runtime Error (SIGXFSZ)",
    9: "Runtime Error (SIGFPE)",
    10: "Runtime Error (SIGABRT)",
    11: "Runtime Error (NZEC)",
    12: "Runtime Error (Other)",
    13: "Internal Error",
    14: "Exec Format Error",
}
_SIGNAL_STATUS = {11: 7, 25: 8, 8: 9, 6: 10}

# Judge0's defaults and maxima (seconds, KB)
CPU_TIME_LIMIT_S = (5.0, 15.0)
WALL_TIME_LIMIT_S = (10.0, 20.0)
MEMORY_LIMIT_KB = (128_000, MAX_MEMORY_LIMIT_MB * 1024)

DEFAULT_FIELDS = ("stdout", "time", "memory", "stderr", "token", "compile_output", "message", "status")

CALLBACK_TRIES, CALLBACK_TIMEOUT_S = 3, 5.0  # Judge0's callbacks_max_tries and callbacks_timeout
MAX_ADDITIONAL_FILES = 256


class SubmissionIn(BaseModel):
    model_config = ConfigDict(extra="ignore")  # Judge0 has many fields we do not use (see docs/spec.md)

    source_code: str
    language_id: int
    stdin: str | None = None
    expected_output: str | None = None
    cpu_time_limit: float | None = Field(default=None, gt=0, le=CPU_TIME_LIMIT_S[1])
    wall_time_limit: float | None = Field(default=None, gt=0, le=WALL_TIME_LIMIT_S[1])
    memory_limit: int | None = Field(default=None, gt=0, le=MEMORY_LIMIT_KB[1])
    compiler_options: str | None = Field(default=None, max_length=MAX_FLAGS_CHARS)
    command_line_arguments: str | None = Field(default=None, max_length=512)
    callback_url: str | None = Field(default=None, max_length=2048)
    additional_files: str | None = Field(default=None, description="base64 of a zip archive")


class SubmissionRefused(ValueError):
    """A submission Judge0 would answer 422 to: `errors` is Judge0's `{field: [message]}`."""

    def __init__(self, errors: dict[str, list[str]]):
        super().__init__("; ".join(f"{k}: {', '.join(v)}" for k, v in errors.items()))
        self.errors = errors


def _decode(value: str | None, field: str, base64_encoded: bool) -> str | None:
    if value is None or not base64_encoded:
        return value
    try:
        return base64.b64decode(value, validate=False).decode("utf-8", "replace")
    except (binascii.Error, ValueError):
        raise SubmissionRefused({field: ["is not valid base64"]}) from None


def _encode(value: str | None, base64_encoded: bool) -> str | None:
    if value is None or not base64_encoded:
        return value
    return base64.b64encode(value.encode()).decode()


def _split(value: str | None, field: str) -> list[str]:
    try:
        return shlex.split(value or "")
    except ValueError as err:
        raise SubmissionRefused({field: [f"cannot be split into arguments: {err}"]}) from None


def callback_refusal(url: str, hosts: str) -> str | None:
    """Why the judge will not call `url` back, or None. `hosts`: FRONTIER_JUDGE0_CALLBACK_HOSTS."""
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018 - raises on a port that is not a number
    except ValueError:
        return "is not a valid URL"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "must be an http:// or https:// URL"
    allowed = {h.strip().lower() for h in hosts.split(",") if h.strip()}
    if not allowed:
        return "callbacks are disabled on this judge (FRONTIER_JUDGE0_CALLBACK_HOSTS is empty)"
    if "*" in allowed or parts.hostname.lower() in allowed:
        return None
    return (
        f"host {parts.hostname!r} is not one this judge calls back "
        f"(FRONTIER_JUDGE0_CALLBACK_HOSTS: {', '.join(sorted(allowed))})"
    )


class SubmissionTooLarge(SubmissionRefused):
    """A submission refused for its size (HTTP 413), in Judge0's error shape."""


# the most a zip's central directory may take: 256 top-level names need far less; a larger one is
# refused before it is parsed (parsing builds an object per entry, whatever the count it declares)
_MAX_ZIP_DIRECTORY_BYTES = 1 << 20
_ZIP_END = b"PK\x05\x06"
_ZIP64_LOCATOR = b"PK\x06\x07"
_ZIP_COMPRESSIONS = {zipfile.ZIP_STORED: "stored", zipfile.ZIP_DEFLATED: "deflate"}
_INFLATE_CHUNK_BYTES = 1 << 16


def _refused(message: str, too_large: bool = False) -> SubmissionRefused:
    return (SubmissionTooLarge if too_large else SubmissionRefused)({"additional_files": [message]})


def _check_zip_directory(data: bytes) -> None:
    """The end record's entry count and directory size, read before zipfile parses the directory
    (where zipfile looks for it: the last end signature within the comment's reach)."""
    tail_at = max(0, len(data) - (22 + 0xFFFF))
    at = data.rfind(_ZIP_END, tail_at)
    if at < 0 or len(data) - at < 22:
        raise _refused("is not a base64-encoded zip archive")
    _, _, here, total, directory_bytes, _, _ = struct.unpack("<HHHHIIH", data[at + 4 : at + 22])
    entries = max(here, total)
    if data[max(0, at - 20) : at].startswith(_ZIP64_LOCATOR) or entries == 0xFFFF:
        raise _refused("is a zip64 archive: send a plain zip (at most 256 files)")
    if entries > MAX_ADDITIONAL_FILES:
        raise _refused(f"holds more than {MAX_ADDITIONAL_FILES} files", too_large=True)
    if directory_bytes > _MAX_ZIP_DIRECTORY_BYTES:
        raise _refused(f"has a directory over {_MAX_ZIP_DIRECTORY_BYTES >> 20} MB", too_large=True)


def _additional_files(value: str, max_bytes: int) -> dict[str, str]:
    """Judge0's additional_files (base64 of a zip) as a run's files: top-level names only, stored or
    deflate members only (bzip2 and lzma inflate without bound per read), each inflated in chunks
    whose real bytes are counted against `max_bytes` (a member's declared size is never trusted)."""
    try:
        data = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise _refused("is not a base64-encoded zip archive") from None
    _check_zip_directory(data)
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        members = [m for m in archive.infolist() if not m.is_dir()]
    except (ValueError, zipfile.BadZipFile, NotImplementedError, OSError, EOFError):
        raise _refused("is not a base64-encoded zip archive") from None
    if len(members) > MAX_ADDITIONAL_FILES:
        raise _refused(f"holds more than {MAX_ADDITIONAL_FILES} files", too_large=True)
    if sum(m.file_size for m in members) > max_bytes:  # declared: a quick refusal, not the bound
        raise _refused(f"unpack to more than {max_bytes >> 20} MB", too_large=True)
    files: dict[str, str] = {}
    left = max_bytes
    for member in members:
        name = posixpath.normpath(member.filename)
        if not name or "/" in name or "\0" in name or name in (".", ".."):
            raise _refused(f"{member.filename!r}: only files at the archive's top level")
        if name in files:
            raise _refused(f"{member.filename!r}: the same file twice")
        if member.compress_type not in _ZIP_COMPRESSIONS:
            raise _refused(
                f"{member.filename!r}: compression method {member.compress_type} is not accepted "
                "(only stored or deflate)"
            )
        if member.flag_bits & 0x1:
            raise _refused(f"{member.filename!r}: encrypted members are not accepted")
        if stat.S_ISLNK(member.external_attr >> 16):
            raise _refused(f"{member.filename!r}: symbolic links are not accepted")
        chunks = []
        try:
            with archive.open(member) as stream:
                while chunk := stream.read(min(_INFLATE_CHUNK_BYTES, left + 1)):
                    left -= len(chunk)
                    if left < 0:
                        raise _refused(f"unpack to more than {max_bytes >> 20} MB", too_large=True)
                    chunks.append(chunk)
        except (zipfile.BadZipFile, NotImplementedError, RuntimeError, OSError, EOFError, zlib.error) as err:
            raise _refused(f"{member.filename!r}: {err}") from None
        files[name] = b"".join(chunks).decode("latin-1")
    return files


def to_run(
    sub: SubmissionIn,
    base64_encoded: bool,
    *,
    callback_hosts: str = "",
    max_files_bytes: int = 64 << 20,
) -> RunRequest:
    """The run a submission asks for; its expected output rides along in the run's tag."""
    language = LANGUAGE_IDS.get(sub.language_id)
    if language is None:
        raise SubmissionRefused({"language_id": [f"language with id {sub.language_id} doesn't exist"]})
    flags = _split(sub.compiler_options, "compiler_options")
    try:
        check_flags(language, flags)
    except ValueError as err:
        raise SubmissionRefused({"compiler_options": [str(err)]}) from None
    args = _split(sub.command_line_arguments, "command_line_arguments")
    if sub.callback_url and (why := callback_refusal(sub.callback_url, callback_hosts)):
        raise SubmissionRefused({"callback_url": [why]})
    files = _additional_files(sub.additional_files, max_files_bytes) if sub.additional_files else {}
    source = _decode(sub.source_code, "source_code", base64_encoded) or ""
    stdin = _decode(sub.stdin, "stdin", base64_encoded) or ""
    expected = _decode(sub.expected_output, "expected_output", base64_encoded)
    cpu_s = sub.cpu_time_limit or CPU_TIME_LIMIT_S[0]
    wall_s = max(sub.wall_time_limit or WALL_TIME_LIMIT_S[0], cpu_s)
    memory_kb = sub.memory_limit or MEMORY_LIMIT_KB[0]
    return RunRequest(
        language=language,
        code=source,
        stdin=stdin,
        time_limit_ms=math.ceil(cpu_s * 1000),
        wall_limit_ms=math.ceil(wall_s * 1000),
        memory_limit_mb=math.ceil(memory_kb / 1024),
        args=args,
        compiler_flags=flags,
        files=files,
        tag={
            "judge0": {
                "language_id": sub.language_id,
                "source_code": source,
                "stdin": stdin,
                "expected_output": expected,
                "cpu_time_limit": cpu_s,
                "wall_time_limit": wall_s,
                "memory_limit": memory_kb,
                "compiler_options": sub.compiler_options,
                "command_line_arguments": sub.command_line_arguments,
                "callback_url": sub.callback_url,
            }
        },
        callback=bool(sub.callback_url),
    )


def same_output(actual: str, expected: str) -> bool:
    """Judge0's comparison: each line without trailing whitespace, trailing blank lines dropped."""

    def norm(text: str) -> list[str]:
        lines = [line.rstrip() for line in text.split("\n")]
        while lines and not lines[-1]:
            lines.pop()
        return lines

    return norm(actual) == norm(expected)


def status_id(outcome: RunOutcome, expected: str | None) -> int:
    """Judge0's status id for a run's outcome."""
    if outcome.status != "ok":  # judge_error, refused (no memory for it) or abandoned (deadline, caller gone)
        return 13
    v = outcome.verdict
    if v == Verdict.CE:
        return 6
    if v == Verdict.TLE:
        return 5
    if v == Verdict.OLE:
        return 8
    if v in (Verdict.RE, Verdict.MLE):
        if outcome.signal is not None:
            return _SIGNAL_STATUS.get(outcome.signal, 12)
        return 11
    if expected is not None and not same_output(outcome.stdout, expected):
        return 4
    return 3


def submission(
    token: str,
    tag: dict,
    outcome: RunOutcome | None,
    base64_encoded: bool,
    fields: list[str] | None = None,
    running: bool = False,
) -> dict[str, Any]:
    """A submission as Judge0 answers it: `fields` of it (default: Judge0's default fields; `*`: all).
    Without an outcome it is In Queue (1), or Processing (2) once a worker took it (`running`)."""
    info = tag.get("judge0", {})
    full: dict[str, Any] = {
        "token": token,
        "source_code": _encode(info.get("source_code"), base64_encoded),
        "language_id": info.get("language_id"),
        "stdin": _encode(info.get("stdin"), base64_encoded),
        "expected_output": _encode(info.get("expected_output"), base64_encoded),
        "cpu_time_limit": info.get("cpu_time_limit"),
        "wall_time_limit": info.get("wall_time_limit"),
        "memory_limit": info.get("memory_limit"),
        "compiler_options": info.get("compiler_options"),
        "command_line_arguments": info.get("command_line_arguments"),
        "callback_url": info.get("callback_url"),
        "stdout": None,
        "stderr": None,
        "compile_output": None,
        "message": None,
        "exit_code": None,
        "exit_signal": None,
        "time": None,
        "wall_time": None,
        "memory": None,
    }
    if outcome is None:
        sid = 2 if running else 1
    else:
        sid = status_id(outcome, info.get("expected_output"))
        ran = outcome.status == "ok" and outcome.verdict != Verdict.CE
        full.update(
            stdout=_encode(outcome.stdout, base64_encoded) if ran else None,
            stderr=_encode(outcome.stderr, base64_encoded) if ran and outcome.stderr else None,
            compile_output=_encode(outcome.compile_output, base64_encoded),
            message=_encode(_message(outcome, sid), base64_encoded),
            exit_code=outcome.exit_code if ran else None,
            exit_signal=outcome.signal if ran else None,
            time=f"{outcome.cpu_ms / 1000:.3f}" if ran and outcome.cpu_ms is not None else None,
            wall_time=f"{outcome.wall_ms / 1000:.3f}" if ran and outcome.wall_ms is not None else None,
            memory=outcome.memory_kb if ran else None,
        )
    full["status_id"] = sid
    full["status"] = {"id": sid, "description": STATUSES[sid]}
    if fields == ["*"]:
        return full
    return {f: full[f] for f in (fields or DEFAULT_FIELDS) if f in full}


def _message(outcome: RunOutcome, sid: int) -> str | None:
    if outcome.status != "ok":  # judge_error, refused (no memory for it) or abandoned (deadline, caller gone)
        return outcome.message
    if outcome.verdict == Verdict.MLE:
        return "memory limit exceeded"
    if 7 <= sid <= 12 and outcome.exit_code not in (None, 0):
        return f"Exited with error status {outcome.exit_code}"
    return None


def send_callback(settings: Settings, token: str, tag: dict, outcome: RunOutcome) -> threading.Thread | None:
    """PUT the finished submission to its callback_url as Judge0 does (base64-encoded, default fields;
    up to CALLBACK_TRIES tries of CALLBACK_TIMEOUT_S each, no redirects followed), in a daemon thread."""
    url = tag.get("judge0", {}).get("callback_url")
    if not url:
        return None
    if why := callback_refusal(url, settings.judge0_callback_hosts):
        log.warning("submission %s: callback to %s not sent: it %s", token, url, why)
        return None
    body = submission(token, tag, outcome, base64_encoded=True)

    def put() -> None:
        for attempt in range(CALLBACK_TRIES):
            try:
                r = httpx.put(url, json=body, timeout=CALLBACK_TIMEOUT_S, follow_redirects=False)
                if r.status_code < 500:
                    return
            except httpx.HTTPError as err:
                log.info("submission %s: callback try %d failed: %s", token, attempt + 1, err)
            time.sleep(0.5 * (attempt + 1))
        log.warning("submission %s: callback to %s failed %d times", token, url, CALLBACK_TRIES)

    thread = threading.Thread(target=put, name=f"judge0-callback-{token[:8]}", daemon=True)
    thread.start()
    return thread


def about() -> dict[str, str]:
    return {
        # the Judge0 release whose language ids these are (its SDK maps aliases by this version)
        "version": "1.13.1",
        "homepage": "codefrontier judge (Judge0-compatible API, docs/spec.md)",
        "source_code": "",
        "maintainer": "",
    }


def config_info(settings: Settings) -> dict[str, Any]:
    return {
        "enable_wait_result": True,
        "maintenance_mode": False,
        "enable_compiler_options": True,
        "allowed_languages_for_compile_options": [_NAMES["cpp"], _NAMES["c"]],
        "enable_command_line_arguments": True,
        "enable_submission_delete": settings.judge0_submission_delete,
        "enable_callbacks": bool(settings.judge0_callback_hosts.strip()),
        "callbacks_max_tries": CALLBACK_TRIES,
        "callbacks_timeout": CALLBACK_TIMEOUT_S,
        "enable_additional_files": True,
        "max_queue_size": 0,
        "cpu_time_limit": CPU_TIME_LIMIT_S[0],
        "max_cpu_time_limit": CPU_TIME_LIMIT_S[1],
        "cpu_extra_time": 0,
        "max_cpu_extra_time": 0,
        "wall_time_limit": WALL_TIME_LIMIT_S[0],
        "max_wall_time_limit": WALL_TIME_LIMIT_S[1],
        "memory_limit": MEMORY_LIMIT_KB[0],
        "max_memory_limit": MEMORY_LIMIT_KB[1],
        "stack_limit": 0,
        "max_stack_limit": 0,
        "max_processes_and_or_threads": 0,
        "max_max_processes_and_or_threads": 0,
        "enable_per_process_and_thread_time_limit": False,
        "allow_enable_per_process_and_thread_time_limit": False,
        "enable_per_process_and_thread_memory_limit": False,
        "allow_enable_per_process_and_thread_memory_limit": False,
        "max_file_size": 0,
        "max_max_file_size": 0,
        "number_of_runs": 1,
        "max_number_of_runs": 1,
        "redirect_stderr_to_stdout": False,
        "max_extract_size": 0,
        "enable_batched_submissions": True,
        "max_submission_batch_size": 20,
        "submission_cache_duration": 0,
        "use_docs_as_homepage": False,
        "enable_network": False,
        "allow_enable_network": False,
    }
