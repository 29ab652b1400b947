"""`frontier`: the command line of the stack. Each component contributes its own commands."""

from __future__ import annotations

from pathlib import Path

import typer

from services.evaluator.cli import register as register_evaluator
from services.evaluator.cli import register_service as evaluator_service
from services.judge.cli import register as register_judge
from services.judge.cli import register_service as judge_service
from services.merger.cli import app as merge_app
from services.merger.cli import register_service as merger_service
from services.problems.cli import problems_app
from services.reward.cli import register_service as reward_service

app = typer.Typer(no_args_is_help=True, add_completion=False, help=__doc__)

register_judge(app)
app.add_typer(problems_app, name="problems")
app.add_typer(merge_app, name="merge", help="Alpha-merge checkpoints (theta_a = a*high + (1-a)*low).")
register_evaluator(app)


# `frontier serve SERVICE` and `frontier worker SERVICE`: each service contributes its own commands
serve_app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    help="Run a service's HTTP API (judge :8000, merger :8001, evaluator :8002, reward :8003 for OpenRLHF).",
)
worker_app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    help="Run a worker of a service's RQ queue on FRONTIER_REDIS_URL.",
)
for register_service in (judge_service, merger_service, evaluator_service, reward_service):
    register_service(serve_app, worker_app)
app.add_typer(serve_app, name="serve")
app.add_typer(worker_app, name="worker")


@app.command("train")
def train(
    model: str = typer.Option(..., help="Checkpoint directory (or hub id when online) to start from."),
    out: Path = typer.Option(..., help="Output directory."),
    problems: list[Path] = typer.Option([Path("problems/bundled")], help="Problem directories' roots."),
    k: str = typer.Option("inf", help="Reward R_k: 1, 2, ... (laxer) or inf (strictest)."),
    max_steps: int = typer.Option(100),
    num_generations: int = typer.Option(8),
    max_completion_length: int = typer.Option(1024),
    learning_rate: float = typer.Option(1e-6),
    judge_url: str = typer.Option(None, help="Judge service URL (default: FRONTIER_JUDGE_URL)."),
) -> None:
    """GRPO (TRL) with the judge's R_k as reward; the judge service must be running (`make up`)."""
    from trainer.train import train as run

    kk: int | str = k if k == "inf" else int(k)
    final = run(
        model,
        problems,
        out,
        k=kk,
        max_steps=max_steps,
        num_generations=num_generations,
        max_completion_length=max_completion_length,
        learning_rate=learning_rate,
        judge_url=judge_url,
    )
    typer.echo(f"final checkpoint: {final}")


@app.command("replicate")
def replicate(
    config: Path = typer.Argument(..., help="A replication config (configs/replicate_*.toml).", exists=True),
    out: Path = typer.Option(None, help="Where runs/<name>/ goes (default: the checkout's runs/)."),
) -> None:
    """The miniature replication end to end: SFT, lax and strict GRPO, the alpha sweep through the merger
    and evaluator services, and the report. A second run reuses the stages already done."""
    from pydantic import ValidationError

    from trainer.replication.replicate import ReplicationCheckFailed, StageFailed, load_config
    from trainer.replication.replicate import replicate as run

    try:
        cfg = load_config(config)
    except (ValidationError, ValueError) as err:
        typer.echo(f"error: {config}: {err}", err=True)
        raise typer.Exit(2) from None
    try:
        run(cfg, out)
    except (ReplicationCheckFailed, StageFailed) as err:
        typer.echo(f"error: {err}", err=True)
        raise typer.Exit(1) from None


@app.command("rejudge")
def rejudge(
    run_dir: Path = typer.Argument(..., help="A replication's run directory (runs/<name>/)."),
    per_class: int = typer.Option(16, "--per-class", min=1, help="Samples drawn per recorded outcome class."),
    seed: int = typer.Option(0, help="Seed of the stratified draw."),
    workers: int = typer.Option(2, min=1, help="Samples re-judged at once."),
    problems: Path = typer.Option(
        None, help="Problems' root (default: the run's [eval] benchmark, else bundled)."
    ),
) -> None:
    """Re-judge a seeded, stratified sample of a run's recorded outcomes independently of the judge
    (plain subprocesses, this command's own checkers) and report the agreement; writes rejudge.json."""
    from trainer.replication.rejudge import print_report, rejudge_run

    if not run_dir.is_dir():
        typer.echo(f"error: {run_dir}: not a directory", err=True)
        raise typer.Exit(2)
    try:
        report = rejudge_run(run_dir, per_class=per_class, seed=seed, workers=workers, problems_root=problems)
    except ValueError as err:
        typer.echo(f"error: {err}", err=True)
        raise typer.Exit(2) from None
    print_report(report)
    typer.echo(f"wrote {run_dir / 'rejudge.json'}")


if __name__ == "__main__":
    app()
