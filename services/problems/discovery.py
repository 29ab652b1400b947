"""Finding problems on disk (docs/spec.md section 2.1): the one place that decides what a problem
directory is, used by the bundled builder, the evaluator's benchmarks and the trainer's datasets; and
what a benchmark name means ("bundled", or a directory: `resolve_benchmark`).

A *root* is either one problem directory (it holds `problem.json`) or a directory whose
subdirectories holding a `problem.json` are the problems, taken in name order.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from services.problems.prompts import ProblemPrompt
from services.problems.spec import ProblemSpec
from services.problems.store import ProblemError, inside, parse_spec

# the bundled benchmark of a checkout (problems/bundled; its tests are built by `make problems`)
BUNDLED_DIR = Path(__file__).resolve().parents[2] / "problems" / "bundled"
# the families miniature's problems as `make problems` builds them (seed 0; docs/spec.md 12.9)
FAMILIES_BUILT_DIR = Path(__file__).resolve().parents[2] / "problems" / "families" / "build"


class UnknownProblems(ProblemError):
    """Problem ids asked for that the root does not hold."""


@dataclass(frozen=True)
class FoundProblem:
    """A problem directory with its parsed problem.json and its statement's text."""

    path: Path
    spec: ProblemSpec
    statement: str

    @property
    def id(self) -> str:
        return self.spec.id

    def has_tests(self) -> bool:
        return any((self.path / "tests").glob("*.in"))


def problem_dirs(root: Path) -> list[Path]:
    """The problem directories of `root`: itself when it holds problem.json, else its subdirectories
    that do, by name."""
    root = Path(root)
    if (root / "problem.json").is_file():
        return [root]
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if p.is_dir() and (p / "problem.json").is_file())


def read_spec(problem_dir: Path) -> ProblemSpec:
    """`problem_dir/problem.json` parsed and validated; a ProblemError naming the file otherwise."""
    pj = Path(problem_dir) / "problem.json"
    try:
        raw = json.loads(pj.read_text())
    except (OSError, json.JSONDecodeError, UnicodeDecodeError) as err:
        raise ProblemError(f"{pj}: cannot read ({err})") from None
    return parse_spec(raw, str(pj))


def read_statement(problem_dir: Path, spec: ProblemSpec) -> str:
    """The statement's text ("" when the file is absent); its path must stay inside the problem."""
    path = inside(Path(problem_dir), spec.statement, "statement", str(Path(problem_dir) / "problem.json"))
    try:
        return path.read_text() if path.is_file() else ""
    except (OSError, UnicodeDecodeError) as err:
        raise ProblemError(f"{path}: cannot read the statement ({err})") from None


def find_problems(root: Path, ids: Sequence[str] | None = None) -> list[FoundProblem]:
    """Every problem of `root`, or those named by `ids` in that order (duplicates once).

    Raises ProblemError for an unreadable problem.json and UnknownProblems for ids `root` lacks."""
    found: dict[str, FoundProblem] = {}
    for d in problem_dirs(root):
        spec = read_spec(d)
        found[spec.id] = FoundProblem(d, spec, read_statement(d, spec))
    if not ids:
        return list(found.values())
    unknown = [p for p in ids if p not in found]
    if unknown:
        shown = ", ".join(sorted(found)[:20]) + (" ..." if len(found) > 20 else "")
        raise UnknownProblems(
            f"{root} has no problem {', '.join(map(repr, unknown))}; it has {len(found)}: {shown}"
        )
    return [found[p] for p in dict.fromkeys(ids)]


# -- benchmarks: "bundled", a directory of problems, or one problem ---------------------------------
BUNDLED = "bundled"
FAMILIES = "families"


class UnknownBenchmark(ProblemError):
    """A benchmark name that is neither "bundled" nor a directory."""


@dataclass(frozen=True)
class BenchmarkProblem:
    """A benchmark's problem as the evaluator and the trainer take it: its id, directory, prompt and
    difficulty."""

    problem_id: str
    path: Path
    prompt: ProblemPrompt
    difficulty: str | None


def benchmark_root(benchmark: str) -> Path:
    """The root a benchmark names: "bundled" is the checkout's problems/bundled, "families" its
    problems/families/build (`frontier problems families`, docs/spec.md 12.9); anything else a
    directory of problem directories or one problem directory (UnknownBenchmark otherwise)."""
    if benchmark == BUNDLED:
        return BUNDLED_DIR
    if benchmark == FAMILIES:
        return FAMILIES_BUILT_DIR
    root = Path(benchmark).expanduser()
    if not root.is_dir():
        raise UnknownBenchmark(
            f"benchmark {benchmark!r}: no such directory; give 'bundled', a directory of problem "
            "directories, or one problem directory"
        )
    return root


def resolve_benchmark(benchmark: str, problems: Sequence[str] | None = None) -> list[BenchmarkProblem]:
    """The benchmark's problems (all, or those named, in that order), each with tests on disk.

    Raises UnknownProblems for ids the benchmark lacks and ProblemError otherwise, each message naming
    the benchmark."""
    root = benchmark_root(benchmark)
    try:
        found = find_problems(root, problems)
    except UnknownProblems as err:
        raise UnknownProblems(f"benchmark {benchmark!r}: {err}") from None
    except ProblemError as err:
        raise ProblemError(f"benchmark {benchmark!r}: {err}") from None
    if not found:
        raise ProblemError(f"benchmark {benchmark!r}: no problem directories (with problem.json) in {root}")
    chosen = [
        BenchmarkProblem(
            f.id,
            f.path,
            ProblemPrompt(f.id, f.statement, f.spec.function, f.spec.metadata.get("starter_code") or None),
            f.spec.difficulty,
        )
        for f in found
    ]
    untested = [p.problem_id for p in chosen if not any((p.path / "tests").glob("*.in"))]
    if untested:
        hint = {
            BUNDLED: " (run `frontier problems build problems/bundled`)",
            FAMILIES: f" (run `frontier problems families {FAMILIES_BUILT_DIR}`)",
        }.get(benchmark, "")
        raise ProblemError(f"problems without tests on disk: {', '.join(untested)}{hint}")
    return chosen
