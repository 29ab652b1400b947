"""`frontier report` (and, as they land, `frontier eval` and `frontier sweep`): the evaluator's commands."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def report(
    run_dir: Annotated[
        Path,
        typer.Argument(help="an eval run directory holding run.json and samples.jsonl", file_okay=False),
    ],
    completions: Annotated[
        bool, typer.Option("--completions", help="copy each sample's completion text into report.json too")
    ] = False,
) -> None:
    """Rebuild report.json, report.md and plots/*.png of RUN_DIR from its samples, and print their paths."""
    from services.evaluator.reports import build_report  # matplotlib is imported only when needed

    try:
        built = build_report(run_dir, include_completions=completions)
    except (FileNotFoundError, ValueError) as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(code=2) from e
    typer.echo(built["report_json"])
    typer.echo(built["report_md"])
    for path in built["plots"].values():
        typer.echo(path)


def register(app: typer.Typer) -> None:
    app.command("report")(report)
