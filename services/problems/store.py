"""Problems (SPEC section 2): load and validate a problem directory, keep test data content-addressed.

A `Problem` carries only hashes of its tests; the bytes live once in a `TestStore`, so the same test
uploaded twice is stored once and a worker can cache it by hash.

Everything a problem names is untrusted (SPEC section 7): every path it reads (statement, checker,
tests) must resolve inside the problem directory and be a regular file; an archive is read as a
stream, and each member is checked (name, type, count, running total of bytes) before its data is
written, so an archive over the limits is refused having written at most the limit.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import stat
import tarfile
import tempfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from pydantic import BaseModel, ValidationError

from services.problems.spec import ProblemSpec, ProgramChecker, TestCase, run_order


class ProblemError(ValueError):
    """A problem that cannot be used, with a message that says what to fix."""


class ProblemTooLarge(ProblemError):
    """A problem over FRONTIER_MAX_PROBLEM_MB bytes or FRONTIER_MAX_PROBLEM_FILES files (HTTP 413)."""


@dataclass(frozen=True)
class ProblemLimits:
    """How big one problem may be: all its files' bytes together, and how many files an archive holds."""

    max_total_bytes: int = 512 << 20
    max_files: int = 20000

    @classmethod
    def from_settings(cls, settings=None) -> ProblemLimits:
        if settings is None:
            from services.settings import get_settings

            settings = get_settings()
        return cls(max_total_bytes=settings.max_problem_mb << 20, max_files=settings.max_problem_files)

    def check_total(self, total_bytes: int, where: str) -> None:
        if total_bytes > self.max_total_bytes:
            raise ProblemTooLarge(
                f"{where}: the problem's files exceed the limit of {self.max_total_bytes >> 20} MB "
                "uncompressed (FRONTIER_MAX_PROBLEM_MB)"
            )


def check_test_name(name: str, where: str) -> None:
    """A test name is a file stem inside tests/: no separators, no '.'/'..', no control characters."""
    try:
        size = len(name.encode()) if isinstance(name, str) else 0
    except UnicodeEncodeError:  # a file name that is not UTF-8
        raise ProblemError(f"{where}: test name {name!r} is not UTF-8") from None
    if (
        not isinstance(name, str)
        or not name
        or size > 200
        or name in (".", "..")
        or any(c in name for c in "/\\")
        or any(ord(c) < 32 or ord(c) == 127 for c in name)
    ):
        raise ProblemError(
            f"{where}: bad test name {name!r} (a file stem: no '/', '\\', control characters, '.' or '..')"
        )


def inside(root: Path, relative: str, what: str, where: str) -> Path:
    """`root/relative` resolved; a ProblemError unless it stays inside `root` (symlinks followed)."""
    if not relative or "\x00" in relative or PurePosixPath(relative).is_absolute():
        raise ProblemError(f"{where}: {what} {relative!r} must be a relative path inside the problem")
    base = Path(root).resolve()
    target = (base / relative).resolve()
    if not target.is_relative_to(base) or target == base:
        raise ProblemError(f"{where}: {what} {relative!r} points outside the problem directory")
    return target


