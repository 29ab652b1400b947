"""Public benchmark formats to problems (SPEC section 2): LiveCodeBench `code_generation_lite` JSONL and
CodeContests+ records, from local files or from the hub, plus the writer of SPEC problem directories.

Each record becomes a `Problem` through `build_problem`, so imported problems and uploaded ones are the
same thing. Records are untrusted input: every field is validated, errors name the record they come
from, and the pickle layer of LiveCodeBench's private tests is decoded by an unpickler that can build
nothing but a string.
"""

from __future__ import annotations

import base64
import binascii
import gzip
import io
import json
import os
import pickle
import re
import shutil
import tempfile
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any, Literal

import re2
from pydantic import BaseModel, ConfigDict, ValidationError

from services.problems import records as record_files
from services.problems.ints import any_int_size
from services.problems.spec import (
    PROBLEM_ID_RE,
    ExactChecker,
    Interactor,
    ProblemSpec,
    ProgramChecker,
    TokensChecker,
    is_testlib_checker,
)
from services.problems.store import Problem, ProblemError, TestStore, build_problem, inside

# LiveCodeBench publishes no limits per problem. Its own grader (lcb_runner, `--timeout 6`) gives each
# test 6 s, so 6000 ms keeps the verdicts of a correct solution the same as LiveCodeBench's; it sets no
# memory limit, and 1024 MB is ample for Python on its inputs while still catching runaway memory.
LCB_TIME_LIMIT_MS = 6000
LCB_MEMORY_LIMIT_MB = 1024
# CodeContests+ records carry the original limits (ms, MB); these apply only where a record lacks them
# and are Codeforces' most common ones.
CCPLUS_TIME_LIMIT_MS = 2000
CCPLUS_MEMORY_LIMIT_MB = 256

# a private-test payload that inflates past this is refused rather than exhausting memory
MAX_DECODED_TESTS_BYTES = 1 << 30

LCB_HUB_REPO = "livecodebench/code_generation_lite"
# which JSONL files of the hub repository make up each release (cumulative, as LiveCodeBench defines)
LCB_RELEASE_FILES = {
    f"release_v{n}": ["test.jsonl"] + [f"test{i}.jsonl" for i in range(2, n + 1)] for n in range(1, 7)
}
LCB_RELEASE_FILES["release_latest"] = LCB_RELEASE_FILES["release_v6"]
CCPLUS_HUB_REPO = "ByteDance-Seed/Code-Contests-Plus"

Record = dict[str, Any]
# (where the record comes from, for error messages; the record)
Located = tuple[str, Record]
Difficulty = Literal["easy", "medium", "hard"]


class LoaderError(ProblemError):
    """A record that cannot become a problem; the message names the record and what is wrong."""


# ------------------------------------------------------------------------------------------ selection


@dataclass(frozen=True)
class Selection:
    """Which records to import. Dates are inclusive; an empty set means "any"."""

    start_date: date | None = None
    end_date: date | None = None
    difficulties: frozenset[str] = frozenset()
    platforms: frozenset[str] = frozenset()

    def accepts(self, contest_date: date | None, difficulty: str | None, platform: str | None) -> bool:
        if self.start_date or self.end_date:
            # a record without a date cannot be inside a date window
            if contest_date is None:
                return False
            if self.start_date and contest_date < self.start_date:
                return False
            if self.end_date and contest_date > self.end_date:
                return False
        if self.difficulties and difficulty not in self.difficulties:
            return False
        if self.platforms and (platform or "").lower() not in {p.lower() for p in self.platforms}:
            return False
        return True


# ---------------------------------------------------------------------------------- reading records


def iter_records(path: Path) -> Iterator[Located]:
    """Records of a local file: JSONL (one object a line), a JSON array, or parquet (via `datasets`).
    A record whose bytes are refused (not UTF-8, not a JSON object, too long, nested too deep:
    services/problems/records.py) comes as a LoaderError in its place, and the rest are still read."""
    path = Path(path)
    if not path.is_file():
        raise LoaderError(f"{path}: no such file")
    if path.suffix == ".parquet":
        yield from _parquet_records(path)
        return
    try:
        for where, record in record_files.read(path):
            yield where, record if isinstance(record, dict) else LoaderError(record)
    except record_files.RecordFileError as err:
        raise LoaderError(str(err)) from None


