"""Problems (SPEC section 2): load and validate a problem directory, keep test data content-addressed.

A `Problem` carries only hashes of its tests; the bytes live once in a `TestStore`, so the same test
uploaded twice is stored once and a worker can cache it by hash.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import tarfile
import tempfile
from pathlib import Path

from pydantic import BaseModel, ValidationError

from services.judge.models import ProblemSpec, ProgramChecker, TestCase
from services.judge.verdicts import run_order


class ProblemError(ValueError):
    """A problem that cannot be used, with a message that says what to fix."""


class Problem(BaseModel):
    """A validated problem: its spec, its tests in run order, the checker's source if any."""

    spec: ProblemSpec
    tests: list[TestCase]
    statement: str = ""
    checker_source: str | None = None

    @property
    def id(self) -> str:
        return self.spec.id

    def summary(self) -> dict:
        sizes = [t.input_bytes for t in self.tests]
        return {
            "id": self.spec.id,
            "title": self.spec.title,
            "time_limit_ms": self.spec.time_limit_ms,
            "memory_limit_mb": self.spec.memory_limit_mb,
            "checker": self.spec.checker.type,
            "function": self.spec.function,
            "difficulty": self.spec.difficulty,
            "test_count": len(sizes),
            "input_bytes_min": min(sizes, default=0),
            "input_bytes_max": max(sizes, default=0),
            "input_bytes_total": sum(sizes),
        }


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class TestStore:
    """Content-addressed blobs: `<root>/<sha[:2]>/<sha>`, written atomically, never rewritten."""

    __test__ = False  # not a pytest class

    def __init__(self, root: Path):
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)

    def path(self, digest: str) -> Path:
        return self.root / digest[:2] / digest

    def has(self, digest: str) -> bool:
        return self.path(digest).exists()

    def put(self, data: bytes) -> str:
        digest = sha256(data)
        dest = self.path(digest)
        if not dest.exists():
            dest.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=".tmp-")
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.chmod(tmp, 0o644)
            os.replace(tmp, dest)
        return digest

    def get(self, digest: str) -> bytes:
        return self.path(digest).read_bytes()


def _format_validation(err: ValidationError, where: str) -> str:
    lines = []
    for e in err.errors():
        field = ".".join(str(p) for p in e["loc"]) or "(root)"
        lines.append(f"{where}: field '{field}': {e['msg']}")
    return "\n".join(lines)


def parse_spec(raw: dict, where: str = "problem.json") -> ProblemSpec:
    if not isinstance(raw, dict):
        raise ProblemError(f"{where}: must be a JSON object")
    try:
        return ProblemSpec.model_validate(raw)
    except ValidationError as err:
        raise ProblemError(_format_validation(err, where)) from None


def build_problem(
    spec: ProblemSpec,
    tests: list[tuple[str, bytes, bytes]],
    store: TestStore,
    statement: str = "",
    checker_source: str | None = None,
) -> Problem:
    """Store the tests' bytes and return the problem with its tests in run order."""
    if not tests:
        raise ProblemError(f"problem {spec.id}: has no tests")
    names = [name for name, _, _ in tests]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ProblemError(f"problem {spec.id}: duplicate test names {dupes}")
    if isinstance(spec.checker, ProgramChecker) and not checker_source:
        raise ProblemError(f"problem {spec.id}: a program checker needs its source")
    cases = {}
    for name, inp, out in tests:
        if not name or "/" in name:
            raise ProblemError(f"problem {spec.id}: bad test name {name!r}")
        cases[name] = TestCase(
            name=name, input_bytes=len(inp), input_sha256=store.put(inp), output_sha256=store.put(out)
        )
    ordered = [cases[name] for name, _ in run_order((c.name, c.input_bytes) for c in cases.values())]
    return Problem(spec=spec, tests=ordered, statement=statement, checker_source=checker_source)


def load_problem_dir(path: Path, store: TestStore) -> Problem:
    """Load `<dir>/problem.json`, its statement, checker and `tests/*.in|*.out` pairs."""
    path = Path(path)
    pj = path / "problem.json"
    if not pj.is_file():
        raise ProblemError(f"{path}: no problem.json")
    try:
        raw = json.loads(pj.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise ProblemError(f"{pj}: not valid JSON ({err})") from None
    spec = parse_spec(raw, str(pj))
    statement_path = path / spec.statement
    statement = statement_path.read_text() if statement_path.is_file() else ""
    checker_source = None
    if isinstance(spec.checker, ProgramChecker):
        if spec.checker.source is not None:
            checker_source = spec.checker.source
        elif spec.checker.path is None:
            raise ProblemError(f"{pj}: field 'checker': a program checker needs 'path' or 'source'")
        else:
            cpath = path / spec.checker.path
            if not cpath.is_file():
                raise ProblemError(f"{pj}: field 'checker.path': {cpath} does not exist")
            checker_source = cpath.read_text()
    tdir = path / "tests"
    if not tdir.is_dir():
        raise ProblemError(f"{path}: no tests/ directory")
    ins = {p.stem: p for p in tdir.glob("*.in")}
    outs = {p.stem: p for p in tdir.glob("*.out")}
    unpaired = sorted(set(ins) ^ set(outs))
    if unpaired:
        raise ProblemError(f"{tdir}: tests without a matching .in/.out pair: {unpaired}")
    tests = [(stem, ins[stem].read_bytes(), outs[stem].read_bytes()) for stem in sorted(ins)]
    return build_problem(spec, tests, store, statement, checker_source)


def load_problem_tar(data: bytes, store: TestStore, max_member_bytes: int = 256 << 20) -> Problem:
    """A problem directory packed as tar.gz (one top-level directory, or the files at the root)."""
    try:
        tar = tarfile.open(fileobj=io.BytesIO(data), mode="r:gz")
    except (tarfile.TarError, OSError, EOFError) as err:
        raise ProblemError(f"not a readable tar.gz archive ({err})") from None
    with tempfile.TemporaryDirectory() as tmp, tar:
        for member in tar.getmembers():
            if not (member.isfile() or member.isdir()):
                raise ProblemError(f"archive member {member.name!r}: only files and directories allowed")
            if member.size > max_member_bytes:
                raise ProblemError(f"archive member {member.name!r} is too large")
            # what the "data" filter refuses too, for Pythons before 3.11.4 (Debian bookworm's 3.11.2)
            if member.name.startswith(("/", "\\")) or ".." in Path(member.name).parts:
                raise ProblemError(f"archive member {member.name!r} points outside the archive")
        try:
            if hasattr(tarfile, "data_filter"):
                tar.extractall(tmp, filter="data")
            else:
                tar.extractall(tmp)
        except (tarfile.TarError, OSError) as err:
            raise ProblemError(f"cannot unpack archive ({err})") from None
        root = Path(tmp)
        if not (root / "problem.json").exists():
            subdirs = [p for p in root.iterdir() if p.is_dir()]
            if len(subdirs) == 1 and (subdirs[0] / "problem.json").exists():
                root = subdirs[0]
        return load_problem_dir(root, store)