def _read_regular(path: Path, what: str, where: str) -> bytes:
    """A regular file's bytes; never a device, a FIFO or a socket (checked before it is opened, and
    again on the open file, which is opened without following a final symlink)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise ProblemError(f"{where}: {what} {path.name!r} is not a regular file")
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as err:
        raise ProblemError(f"{where}: {what} {path.name!r} cannot be read ({err.strerror})") from None
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise ProblemError(f"{where}: {what} {path.name!r} is not a regular file")
        return f.read()


class Problem(BaseModel):
    """A validated problem: its spec, its tests in run order, the checker's source if any."""

    spec: ProblemSpec
    tests: list[TestCase]
    statement: str = ""
    checker_source: str | None = None
    # the checker's file is not UTF-8 (a cp1251 comment, say): `checker_source` holds its bytes as
    # Latin-1 characters, one per byte, and a C++ checker is compiled back to those bytes (spec 2.4)
    checker_latin1: bool = False
    # a testlib validator that came with the problem (an imported record's); written as validator.cpp,
    # which `frontier problems check` runs on every test (spec 2.4); never used in judging
    validator_source: str | None = None
    # an interactive problem's interactor (spec.interactor), UTF-8 source
    interactor_source: str | None = None

    @property
    def id(self) -> str:
        return self.spec.id

    def is_public(self, test_name: str) -> bool:
        """Whether a feedback may show this test's content (docs/spec.md section 2.3)."""
        return test_name in self.spec.public_tests

    def summary(self) -> dict:
        sizes = [t.input_bytes for t in self.tests]
        return {
            "id": self.spec.id,
            "title": self.spec.title,
            "time_limit_ms": self.spec.time_limit_ms,
            "memory_limit_mb": self.spec.memory_limit_mb,
            "checker": self.spec.checker.type,
            "function": self.spec.function,
            "entry_point": self.spec.entry_point,
            # an interactive problem's interactor language (docs/spec.md 2.8), else None
            "interactor": self.spec.interactor.language if self.spec.interactor else None,
            "difficulty": self.spec.difficulty,
            "test_count": len(sizes),
            "public_test_count": len(self.spec.public_tests),
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
        self._prefix = str(self.root)

    def path(self, digest: str) -> Path:
        return self.root / digest[:2] / digest

    def file(self, digest: str) -> str:
        """path(digest) as a string, made without pathlib (the judge asks for two per test)."""
        return f"{self._prefix}/{digest[:2]}/{digest}"

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
        with open(self.file(digest), "rb") as f:
            return f.read()


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
    limits: ProblemLimits | None = None,
    interactor_source: str | None = None,
) -> Problem:
    """Store the tests' bytes and return the problem with its tests in run order."""
    if not tests:
        raise ProblemError(f"problem {spec.id}: has no tests")
    for name, _, _ in tests:
        check_test_name(name, f"problem {spec.id}")
    total = sum(len(i) + len(o) for _, i, o in tests) + len(statement.encode()) + len(checker_source or "")
    total += len(interactor_source or "")
    (limits or ProblemLimits.from_settings()).check_total(total, f"problem {spec.id}")
    names = [name for name, _, _ in tests]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ProblemError(f"problem {spec.id}: duplicate test names {dupes}")
    if isinstance(spec.checker, ProgramChecker) and not checker_source:
        raise ProblemError(f"problem {spec.id}: a program checker needs its source")
    if spec.interactor is not None and not interactor_source:
        raise ProblemError(f"problem {spec.id}: an interactor needs its source")
    if isinstance(spec.public_tests, int):  # a count: the first n tests in run order
        first = run_order((name, len(inp)) for name, inp, _ in tests)[: spec.public_tests]
        spec = spec.model_copy(update={"public_tests": [name for name, _ in first]})
    unknown = [n for n in spec.public_tests if n not in set(names)]
    if unknown:
        raise ProblemError(
            f"problem {spec.id}: field 'public_tests' names tests that do not exist: {unknown}"
        )
    cases = {}
    for name, inp, out in tests:
        cases[name] = TestCase(
            name=name, input_bytes=len(inp), input_sha256=store.put(inp), output_sha256=store.put(out)
        )
    ordered = [cases[name] for name, _ in run_order((c.name, c.input_bytes) for c in cases.values())]
    public = set(spec.public_tests)
    spec = spec.model_copy(update={"public_tests": [c.name for c in ordered if c.name in public]})
    return Problem(
        spec=spec,
        tests=ordered,
        statement=statement,
        checker_source=checker_source,
        interactor_source=interactor_source,
    )


