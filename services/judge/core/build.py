"""The bundled benchmark: build each problem's tests from its seeded generator and reference solution,
read its zoo of labelled variants, and keep the index README in sync.

A bundled problem is a SPEC problem directory plus the sources its tests come from:

    <id>/problem.json, statement.md, [checker.py]
    <id>/gen.py      generate(rng: random.Random) -> list[(test name, input text)]
    <id>/ref.py      the reference: a stdin->stdout program, or `class Solution` for functional problems;
                     for an interactive one, the program that talks with the interactor
    <id>/answer.py   an interactive problem's: prints each test's expected output (the interactor's
                     answer file) from its input
    <id>/validator.cpp  optional: a testlib validator (registerValidation) every generated input must pass
    <id>/zoo/zoo.json + zoo/<files>   labelled variants with the outcome the judge must give them
    <id>/tests/      generated here (git-ignored): <name>.in / <name>.out, and a stamp for the cache

Generators and references are trusted project code: gen.py is imported, a functional reference runs
in-process (`run_functional`), a stdin reference runs as a plain subprocess. `build_all` builds each
problem in its own child interpreter with PYTHONHASHSEED=0, two at a time, so a build is the same bytes
on every machine. Nothing here judges a submission: the zoo says what the judge must answer for each
variant (a functional problem's variants are bare `class Solution` sources, wrapped like any
submission to that problem).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from services.judge.core.functional import run_functional
from services.judge.core.models import Language
from services.judge.core.verdicts import Outcome, Verdict
from services.problems import discovery
from services.problems.discovery import problem_dirs
from services.problems.spec import VALIDATOR_NAME, ProblemSpec
from services.problems.store import ProblemError, ProblemLimits, ProblemTooLarge, inside

# bump when the way tests are made changes, so every cached build is redone
BUILDER_VERSION = 1
STAMP_NAME = ".stamp.json"
ANSWER_NAME = "answer.py"  # an interactive problem's expected outputs (its ref.py talks instead)
TEST_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,99}$")
# a reference that needs longer than this on one test is broken, not slow
REF_TIMEOUT_S = 120
VALIDATE_TIMEOUT_S = 1200  # the validator's child: its compile and every run, each under its own limit
DEFAULT_JOBS = 2
INDEX_NAME = "README.md"
_REPO_ROOT = Path(__file__).resolve().parents[2]


class BundledError(ProblemError):
    """A bundled problem whose sources cannot make tests, with a message that says what to fix."""


# ----------------------------------------------------------------------------------------------- zoo


class ZooExpect(BaseModel):
    """What the judge must answer. `first_verdict` is one verdict, or where the verdict genuinely
    depends on the machine's speed (which limit a slow, hungry program meets first), the list of
    verdicts any machine may give; the first one listed is the one usually seen."""

    model_config = ConfigDict(extra="forbid")

    outcome: Literal["correct", "optimization_failure", "correctness_failure"]
    first_verdict: Verdict | list[Verdict] | None = None


class ZooEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    file: str = Field(pattern=r"^[A-Za-z0-9_][A-Za-z0-9_.\-]*$")
    language: Language
    label: str = Field(min_length=1)
    expect: ZooExpect
    note: str = ""


class ZooFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    variants: list[ZooEntry] = Field(min_length=1)


@dataclass(frozen=True)
class ZooVariant:
    """One labelled program of a problem's zoo and the result the judge must give it."""

    problem_id: str
    file: str
    language: str
    label: str
    code: str
    expected_outcome: Outcome
    expected_first_verdict: Verdict | None
    note: str = ""
    # every first verdict the label accepts (more than one only where the verdict depends on speed)
    acceptable_first_verdicts: tuple[Verdict | None, ...] = ()

    def accepts(
        self, status: str, outcome: Outcome | str | None, first_verdict: Verdict | str | None
    ) -> bool:
        """Whether a judge result (status, outcome, first failing verdict) is what this label says."""
        acceptable = self.acceptable_first_verdicts or (self.expected_first_verdict,)
        verdict = Verdict(first_verdict) if first_verdict is not None else None
        return status == "ok" and outcome == self.expected_outcome and verdict in acceptable