def count_records(path: Path) -> int | None:
    """How many records `iter_records` will yield (for a progress bar), or None if not cheap to know."""
    path = Path(path)
    try:
        if path.suffix == ".parquet":
            import pyarrow.parquet as pq

            return pq.ParquetFile(path).metadata.num_rows
        with gzip.open(path, "rb") if path.name.endswith(".gz") else path.open("rb") as f:
            if not path.name.removesuffix(".gz").endswith(".jsonl") and record_files.first_byte(f) == b"[":
                return None
            # lines that are not blank, counted a chunk at a time (a line is never held whole)
            count, open_line = 0, False
            while chunk := f.read(1 << 16):
                *ended, rest = chunk.split(b"\n")
                for part in ended:
                    count += open_line or bool(part.strip())
                    open_line = False
                open_line = open_line or bool(rest.strip())
            return count + open_line
    except (OSError, ImportError, EOFError, zlib.error):
        return None


def _parquet_records(path: Path) -> Iterator[Located]:
    import datasets

    ds = datasets.load_dataset("parquet", data_files=str(path), split="train", streaming=True)
    for i, row in enumerate(ds):
        yield f"{path.name}[row {i}]", dict(row)


def livecodebench_hub_records(version_tag: str = "release_v6") -> Iterator[Located]:
    """LiveCodeBench records straight from the hub (needs network): the release's JSONL files."""
    import datasets

    if version_tag not in LCB_RELEASE_FILES:
        raise LoaderError(
            f"unknown LiveCodeBench release {version_tag!r}; known: {sorted(LCB_RELEASE_FILES)}"
        )
    for name in LCB_RELEASE_FILES[version_tag]:
        url = f"hf://datasets/{LCB_HUB_REPO}/{name}"
        # the repository's loading script is not runnable by current `datasets`; its JSONL files are
        ds = datasets.load_dataset("json", data_files=url, split="train", streaming=True)
        for i, row in enumerate(ds):
            yield f"{LCB_HUB_REPO}/{name}[{i}]", dict(row)


def codecontests_plus_hub_records(config: str = "default", split: str = "train") -> Iterator[Located]:
    """CodeContests+ records streamed from the hub (needs network); `config` is "default" or "1x".."5x"."""
    import datasets

    ds = datasets.load_dataset(CCPLUS_HUB_REPO, config, split=split, streaming=True)
    for i, row in enumerate(ds):
        yield f"{CCPLUS_HUB_REPO}:{config}/{split}[{i}]", dict(row)


# ------------------------------------------------------------------- the untrusted pickle layer