def load_problem_dir(path: Path, store: TestStore, limits: ProblemLimits | None = None) -> Problem:
    """Load `<dir>/problem.json`, its statement, checker and `tests/*.in|*.out` pairs.

    Every file read must resolve inside `path` and be a regular file; the tests' total size is checked
    against the limit (by their sizes on disk) before any of them is read."""
    path = Path(path)
    limits = limits or ProblemLimits.from_settings()
    pj = path / "problem.json"
    if not pj.is_file():
        raise ProblemError(f"{path}: no problem.json")
    try:
        raw = json.loads(
            _read_regular(inside(path, "problem.json", "problem.json", str(path)), "file", str(pj))
        )
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise ProblemError(f"{pj}: not valid JSON ({err})") from None
    spec = parse_spec(raw, str(pj))
    statement_path = inside(path, spec.statement, "field 'statement':", str(pj))
    statement = ""
    if statement_path.exists():
        try:
            statement = _read_regular(statement_path, "statement", str(pj)).decode()
        except UnicodeDecodeError:
            raise ProblemError(f"{pj}: statement {spec.statement!r} is not UTF-8 text") from None
    checker_source, checker_latin1 = None, False
    if isinstance(spec.checker, ProgramChecker):
        if spec.checker.source is not None:
            checker_source = spec.checker.source
        elif spec.checker.path is None:
            raise ProblemError(f"{pj}: field 'checker': a program checker needs 'path' or 'source'")
        else:
            cpath = inside(path, spec.checker.path, "field 'checker.path':", str(pj))
            if not cpath.is_file():
                raise ProblemError(f"{pj}: field 'checker.path': {spec.checker.path} does not exist")
            raw_checker = _read_regular(cpath, "checker", str(pj))
            try:
                checker_source = raw_checker.decode()
            except UnicodeDecodeError:  # an 8-bit encoding: kept byte for byte (spec 2.4), less a BOM
                checker_source = raw_checker.removeprefix(b"\xef\xbb\xbf").decode("latin-1")
                checker_latin1 = True
    interactor_source = None
    if spec.interactor is not None:
        if spec.interactor.source is not None:
            interactor_source = spec.interactor.source
        elif spec.interactor.path is None:
            raise ProblemError(f"{pj}: field 'interactor': it needs 'path' or 'source'")
        else:
            ipath = inside(path, spec.interactor.path, "field 'interactor.path':", str(pj))
            if not ipath.is_file():
                raise ProblemError(f"{pj}: field 'interactor.path': {spec.interactor.path} does not exist")
            try:
                interactor_source = _read_regular(ipath, "interactor", str(pj)).decode()
            except UnicodeDecodeError:
                raise ProblemError(f"{pj}: interactor {spec.interactor.path!r} is not UTF-8 text") from None
    tdir = inside(path, "tests", "directory", str(path))
    if not tdir.is_dir():
        raise ProblemError(f"{path}: no tests/ directory")
    ins = {p.name[: -len(".in")]: p for p in tdir.glob("*.in")}
    outs = {p.name[: -len(".out")]: p for p in tdir.glob("*.out")}
    unpaired = sorted(set(ins) ^ set(outs))
    if unpaired:
        raise ProblemError(f"{tdir}: tests without a matching .in/.out pair: {unpaired}")
    # resolved, so a test file that is a link must still point inside the problem
    ins = {stem: inside(path, f"tests/{p.name}", "test file", str(tdir)) for stem, p in ins.items()}
    outs = {stem: inside(path, f"tests/{p.name}", "test file", str(tdir)) for stem, p in outs.items()}
    limits.check_total(sum(f.stat().st_size for f in [*ins.values(), *outs.values()]), str(path))
    tests = [
        (
            stem,
            _read_regular(ins[stem], "test file", str(tdir)),
            _read_regular(outs[stem], "test file", str(tdir)),
        )
        for stem in sorted(ins)
    ]
    problem = build_problem(spec, tests, store, statement, checker_source, limits, interactor_source)
    return problem.model_copy(update={"checker_latin1": checker_latin1}) if checker_latin1 else problem


# gzip and tar framing a member adds beyond its data: a 512-byte header, padding, long-name records
_TAR_OVERHEAD_PER_MEMBER = 3 * 512


class _CappedReader(io.RawIOBase):
    """The decompressed stream of an archive, cut off once it exceeds `max_bytes`: what bounds the work
    a small gzip that expands to gigabytes can cause, whatever its tar headers claim."""

    def __init__(self, raw: io.BufferedIOBase, max_bytes: int):
        self.raw = raw
        self.max_bytes = max_bytes
        self.seen = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buf) -> int:
        data = self.raw.read(len(buf))
        self.seen += len(data)
        if self.seen > self.max_bytes:
            raise ProblemTooLarge(
                f"the archive expands to more than {self.max_bytes >> 20} MB (FRONTIER_MAX_PROBLEM_MB)"
            )
        buf[: len(data)] = data
        return len(data)


