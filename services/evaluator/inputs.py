"""What an eval runs on: its checkpoints (paths, hub ids or a sweep's alphas) and the benchmark's
problems (resolved by `services.problems.discovery`), checked with errors in terms of the user's
inputs; and the upload of those problems to the judge. The pipeline, the repair evaluation, the API's
checks and the worker share this module, which imports none of them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from services.judge.client import JudgeClient
from services.problems import discovery
from services.problems.discovery import BenchmarkProblem, UnknownProblems
from services.problems.store import ProblemError

__all__ = [
    "BenchmarkProblem",
    "EvalCheckpoint",
    "EvalError",
    "UnknownProblemError",
    "benchmark_root",
    "check_checkpoint_path",
    "checkpoints_from_paths",
    "register_problems",
    "resolve_benchmark",
    "sweep_checkpoints",
]


class EvalError(ValueError):
    """An eval that cannot run as asked, with a message in terms of the user's inputs."""


class UnknownProblemError(EvalError):
    """Problem ids the benchmark does not have."""


@dataclass(frozen=True)
class EvalCheckpoint:
    """A checkpoint of the run: loaded from `path`, or (path None) an alpha of an in-place sweep."""

    name: str
    path: str | None = None
    alpha: float | None = None


def benchmark_root(benchmark: str) -> Path:
    try:
        return discovery.benchmark_root(benchmark)
    except ProblemError as err:
        raise EvalError(str(err)) from None


def resolve_benchmark(benchmark: str, problems: Sequence[str] | None = None) -> list[BenchmarkProblem]:
    """The benchmark's problems (all, or those named, in that order), each with tests on disk; an
    EvalError (UnknownProblemError for unknown ids) otherwise."""
    try:
        return discovery.resolve_benchmark(benchmark, problems)
    except UnknownProblems as err:
        raise UnknownProblemError(str(err)) from None
    except ProblemError as err:
        raise EvalError(str(err)) from None


def register_problems(judge: JudgeClient, dirs: dict[str, Path]) -> None:
    """Upload each problem to the judge (idempotent: test data is stored once by content)."""
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda item: judge.put_problem_dir(item[1], item[0]), dirs.items()))


def check_checkpoint_path(path: str) -> None:
    """A local checkpoint directory must hold config.json; a hub id is left to the loader."""
    local = Path(path).expanduser()
    if local.is_dir():
        if not (local / "config.json").is_file():
            raise EvalError(f"checkpoint {path!r}: no config.json in that directory")
        return
    if path.startswith((".", "/", "~")) or path.count("/") > 1 or not path.strip():
        raise EvalError(f"checkpoint {path!r}: no such directory")


def checkpoints_from_paths(paths: Sequence[str], *, relative_local: bool = True) -> list[EvalCheckpoint]:
    """Checkpoints named after their directories (made unique); a merger output's alpha comes along.

    With relative_local=False (the evaluator service's jobs) only an absolute path is local: anything
    else is a hub id, downloaded here and named after itself, never a directory that happens to exist
    in this process's current directory (the API confined every path to the data roots)."""
    if not paths:
        raise EvalError("no checkpoints given")
    out: list[EvalCheckpoint] = []
    names: set[str] = set()
    for path in paths:
        if not relative_local and not path.startswith("/"):
            from merger.checkpoint import resolve_source
            from merger.merge import MergeError

            try:
                local = resolve_source(path, relative_local=False)[0]
            except MergeError as err:
                raise EvalError(str(err)) from None
            out.append(EvalCheckpoint(name=_unique(path, names), path=str(local), alpha=None))
            continue
        check_checkpoint_path(path)
        local = Path(path).expanduser()
        name = local.name if local.is_dir() else path
        out.append(
            EvalCheckpoint(
                name=_unique(name, names),
                path=str(local.resolve()) if local.is_dir() else path,
                alpha=_alpha_of(local),
            )
        )
    return out


def _unique(name: str, names: set[str]) -> str:
    base, i = name, 2
    while name in names:
        name, i = f"{base}_{i}", i + 1
    names.add(name)
    return name


def _alpha_of(path: Path) -> float | None:
    """The alpha recorded in a merger output's merge_config.json, if it is one."""
    try:
        alpha = json.loads((path / "merge_config.json").read_text()).get("alpha")
    except (OSError, ValueError, AttributeError):
        return None
    return float(alpha) if isinstance(alpha, int | float) else None


def sweep_checkpoints(alphas: Sequence[float]) -> list[EvalCheckpoint]:
    from merger.models import alpha_dir_name, check_alphas

    try:
        values = check_alphas(list(alphas))
    except ValueError as err:
        raise EvalError(str(err)) from None
    return [EvalCheckpoint(name=alpha_dir_name(a), alpha=a) for a in values]
