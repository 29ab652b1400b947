"""`frontier problems ...`: build the bundled problems' tests and check a problem directory."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from services.judge import bundled
from services.judge.problems import ProblemError, TestStore, load_problem_dir

problems_app = typer.Typer(no_args_is_help=True, add_completion=False, help=__doc__)
_out = Console()
_err = Console(stderr=True)


@problems_app.command("build")
def build(
    root: Path = typer.Argument(..., help="A directory of bundled problems (e.g. problems/bundled)."),
    seed: int = typer.Option(0, help="Seed of the test generators."),
    force: bool = typer.Option(False, "--force", help="Rebuild even where the cache stamp matches."),
    jobs: int = typer.Option(bundled.DEFAULT_JOBS, "--jobs", "-j", help="Problems built at once."),
) -> None:
    """Generate every problem's tests/ (seeded gen.py, outputs by ref.py) and rewrite the index."""
    if not root.is_dir():
        _err.print(f"[red]error:[/red] {root} is not a directory")
        raise typer.Exit(1)
    start = time.monotonic()
    results = bundled.build_all(root, seed=seed, force=force, jobs=jobs)
    built = [r for r in results if r.tests_written and not r.error]
    cached = [r for r in results if not r.tests_written and not r.error]
    failed = [r for r in results if r.error]
    for r in failed:
        _err.print(f"[red]error[/red] in {r.problem_id}: {r.error}")
    _out.print(
        f"{len(results)} problems: {len(built)} built ({sum(r.tests_written for r in built)} tests), "
        f"{len(cached)} up to date, {len(failed)} failed, in {time.monotonic() - start:.1f} s; "
        f"index: {root / bundled.INDEX_NAME}",
        soft_wrap=True,
    )
    if failed:
        raise typer.Exit(1)


@problems_app.command("check")
def check(problem_dir: Path = typer.Argument(..., help="One problem directory.")) -> None:
    """Validate one problem directory (problem.json, statement, checker, tests, zoo) and summarize it."""
    try:
        with tempfile.TemporaryDirectory(prefix="frontier-check-") as tmp:
            problem = load_problem_dir(problem_dir, TestStore(Path(tmp)))
        zoo = bundled.load_zoo(problem_dir) if (problem_dir / "zoo").exists() else []
    except ProblemError as err:
        _err.print(f"[red]error:[/red] {err}", soft_wrap=True)
        if (problem_dir / "gen.py").is_file() and not (problem_dir / "tests").is_dir():
            _err.print(f"hint: generate its tests with `frontier problems build {problem_dir.parent}`")
        raise typer.Exit(1) from None
    summary = problem.summary()
    table = Table(show_header=False, box=None)
    for key, value in summary.items():
        table.add_row(key, str(value))
    table.add_row("statement", f"{len(problem.statement)} characters" if problem.statement else "(missing)")
    table.add_row("zoo", ", ".join(f"{v.label}:{v.file}" for v in zoo) or "(none)")
    if (problem_dir / "gen.py").is_file() and (problem_dir / "ref.py").is_file():
        fresh = bundled.is_up_to_date(problem_dir)
        table.add_row(
            "tests", "up to date" if fresh else "[yellow]stale: run `frontier problems build`[/yellow]"
        )
    _out.print(table)
    if not problem.statement:
        _err.print(f"[yellow]warning:[/yellow] {problem_dir}: no statement")