class _StringOnlyUnpickler(pickle.Unpickler):
    """An unpickler that can name no class or function, so a payload can only build plain data."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"refused to load {module}.{name}: only a pickled string is accepted")


def unpickle_string(data: bytes) -> str:
    """The str (or UTF-8 bytes) a trusted-format pickle holds; anything else is refused, never run."""
    try:
        value = _StringOnlyUnpickler(io.BytesIO(data)).load()
    except pickle.UnpicklingError as err:
        raise LoaderError(f"unsafe or invalid pickle: {err}") from None
    except Exception as err:  # malformed untrusted bytes can fail in many ways; all mean "refuse"
        raise LoaderError(f"invalid pickle ({type(err).__name__}: {err})") from None
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            raise LoaderError("the pickled bytes are not UTF-8 text") from None
    if not isinstance(value, str):
        raise LoaderError(
            f"the pickle holds a value of type {type(value).__name__}; only a string is accepted"
        )
    return value


def decode_private_tests(raw: str) -> list:
    """LiveCodeBench `private_test_cases`: a JSON string, or base64 of zlib of a pickled JSON string."""
    if not raw.strip():
        return []
    if raw.lstrip().startswith("["):
        text = raw
    else:
        try:
            compressed = base64.b64decode(raw.strip(), validate=True)
        except (binascii.Error, ValueError) as err:
            raise LoaderError(f"private_test_cases: neither JSON nor base64 ({err})") from None
        inflater = zlib.decompressobj()
        try:
            pickled = inflater.decompress(compressed, MAX_DECODED_TESTS_BYTES)
        except zlib.error as err:
            raise LoaderError(f"private_test_cases: not zlib data ({err})") from None
        if inflater.unconsumed_tail:
            raise LoaderError(f"private_test_cases: inflates past {MAX_DECODED_TESTS_BYTES} bytes")
        try:
            text = unpickle_string(pickled)
        except LoaderError as err:
            raise LoaderError(f"private_test_cases: {err}") from None
    try:
        tests = json.loads(text)
    except json.JSONDecodeError as err:
        raise LoaderError(f"private_test_cases: not a JSON list of tests ({err})") from None
    if not isinstance(tests, list):
        raise LoaderError(f"private_test_cases: expected a list of tests, got {type(tests).__name__}")
    return tests


# ----------------------------------------------------------------------------------- LiveCodeBench


class _LcbTest(BaseModel):
    model_config = ConfigDict(extra="ignore")

    input: str
    output: str
    testtype: Literal["stdin", "functional"]


class _LcbRecord(BaseModel):
    """One line of `code_generation_lite` (the fields lcb_runner's CodeGenerationProblem reads)."""

    model_config = ConfigDict(extra="ignore")

    question_title: str = ""
    question_content: str
    platform: str
    question_id: str
    contest_id: str = ""
    contest_date: datetime
    starter_code: str = ""
    difficulty: Difficulty
    public_test_cases: str | list
    private_test_cases: str | list
    metadata: str | dict = "{}"


def livecodebench_problem(
    record: Record,
    store: TestStore,
    where: str = "record",
    time_limit_ms: int = LCB_TIME_LIMIT_MS,
    memory_limit_mb: int = LCB_MEMORY_LIMIT_MB,
) -> Problem:
    """One LiveCodeBench record as a problem: public tests first, then private ones."""
    rec = _validate(_LcbRecord, record, where)
    where = f"{where} (question_id {rec.question_id!r})"
    try:
        return _lcb_problem(rec, store, time_limit_ms, memory_limit_mb)
    except ProblemError as err:
        raise LoaderError(f"{where}: {err}") from None


def _lcb_problem(rec: _LcbRecord, store: TestStore, time_limit_ms: int, memory_limit_mb: int) -> Problem:
    meta = _json_field(rec.metadata, "metadata", dict)
    public = _lcb_tests(_json_field(rec.public_test_cases, "public_test_cases", list), "public_test_cases")
    private_raw = rec.private_test_cases
    private_list = decode_private_tests(private_raw) if isinstance(private_raw, str) else private_raw
    private = _lcb_tests(private_list, "private_test_cases")

    function = meta.get("func_name") or None
    if function is not None and not (isinstance(function, str) and function.isidentifier()):
        raise LoaderError(f"metadata.func_name {function!r} is not a Python identifier")
    expected_type = "functional" if function else "stdin"
    for kind, tests in (("public_test_cases", public), ("private_test_cases", private)):
        for i, t in enumerate(tests):
            if t.testtype != expected_type:
                raise LoaderError(
                    f"{kind}[{i}]: testtype {t.testtype!r}, but the problem is {expected_type}"
                    + (f" (metadata.func_name {function!r})" if function else " (no metadata.func_name)")
                )

    all_tests = public + private
    width = max(2, len(str(len(all_tests))))
    cases = []
    for i, t in enumerate(all_tests):
        name = f"{i + 1:0{width}d}"
        kind = "public_test_cases" if i < len(public) else "private_test_cases"
        index = i if i < len(public) else i - len(public)
        if function:
            inp, out = _functional_test(t, f"{kind}[{index}]")
        else:
            inp, out = t.input.encode(), t.output.encode()
        cases.append((name, inp, out))

    metadata = {
        "source": "livecodebench",
        "platform": rec.platform,
        "question_id": rec.question_id,
        "contest_id": rec.contest_id,
        "contest_date": rec.contest_date.isoformat(),
        "public_test_count": len(public),
    }
    if rec.starter_code:
        metadata["starter_code"] = rec.starter_code
    spec = _spec(
        id=_problem_id("lcb", rec.question_id),
        title=rec.question_title,
        time_limit_ms=time_limit_ms,
        memory_limit_mb=memory_limit_mb,
        # lcb_runner compares stdin answers line by line after stripping (numbers as Decimals); tokens is
        # our closest checker. Functional answers are compared as JSON values by the engine whatever
        # the checker; exact is what a plain diff of the canonical JSON would need.
        checker=ExactChecker(type="exact") if function else TokensChecker(type="tokens"),
        function=function,
        difficulty=rec.difficulty,
        metadata=metadata,
        # the benchmark's own split: its public tests are the statement's examples
        public_tests=[name for name, _, _ in cases[: len(public)]],
    )
    return build_problem(spec, cases, store, statement=_lcb_statement(rec))


def _lcb_tests(raw: list, field: str) -> list[_LcbTest]:
    tests = []
    for i, item in enumerate(raw):
        try:
            tests.append(_LcbTest.model_validate(item))
        except ValidationError as err:
            raise LoaderError(_validation_message(err, f"{field}[{i}]")) from None
    return tests


def _functional_test(test: _LcbTest, where: str) -> tuple[bytes, bytes]:
    """LiveCodeBench functional test: arguments one JSON value a line; the answer one JSON value.

    The input keeps its published bytes (its length is the test's input length); the answer is
    re-serialized the way the functional driver prints results, so equal values compare equal.
    """
    with any_int_size():  # a big-integer answer is data like any other (the judge compares it exactly)
        for lineno, line in enumerate(test.input.split("\n"), start=1):
            if line.strip():
                try:
                    json.loads(line)
                except json.JSONDecodeError as err:
                    raise LoaderError(f"{where}: input line {lineno} is not a JSON value ({err})") from None
        try:
            answer = json.loads(test.output)
        except json.JSONDecodeError as err:
            raise LoaderError(f"{where}: output is not a JSON value ({err})") from None
        out = json.dumps(answer, separators=(",", ":")) + "\n"
    return test.input.encode(), out.encode()


def _lcb_statement(rec: _LcbRecord) -> str:
    parts = [f"# {rec.question_title}\n" if rec.question_title else "", rec.question_content.rstrip() + "\n"]
    if rec.starter_code.strip():
        parts.append(f"## Starter code\n\n```python\n{rec.starter_code.rstrip()}\n```\n")
    return "\n".join(p for p in parts if p)


def load_livecodebench(
    records: Iterable[Located],
    store: TestStore,
    selection: Selection = Selection(),
    time_limit_ms: int = LCB_TIME_LIMIT_MS,
    memory_limit_mb: int = LCB_MEMORY_LIMIT_MB,
    refuse: Callable[[ProblemError], None] | None = None,
) -> Iterator[Problem]:
    """The selected LiveCodeBench records as problems; tests are decoded only for selected records.
    A record that cannot become a problem raises its LoaderError, or, given `refuse`, is passed to it
    and the rest are read."""
    for where, record in records:
        try:
            if isinstance(record, ProblemError):
                raise record
            header = _lcb_header(record, where)
            if selection.accepts(*header):
                yield livecodebench_problem(record, store, where, time_limit_ms, memory_limit_mb)
        except ProblemError as err:
            if refuse is None:
                raise
            refuse(err)


class _LcbHeader(BaseModel):
    """The fields a selection looks at; checked before the (possibly large) tests are decoded."""

    model_config = ConfigDict(extra="ignore")

    contest_date: datetime
    difficulty: Difficulty
    platform: str


def _lcb_header(record: Record, where: str) -> tuple[date, str, str]:
    h = _validate(_LcbHeader, record, where)
    return h.contest_date.date(), h.difficulty, h.platform


# --------------------------------------------------------------------------------- CodeContests+


class _CcTest(BaseModel):
    model_config = ConfigDict(extra="ignore")

    input: str
    output: str


class _CcTestLists(BaseModel):
    model_config = ConfigDict(extra="ignore")

    input: list[str]
    output: list[str]


class _CcDuration(BaseModel):
    """The original CodeContests' time limit: a protobuf Duration."""

    seconds: int = 0
    nanos: int = 0


class _CcRecord(BaseModel):
    """A CodeContests+ record (the fields a judge needs; submissions, generators etc. are ignored)."""

    model_config = ConfigDict(extra="ignore")

    id: str | int
    # the platform ("Codeforces", ...); the original CodeContests numbered its sources
    source: str | int | None = None
    title: str | None = ""
    description: str | None = ""
    # CodeContests+: milliseconds and megabytes; the original CodeContests: a Duration and bytes
    time_limit: int | _CcDuration | None = None
    memory_limit: int | None = None
    memory_limit_bytes: int | None = None
    test_cases: list[_CcTest] | _CcTestLists | None = None
    # the original CodeContests' split: the statement's examples (public) apart from the other tests
    public_tests: list[_CcTest] | _CcTestLists | None = None
    checker: str | None = None
    # an interactive problem's testlib interactor (registerInteraction); empty for the others
    interactor: str | None = None
    # a testlib validator (registerValidation), written beside the tests as validator.cpp
    validator: str | None = None
    # used only when it is one of ours (easy/medium/hard); the original CodeContests used numbers
    difficulty: Any = None
    true_positive_rate: float | None = None
    true_negative_rate: float | None = None


def codecontests_plus_problem(
    record: Record,
    store: TestStore,
    where: str = "record",
    time_limit_ms: int | None = None,
    memory_limit_mb: int | None = None,
) -> Problem:
    """One CodeContests+ record as a problem; `time_limit_ms`/`memory_limit_mb` override the record's."""
    rec = _validate(_CcRecord, record, where)
    where = f"{where} (id {str(rec.id)!r})"
    try:
        return _cc_problem(rec, store, time_limit_ms, memory_limit_mb)
    except ProblemError as err:
        raise LoaderError(f"{where}: {err}") from None


def _cc_problem(
    rec: _CcRecord, store: TestStore, time_limit_ms: int | None, memory_limit_mb: int | None
) -> Problem:
    public = _cc_pairs(rec.public_tests, "public_tests")
    # public tests first; a test_cases entry equal to a public test is that test, not a second one
    seen = set(public)
    pairs = public + [p for p in _cc_pairs(rec.test_cases, "test_cases") if p not in seen]
    width = max(2, len(str(len(pairs))))
    cases = [(f"{i + 1:0{width}d}", inp.encode(), out.encode()) for i, (inp, out) in enumerate(pairs)]

    if time_limit_ms is None:
        if isinstance(rec.time_limit, _CcDuration):
            time_limit_ms = rec.time_limit.seconds * 1000 + rec.time_limit.nanos // 1_000_000
        else:
            time_limit_ms = rec.time_limit or CCPLUS_TIME_LIMIT_MS
    if memory_limit_mb is None:
        if rec.memory_limit:
            memory_limit_mb = rec.memory_limit
        elif rec.memory_limit_bytes:
            memory_limit_mb = -(-rec.memory_limit_bytes // (1 << 20))
        else:
            memory_limit_mb = CCPLUS_MEMORY_LIMIT_MB

    metadata: dict[str, Any] = {"source": "codecontests-plus", "record_id": str(rec.id)}
    if rec.source is not None:
        metadata["origin"] = str(rec.source)
    for key in ("true_positive_rate", "true_negative_rate"):
        if getattr(rec, key) is not None:
            metadata[key] = getattr(rec, key)

    interactor, interactor_source = None, None
    if rec.interactor and rec.interactor.strip():
        # an interactive problem (spec 2.8): the tests' inputs and outputs are the interactor's
        if not (is_testlib_checker(rec.interactor) and "registerInteraction" in rec.interactor):
            raise LoaderError("interactor: not a testlib interactor (no testlib.h or no registerInteraction)")
        if not _MAIN_RE.search(rec.interactor):
            raise LoaderError("interactor: a testlib interactor without `int main(` cannot run")
        interactor = Interactor(path="interactor.cpp", language="cpp")
        interactor_source = rec.interactor
        metadata["interactive"] = True
    checker_source = None
    checker: ExactChecker | TokensChecker | ProgramChecker
    if rec.checker and rec.checker.strip():
        language = _checker_language(rec.checker)
        checker_source = rec.checker
        if language == "cpp" and is_testlib_checker(rec.checker):
            if not _MAIN_RE.search(rec.checker):
                raise LoaderError("checker: a testlib checker without `int main(` cannot run")
            # kept verbatim: the judge compiles it against its own testlib.h (services/judge/core/testlib)
            metadata["checker_protocol"] = "testlib"
        checker = ProgramChecker(type="program", path=f"checker.{_EXT[language]}", language=language)
    elif interactor is not None:
        checker = ExactChecker(type="exact")  # no checker: the interactor's verdict stands
    else:
        # Codeforces' default checker compares whitespace-separated tokens
        checker = TokensChecker(type="tokens")

    spec = _spec(
        id=_problem_id("ccplus", str(rec.id)),
        title=rec.title or "",
        time_limit_ms=time_limit_ms,
        memory_limit_mb=memory_limit_mb,
        checker=checker,
        difficulty=_cc_difficulty(rec.difficulty),
        metadata=metadata,
        public_tests=[name for name, _, _ in cases[: len(public)]],
        interactor=interactor,
    )
    statement = (f"# {rec.title}\n\n" if rec.title else "") + (rec.description or "").rstrip() + "\n"
    problem = build_problem(
        spec,
        cases,
        store,
        statement=statement,
        checker_source=checker_source,
        interactor_source=interactor_source,
    )
    if rec.validator and "registerValidation" in rec.validator and is_testlib_checker(rec.validator):
        problem = problem.model_copy(update={"validator_source": rec.validator})
    return problem


_EXT = {"cpp": "cpp", "python": "py"}


def _cc_pairs(tests: list[_CcTest] | _CcTestLists | None, field: str) -> list[tuple[str, str]]:
    """(input, output) pairs of a CodeContests test field: a list of objects or two parallel lists."""
    if isinstance(tests, _CcTestLists):
        if len(tests.input) != len(tests.output):
            raise LoaderError(f"{field}: {len(tests.input)} inputs but {len(tests.output)} outputs")
        return list(zip(tests.input, tests.output, strict=True))
    return [(t.input, t.output) for t in tests or []]


def _cc_difficulty(value: Any) -> str | None:
    return value if value in ("easy", "medium", "hard") else None


def _checker_language(source: str) -> Literal["cpp", "python"]:
    if re2.search(r"(?m)^\s*#\s*include\b", source) or re2.search(r"\bint\s+main\s*\(", source):
        return "cpp"
    if re2.search(r"(?m)^\s*(import|from|def)\s", source):
        return "python"
    raise LoaderError("checker: cannot tell its language (expected C++ with #include, or Python)")


_MAIN_RE = re2.compile(r"\b(?:int|signed)\s+main\s*\(")


def load_codecontests_plus(
    records: Iterable[Located],
    store: TestStore,
    selection: Selection = Selection(),
    time_limit_ms: int | None = None,
    memory_limit_mb: int | None = None,
    refuse: Callable[[ProblemError], None] | None = None,
) -> Iterator[Problem]:
    """The selected CodeContests+ records as problems (they carry no contest date); a record that
    cannot become one is refused as `load_livecodebench` refuses it."""
    if selection.start_date or selection.end_date:
        raise LoaderError("CodeContests+ records carry no contest date; a date window cannot apply")
    for where, record in records:
        try:
            if isinstance(record, ProblemError):
                raise record
            source = record.get("source") if isinstance(record, dict) else None
            difficulty = record.get("difficulty") if isinstance(record, dict) else None
            platform = None if source is None else str(source)
            if selection.accepts(None, _cc_difficulty(difficulty), platform):
                yield codecontests_plus_problem(record, store, where, time_limit_ms, memory_limit_mb)
        except ProblemError as err:
            if refuse is None:
                raise
            refuse(err)


# ------------------------------------------------------------------------------ problem directories


def write_problem_dir(problem: Problem, store: TestStore, problem_dir: Path) -> Path:
    """Write `problem` as a SPEC problem directory at `problem_dir` (what `load_problem_dir` reads).

    The directory is built next to its destination and moved into place, so a reader never sees half
    a problem; an existing problem directory there is replaced, anything else is refused.
    """
    problem_dir = Path(problem_dir)
    if problem_dir.exists() and not (problem_dir / "problem.json").is_file():
        raise ProblemError(f"{problem_dir}: exists and is not a problem directory; not overwriting")
    spec = problem.spec
    statement_name = spec.statement
    if "/" in statement_name or statement_name in ("", ".", ".."):
        statement_name = "statement.md"
    updates: dict[str, Any] = {"statement": statement_name}
    checker_file = None
    if isinstance(spec.checker, ProgramChecker):
        if problem.checker_source is None:
            raise ProblemError(f"problem {spec.id}: a program checker needs its source")
        checker_file = spec.checker.path or f"checker.{_EXT[spec.checker.language]}"
        updates["checker"] = spec.checker.model_copy(update={"path": checker_file, "source": None})
    interactor_file = None
    if spec.interactor is not None:
        if problem.interactor_source is None:
            raise ProblemError(f"problem {spec.id}: an interactor needs its source")
        interactor_file = spec.interactor.path or f"interactor.{_EXT[spec.interactor.language]}"
        updates["interactor"] = spec.interactor.model_copy(update={"path": interactor_file, "source": None})
    spec = spec.model_copy(update=updates)

    problem_dir.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".tmp-{spec.id}-", dir=problem_dir.parent))
    try:
        (tmp / "problem.json").write_text(
            json.dumps(spec.model_dump(mode="json", exclude_none=True), indent=2) + "\n"
        )
        (tmp / statement_name).write_text(problem.statement)
        if checker_file is not None:
            # the checker's path comes from the record: it must land inside the new problem directory
            dest = inside(tmp, checker_file, "checker path", f"problem {spec.id}")
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_text(problem.checker_source or "")
        if interactor_file is not None:
            dest = inside(tmp, interactor_file, "interactor path", f"problem {spec.id}")
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_text(problem.interactor_source or "")
        if problem.validator_source is not None:
            (tmp / "validator.cpp").write_text(problem.validator_source)  # frontier problems check runs it
        tests = tmp / "tests"
        tests.mkdir()
        for t in problem.tests:
            shutil.copyfile(store.path(t.input_sha256), tests / f"{t.name}.in")
            shutil.copyfile(store.path(t.output_sha256), tests / f"{t.name}.out")
        os.chmod(tmp, 0o755)
        if problem_dir.exists():
            shutil.rmtree(problem_dir)
        os.replace(tmp, problem_dir)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return problem_dir


