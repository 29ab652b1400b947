"""The command line (`frontier`) as the tests invoke it, and a text full of rich markup that must be
printed as written (services/terminal.py)."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

MARKUP = "[bold]oops[/bold] [/x]"


def markup_dir(tmp_path: Path) -> Path:
    """A directory whose path ends in MARKUP (its `/` separate directories)."""
    d = tmp_path / "[bold]oops[" / "bold] [" / "x]"
    assert str(d).endswith(MARKUP)
    return d


def invoke(args: list[str], code: int):
    """`frontier ARGS`, which must end with exit status `code` by its own exit, not by an exception
    (a MarkupError would be status 1 too)."""
    from services.cli import app

    result = CliRunner().invoke(app, args)
    assert result.exit_code == code, result.output
    assert result.exception is None or type(result.exception) is SystemExit, repr(result.exception)
    return result
