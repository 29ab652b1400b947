"""`frontier eval`, `frontier sweep`, `frontier report` (filled in by the evaluator work)."""

import typer


def register(app: typer.Typer) -> None:
    return None