def _member_kind(member: tarfile.TarInfo) -> str:
    if member.issym():
        return f"a symbolic link (to {member.linkname!r})"
    if member.islnk():
        return f"a hard link (to {member.linkname!r})"
    if member.ischr() or member.isblk():
        return "a device node"
    if member.isfifo():
        return "a FIFO"
    return f"an entry of tar type {member.type!r}"


def _member_path(member: tarfile.TarInfo) -> PurePosixPath:
    """The member's path inside the problem, or a ProblemError naming the member."""
    name = member.name
    if name.startswith(("/", "\\")):
        raise ProblemError(f"archive member {name!r}: absolute paths are not allowed")
    parts = [p for p in PurePosixPath(name).parts if p not in ("", ".")]
    if ".." in parts or any("\\" in p for p in parts):
        raise ProblemError(f"archive member {name!r}: points outside the archive ('..')")
    if not parts and not member.isdir():
        raise ProblemError(f"archive member {name!r}: has no name")
    return PurePosixPath(*parts) if parts else PurePosixPath(".")


def load_problem_tar(data: bytes, store: TestStore, limits: ProblemLimits | None = None) -> Problem:
    """A problem directory packed as tar.gz (one top-level directory, or the files at the root).

    Read as a stream: each member's name and type are checked, and the member count and the running
    total of bytes are held to `limits`, before the member's data is written; only regular files and
    directories are written, by this function, never by tarfile's extraction."""
    limits = limits or ProblemLimits.from_settings()
    cap = limits.max_total_bytes + (limits.max_files + 2) * _TAR_OVERHEAD_PER_MEMBER
    try:
        stream = io.BufferedReader(_CappedReader(gzip.GzipFile(fileobj=io.BytesIO(data)), cap), 1 << 16)
        tar = tarfile.open(fileobj=stream, mode="r|")
    except ProblemTooLarge:
        raise
    except (tarfile.TarError, OSError, EOFError, zlib.error) as err:
        raise ProblemError(f"not a readable tar.gz archive ({err})") from None
    with tempfile.TemporaryDirectory() as tmp, tar:
        root = Path(tmp)
        count = total = 0
        written: set[PurePosixPath] = set()
        try:
            for member in tar:
                count += 1
                if count > limits.max_files:
                    raise ProblemTooLarge(
                        f"the archive holds more than {limits.max_files} members (FRONTIER_MAX_PROBLEM_FILES)"
                    )
                rel = _member_path(member)
                if not (member.isreg() or member.isdir()):
                    raise ProblemError(
                        f"archive member {member.name!r} is {_member_kind(member)}: "
                        "only regular files and directories are allowed"
                    )
                dest = root / rel
                if member.isdir():
                    if dest.exists() and not dest.is_dir():
                        raise ProblemError(f"archive member {member.name!r}: a directory over a file")
                    dest.mkdir(parents=True, exist_ok=True)
                    continue
                total += member.size
                limits.check_total(total, f"archive member {member.name!r}")
                if rel in written:
                    raise ProblemError(f"archive member {member.name!r}: the same file twice")
                written.add(rel)
                _write_member(tar, member, dest)
        except (tarfile.TarError, EOFError, zlib.error) as err:
            raise ProblemError(f"cannot unpack archive ({err})") from None
        except OSError as err:
            raise ProblemError(f"cannot unpack archive ({err.strerror or err})") from None
        if not (root / "problem.json").exists():
            subdirs = [p for p in root.iterdir() if p.is_dir()]
            if len(subdirs) == 1 and (subdirs[0] / "problem.json").exists():
                root = subdirs[0]
        try:
            return load_problem_dir(root, store, limits)
        except ProblemError as err:  # name files as the archive does, not by this temporary directory
            message = str(err).replace(f"{root}/", "").replace(str(root), "the archive")
            raise type(err)(message.replace(f"{tmp}/", "")) from None


def _write_member(tar: tarfile.TarFile, member: tarfile.TarInfo, dest: Path) -> None:
    """Copy one regular member's data into a new file (never through an existing name or link)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    source = tar.extractfile(member)
    fd = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    with os.fdopen(fd, "wb") as out:
        left = member.size
        while left > 0:
            chunk = source.read(min(left, 1 << 20))
            if not chunk:
                raise ProblemError(f"archive member {member.name!r}: ends before its stated size")
            out.write(chunk)
            left -= len(chunk)
