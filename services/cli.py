"""`frontier`: the command line of the stack. Each component contributes one typer sub-app."""

from __future__ import annotations

import typer

from merger.cli import app as merge_app
from services.evaluator.cli import register as register_evaluator
from services.judge.cli import register as register_judge

app = typer.Typer(no_args_is_help=True, add_completion=False, help=__doc__)

register_judge(app)
app.add_typer(merge_app, name="merge", help="Alpha-merge checkpoints (theta_a = a*high + (1-a)*low).")
register_evaluator(app)

if __name__ == "__main__":
    app()