def load_zoo(problem_dir: Path) -> list[ZooVariant]:
    """Read and validate `<problem_dir>/zoo/zoo.json`; every variant's code is read with it."""
    problem_dir = Path(problem_dir)
    zpath = problem_dir / "zoo" / "zoo.json"
    if not zpath.is_file():
        raise BundledError(f"{zpath}: missing")
    try:
        raw = json.loads(zpath.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise BundledError(f"{zpath}: not valid JSON ({err})") from None
    try:
        zoo = ZooFile.model_validate(raw)
    except ValidationError as err:
        lines = [
            f"{zpath}: field '{'.'.join(str(p) for p in e['loc']) or '(root)'}': {e['msg']}"
            for e in err.errors()
        ]
        raise BundledError("\n".join(lines)) from None
    files = [v.file for v in zoo.variants]
    dupes = sorted({f for f in files if files.count(f) > 1})
    if dupes:
        raise BundledError(f"{zpath}: files listed twice: {dupes}")
    out = []
    for i, v in enumerate(zoo.variants):
        where = f"{zpath}: variants.{i} ({v.file})"
        src = _zoo_file(problem_dir, v.file, where)
        verdicts = v.expect.first_verdict
        verdicts = tuple(verdicts) if isinstance(verdicts, list) else (verdicts,)
        if not verdicts or len(set(verdicts)) != len(verdicts):
            raise BundledError(f"{where}: first_verdict lists each acceptable verdict once")
        if v.expect.outcome == "correct" and verdicts != (None,):
            raise BundledError(f"{where}: a correct variant has first_verdict null")
        if v.expect.outcome != "correct" and None in verdicts:
            raise BundledError(f"{where}: a failing variant names its first_verdict")
        if v.expect.outcome == "optimization_failure" and not set(verdicts) <= {Verdict.TLE, Verdict.MLE}:
            raise BundledError(f"{where}: an optimization_failure fails first with TLE or MLE")
        out.append(
            ZooVariant(
                problem_id=problem_dir.name,
                file=v.file,
                language=v.language,
                label=v.label,
                code=src.read_text(),
                expected_outcome=Outcome(v.expect.outcome),
                expected_first_verdict=verdicts[0],
                note=v.note,
                acceptable_first_verdicts=verdicts,
            )
        )
    return out


def _zoo_file(problem_dir: Path, name: str, where: str) -> Path:
    """A variant's source: a regular file inside the problem's zoo/ (a link out of it is refused)."""
    zoo_dir = (problem_dir / "zoo").resolve()
    src = (zoo_dir / name).resolve()
    if not src.is_relative_to(zoo_dir):
        raise BundledError(f"{where}: {problem_dir / 'zoo' / name} points outside the zoo directory")
    if not src.is_file():
        raise BundledError(f"{where}: {problem_dir / 'zoo' / name} does not exist")
    return src


def all_zoo_variants(root: Path) -> list[ZooVariant]:
    """Every labelled variant of every problem under `root`, by problem id then zoo.json order."""
    return [v for d in problem_dirs(root) for v in load_zoo(d)]


# -------------------------------------------------------------------------------------------- build


@dataclass(frozen=True)
class BuildResult:
    problem_id: str
    tests_written: int  # 0 when the cache was up to date
    seconds: float
    error: str | None = None


def read_spec(problem_dir: Path) -> ProblemSpec:
    """A bundled problem's spec; its id must be its directory's name."""
    try:
        spec = discovery.read_spec(problem_dir)
    except ProblemError as err:
        raise BundledError(str(err)) from None
    if spec.id != Path(problem_dir).name:
        pj = Path(problem_dir) / "problem.json"
        raise BundledError(f"{pj}: id {spec.id!r} differs from its directory name {Path(problem_dir).name!r}")
    return spec


def source_hash(problem_dir: Path, seed: int) -> str:
    """What the cache stamp records: the sources tests are made from, the seed and the builder."""
    h = hashlib.sha256(f"builder={BUILDER_VERSION};seed={seed};".encode())
    for name in ("gen.py", "ref.py", VALIDATOR_NAME, ANSWER_NAME):
        path = Path(problem_dir) / name
        if name in (VALIDATOR_NAME, ANSWER_NAME) and not path.is_file():
            continue  # no validator (no answer.py): the same stamp as before either existed
        data = path.read_bytes()
        h.update(f"{name}:{len(data)}:".encode())
        h.update(data)
    return h.hexdigest()


def validate_inputs(problem_dir: Path, inputs: list[tuple[str, bytes]]) -> None:
    """Run the problem's testlib validator (validator.cpp), compiled once, on every input, in the
    judge's sandbox: a child `python -m services.judge.core.checks validate` on a one-slot local Engine
    (this library never runs a program itself); the first input it refuses refuses the build, with the
    validator's message."""
    path = Path(problem_dir) / VALIDATOR_NAME
    if not path.is_file():
        return
    with tempfile.TemporaryDirectory(prefix="frontier-validate-") as tmp:
        for i, (_, data) in enumerate(inputs):
            (Path(tmp) / f"{i:06d}").write_bytes(data)
        names = {f"{i:06d}": name for i, (name, _) in enumerate(inputs)}
        try:
            proc = subprocess.run(
                [sys.executable, "-m", "services.judge.core.checks", "validate", str(path), tmp],
                capture_output=True,
                text=True,
                timeout=VALIDATE_TIMEOUT_S,
            )
        except subprocess.TimeoutExpired:
            raise BundledError(f"{path}: the validator ran past {VALIDATE_TIMEOUT_S} s") from None
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        raise BundledError(f"{path}: the validator could not be run: {proc.stderr.strip()[-500:]}")
    reply = json.loads(lines[-1])
    if reply.get("error"):
        raise BundledError(f"{path}: {reply['error']}")
    if reply.get("refused"):
        index, message = reply["refused"]
        raise BundledError(f"{path}: test {names.get(index, index)} is not a valid input: {message}")


def problem_rng(problem_id: str, seed: int) -> random.Random:
    """One generator stream per (seed, problem), independent of the order problems are built in."""
    digest = hashlib.sha256(f"{seed}:{problem_id}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def generate_inputs(problem_dir: Path, seed: int = 0) -> list[tuple[str, str]]:
    """Import gen.py and call its generate() with the problem's seeded generator; check the names."""
    problem_dir = Path(problem_dir)
    gen_path = problem_dir / "gen.py"
    if not gen_path.is_file():
        raise BundledError(f"{gen_path}: missing")
    mod_name = f"_bundled_gen_{problem_dir.name}"
    spec = importlib.util.spec_from_file_location(mod_name, gen_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if not callable(getattr(module, "generate", None)):
        raise BundledError(f"{gen_path}: defines no generate(rng)")
    tests = module.generate(problem_rng(problem_dir.name, seed))
    seen = set()
    for item in tests:
        if not (isinstance(item, tuple | list) and len(item) == 2 and isinstance(item[1], str)):
            raise BundledError(
                f"{gen_path}: generate() must return (name, input text) pairs, got {item!r:.80}"
            )
        name = item[0]
        if not isinstance(name, str) or not TEST_NAME_RE.match(name):
            raise BundledError(f"{gen_path}: bad test name {name!r} (letters, digits, '_', '-', '.')")
        if name in seen:
            raise BundledError(f"{gen_path}: test name {name!r} used twice")
        seen.add(name)
    if not tests:
        raise BundledError(f"{gen_path}: generate() returned no tests")
    return [(name, text) for name, text in tests]


def reference_output(problem_dir: Path, spec: ProblemSpec, name: str, input_text: str) -> bytes:
    """The expected output of one test: what ref.py prints (or returns, for a functional problem);
    for an interactive problem, what answer.py prints (ref.py talks with the interactor)."""
    ref = (Path(problem_dir) / (ANSWER_NAME if spec.interactor is not None else "ref.py")).resolve()
    if spec.function:
        try:
            return run_functional(ref.read_text(), spec.function, input_text).encode()
        except Exception as err:  # the reference is project code: its failure is a build error
            raise BundledError(f"{ref}: failed on test {name}: {type(err).__name__}: {err}") from None
    try:
        proc = subprocess.run(
            [sys.executable, str(ref)],
            input=input_text.encode(),
            capture_output=True,
            timeout=REF_TIMEOUT_S,
            cwd=problem_dir,
            env={**os.environ, "PYTHONHASHSEED": "0"},
        )
    except subprocess.TimeoutExpired:
        raise BundledError(f"{ref}: ran over {REF_TIMEOUT_S} s on test {name}") from None
    if proc.returncode != 0:
        tail = proc.stderr.decode(errors="replace")[-800:]
        raise BundledError(f"{ref}: exit status {proc.returncode} on test {name}:\n{tail}")
    return proc.stdout


def _read_stamp(tests_dir: Path) -> dict | None:
    try:
        return json.loads((tests_dir / STAMP_NAME).read_text())
    except (OSError, json.JSONDecodeError, UnicodeDecodeError):
        return None


def is_up_to_date(problem_dir: Path, seed: int = 0) -> bool:
    """The stamp matches the sources and seed, and every test it lists is on disk."""
    tests_dir = Path(problem_dir) / "tests"
    stamp = _read_stamp(tests_dir)
    if not stamp or stamp.get("sha256") != source_hash(problem_dir, seed):
        return False
    return all(
        (tests_dir / f"{n}.in").is_file() and (tests_dir / f"{n}.out").is_file()
        for n in stamp.get("tests", [])
    )


def build_problem_tests(problem_dir: Path, seed: int = 0, force: bool = False) -> int:
    """Make `<problem_dir>/tests/` from gen.py and ref.py; the number of tests written, 0 if cached.

    The new tests are written beside the old ones and swapped in whole, so an interrupted build never
    leaves a half-written test set behind a valid stamp.
    """
    problem_dir = Path(problem_dir)
    spec = read_spec(problem_dir)
    if not (problem_dir / "ref.py").is_file():
        raise BundledError(f"{problem_dir / 'ref.py'}: missing")
    if spec.interactor is not None and not (problem_dir / ANSWER_NAME).is_file():
        raise BundledError(
            f"{problem_dir / ANSWER_NAME}: missing (an interactive problem's expected outputs)"
        )
    # the rules of an uploaded problem: every path it names stays inside it, its tests within the limits
    pj = str(problem_dir / "problem.json")
    inside(problem_dir, spec.statement, "field 'statement':", pj)
    if spec.checker.type == "program" and spec.checker.path is not None:
        inside(problem_dir, spec.checker.path, "field 'checker.path':", pj)
    if spec.interactor is not None and spec.interactor.path is not None:
        inside(problem_dir, spec.interactor.path, "field 'interactor.path':", pj)
    limits = ProblemLimits.from_settings()
    if not force and is_up_to_date(problem_dir, seed):
        return 0
    digest = source_hash(problem_dir, seed)
    inputs = generate_inputs(problem_dir, seed)
    if 2 * len(inputs) > limits.max_files:
        raise ProblemTooLarge(
            f"{problem_dir / 'gen.py'}: {len(inputs)} tests are more than {limits.max_files} files "
            "(FRONTIER_MAX_PROBLEM_FILES)"
        )
    validate_inputs(problem_dir, [(name, text.encode()) for name, text in inputs])
    tmp = Path(tempfile.mkdtemp(prefix=".tests-", dir=problem_dir))
    total_bytes = 0
    try:
        for name, text in inputs:
            out = reference_output(problem_dir, spec, name, text)
            total_bytes += len(text.encode()) + len(out)
            limits.check_total(total_bytes, f"{problem_dir / 'gen.py'}: test {name}")
            (tmp / f"{name}.in").write_bytes(text.encode())
            (tmp / f"{name}.out").write_bytes(out)
        stamp = {"sha256": digest, "seed": seed, "tests": [n for n, _ in inputs]}
        (tmp / STAMP_NAME).write_text(json.dumps(stamp, indent=1) + "\n")
        os.chmod(tmp, 0o755)
        tests_dir = problem_dir / "tests"
        if tests_dir.exists():
            shutil.rmtree(tests_dir)
        os.replace(tmp, tests_dir)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return len(inputs)


def _build_in_child(problem_dir: Path, seed: int, force: bool) -> BuildResult:
    """Build one problem in a fresh interpreter with hashing pinned (PYTHONHASHSEED=0), so that a
    generator that happens to iterate a set of strings still makes the same bytes on every build."""
    start = time.monotonic()
    try:
        if not force and is_up_to_date(problem_dir, seed):  # no interpreter to start for a cache hit
            return BuildResult(problem_dir.name, 0, time.monotonic() - start)
    except OSError:
        pass  # a missing gen.py or ref.py: the child reports it
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(_REPO_ROOT), env.get("PYTHONPATH")]))
    cmd = [sys.executable, "-m", "services.judge.core.build", str(problem_dir), str(seed)]
    if force:
        cmd.append("--force")
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    seconds = time.monotonic() - start
    try:
        reply = json.loads(proc.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        tail = (proc.stderr or proc.stdout)[-1500:]
        return BuildResult(problem_dir.name, 0, seconds, f"builder exited with {proc.returncode}:\n{tail}")
    return BuildResult(problem_dir.name, reply["tests_written"], seconds, reply["error"])


def build_all(
    root: Path,
    seed: int = 0,
    force: bool = False,
    jobs: int = DEFAULT_JOBS,
    progress: bool = True,
    index: bool = True,
) -> list[BuildResult]:
    """Build every problem under `root`, `jobs` child processes at a time, then rewrite the index.

    Errors do not stop the others; they come back in the results (sorted by problem id).
    """
    from tqdm import tqdm

    dirs = problem_dirs(root)
    results: list[BuildResult] = []
    with (
        tqdm(total=len(dirs), desc="problems", unit="problem", disable=not progress) as bar,
        ThreadPoolExecutor(max_workers=max(1, jobs)) as pool,
    ):
        futures = [pool.submit(_build_in_child, d, seed, force) for d in dirs]
        for fut in as_completed(futures):
            res = fut.result()
            results.append(res)
            bar.set_postfix_str(res.problem_id + (" (error)" if res.error else ""))
            bar.update(1)
    results.sort(key=lambda r: r.problem_id)
    if index:
        write_index(root)
    return results


def _child_main(argv: list[str]) -> None:
    """`python -m services.judge.core.build DIR SEED [--force]`: one problem; a JSON line on stdout."""
    problem_dir, seed, force = Path(argv[0]), int(argv[1]), "--force" in argv[2:]
    error, written = None, 0
    try:
        written = build_problem_tests(problem_dir, seed=seed, force=force)
    except (ProblemError, OSError, SyntaxError) as err:
        error = str(err)
    except Exception as err:  # a generator's own bug: reported against its problem
        error = f"{type(err).__name__}: {err}"
    print(json.dumps({"tests_written": written, "error": error}))


# -------------------------------------------------------------------------------------------- index


def _human_bytes(n: int) -> str:
    for unit, scale in (("MB", 10**6), ("kB", 10**3)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n} B"


def index_rows(root: Path) -> list[dict]:
    rows = []
    for d in problem_dirs(root):
        try:
            spec = read_spec(d)
        except ProblemError:
            rows.append(
                {
                    "id": d.name,
                    "title": "(invalid problem.json)",
                    "difficulty": "",
                    "checker": "",
                    "function": None,
                    "time_limit_ms": "",
                    "tests": 0,
                    "sizes": None,
                }
            )
            continue
        sizes = [p.stat().st_size for p in (d / "tests").glob("*.in")] if (d / "tests").is_dir() else []
        rows.append(
            {
                "id": spec.id,
                "title": spec.title,
                "difficulty": spec.difficulty or "",
                # an interactive problem's interactor decides (its checker, if any, reads its output)
                "checker": "interactor" if spec.interactor is not None else spec.checker.type,
                "function": spec.function,
                "time_limit_ms": spec.time_limit_ms,
                "tests": len(sizes),
                "sizes": (min(sizes), max(sizes)) if sizes else None,
            }
        )
    return rows


def render_index(rows: list[dict]) -> str:
    counts = {lvl: sum(r["difficulty"] == lvl for r in rows) for lvl in ("easy", "medium", "hard")}
    lines = [
        "# Bundled benchmark",
        "",
        "Original problems with seeded test generators, reference solutions and a zoo of labelled",
        "variants (naive, wrong, crashing, C++). `make problems` (`frontier problems build problems/bundled`)",
        "writes each problem's `tests/`; this table is rewritten by that build (`services/judge/core/build.py`).",
        "`frontier problems check problems/bundled/<id>` validates one problem.",
        "",
        "A problem directory: `problem.json` (SPEC section 2, plus `difficulty` and, for a functional",
        "problem, `function`), `statement.md`, `checker.py` for a program checker, `gen.py`",
        "(`generate(rng) -> [(test name, input text)]`, seeded per problem), `ref.py` (a stdin program, or",
        "`class Solution` for a functional problem: one JSON argument per input line, a JSON answer), and",
        "`zoo/zoo.json` listing labelled variants with the outcome and first failing verdict the judge must give.",
        "An interactive problem names its `interactor` (SPEC section 2.8); its `ref.py` talks with it, and",
        "its `answer.py` prints each test's expected output (the interactor's answer file) from the input.",
        'Each marks its three smallest tests public (`"public_tests": 3`): a feedback may show their content.',
        "",
        f"{len(rows)} problems: {counts['easy']} easy, {counts['medium']} medium, {counts['hard']} hard; "
        f"{sum(1 for r in rows if r['function'])} functional, "
        f"{sum(1 for r in rows if r['checker'] == 'interactor')} interactive.",
        "",
        "| id | title | difficulty | checker | functional | time limit | tests | input size range |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in rows:
        functional = f"`{r['function']}`" if r["function"] else "no"
        size = (
            f"{_human_bytes(r['sizes'][0])} – {_human_bytes(r['sizes'][1])}" if r["sizes"] else "(not built)"
        )
        lines.append(
            f"| `{r['id']}` | {r['title']} | {r['difficulty']} | {r['checker']} | {functional} "
            f"| {r['time_limit_ms']} ms | {r['tests'] or ''} | {size} |"
        )
    return "\n".join(lines) + "\n"


def write_index(root: Path) -> Path:
    """Rewrite `<root>/README.md`, the table of every problem under `root`."""
    path = Path(root) / INDEX_NAME
    path.write_text(render_index(index_rows(root)))
    return path


if __name__ == "__main__":
    _child_main(sys.argv[1:])