# ---------------------------------------------------------------------------------------- helpers


def _problem_id(prefix: str, raw_id: str) -> str:
    pid = f"{prefix}-" + re.sub(r"[^A-Za-z0-9_.\-]", "_", raw_id.strip())
    if not PROBLEM_ID_RE.match(pid):
        raise LoaderError(f"cannot make a problem id from {raw_id!r}")
    return pid


def _spec(**fields: Any) -> ProblemSpec:
    try:
        return ProblemSpec(**fields)
    except ValidationError as err:
        raise LoaderError(_validation_message(err, "problem.json")) from None


def _json_field(value: Any, field: str, kind: type) -> Any:
    """A field that LiveCodeBench publishes as a JSON string (or, after `datasets`, already parsed)."""
    if isinstance(value, str):
        try:
            value = json.loads(value) if value.strip() else kind()
        except json.JSONDecodeError as err:
            raise LoaderError(f"{field}: not valid JSON ({err})") from None
    if not isinstance(value, kind):
        raise LoaderError(f"{field}: expected a JSON {kind.__name__}, got {type(value).__name__}")
    return value


def _validate(model: type[BaseModel], record: Record, where: str) -> Any:
    if not isinstance(record, dict):
        raise LoaderError(f"{where}: a record must be an object, got {type(record).__name__}")
    try:
        return model.model_validate(record)
    except ValidationError as err:
        key = "question_id" if "question_id" in record else "id"
        rid = record.get(key)
        label = f"{where} ({key} {str(rid)!r})" if isinstance(rid, str | int) else where
        raise LoaderError(_validation_message(err, label)) from None


def _validation_message(err: ValidationError, where: str) -> str:
    lines = []
    for e in err.errors():
        field = ".".join(str(p) for p in e["loc"]) or "(root)"
        lines.append(f"{where}: field '{field}': {e['msg']}")
    return "\n".join(lines)


__all__ = [
    "CCPLUS_MEMORY_LIMIT_MB",
    "CCPLUS_TIME_LIMIT_MS",
    "LCB_MEMORY_LIMIT_MB",
    "LCB_TIME_LIMIT_MS",
    "LoaderError",
    "Selection",
    "codecontests_plus_hub_records",
    "codecontests_plus_problem",
    "count_records",
    "decode_private_tests",
    "iter_records",
    "livecodebench_hub_records",
    "livecodebench_problem",
    "load_codecontests_plus",
    "load_livecodebench",
    "unpickle_string",
    "write_problem_dir",
]
