"""`frontier merge ...` (filled in by the merger work)."""

import typer

app = typer.Typer(no_args_is_help=True)
