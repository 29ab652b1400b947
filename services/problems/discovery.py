"""Finding problems on disk (docs/spec.md section 2.1): the one place that decides what a problem
directory is, used by the bundled builder, the evaluator's benchmarks and the trainer's datasets.

A *root* is either one problem directory (it holds `problem.json`) or a directory whose
subdirectories holding a `problem.json` are the problems, taken in name order.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from services.problems.spec import ProblemSpec
from services.problems.store import ProblemError, inside, parse_spec

# the bundled benchmark of a checkout (problems/bundled; its tests are built by `make problems`)
BUNDLED_DIR = Path(__file__).resolve().parents[2] / "problems" / "bundled"


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
