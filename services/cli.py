"""`frontier`: the command line of the stack. Each component contributes its own commands."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

import typer

from services.evaluator.cli import register as register_evaluator
from services.judge.cli import register as register_judge
from services.merger.cli import app as merge_app
from services.problems.cli import problems_app

app = typer.Typer(no_args_is_help=True, add_completion=False, help=__doc__)

register_judge(app)
app.add_typer(problems_app, name="problems")
app.add_typer(merge_app, name="merge", help="Alpha-merge checkpoints (theta_a = a*high + (1-a)*low).")
register_evaluator(app)


class Service(StrEnum):
    judge = "judge"
    merger = "merger"
    evaluator = "evaluator"


class Served(StrEnum):
    judge = "judge"
    merger = "merger"
    evaluator = "evaluator"
    reward = "reward"


PASS_THROUGH = {"allow_extra_args": True, "ignore_unknown_options": True}


@app.command("serve", context_settings=PASS_THROUGH)
def serve(
    ctx: typer.Context, service: Served = typer.Argument(..., help="judge, merger, evaluator or reward")
) -> None:
    """Run a service's HTTP API (judge :8000, merger :8001, evaluator :8002, reward :8003 for OpenRLHF).
    Options go to the service."""
    if service == Served.judge:
        from services.judge.cli import service_app

        typer.main.get_command(service_app).main(["serve", *ctx.args], prog_name="frontier serve judge")
    elif service == Served.merger:
        from services.merger.api import main

        main(ctx.args)
    elif service == Served.reward:
        from services.reward.api import main

        main(ctx.args)
    else:
        from services.evaluator.api import main

        main(ctx.args)


@app.command("worker", context_settings=PASS_THROUGH)
def worker(
    ctx: typer.Context, service: Service = typer.Argument(..., help="judge, merger or evaluator")
) -> None:
    """Run a worker of a service's RQ queue on FRONTIER_REDIS_URL. Options go to the worker."""
    if service == Service.judge:
        from services.judge.cli import service_app

        typer.main.get_command(service_app).main(["worker", *ctx.args], prog_name="frontier worker judge")
    elif service == Service.merger:
        from services.merger.worker import main

        main(ctx.args)
    else:
        from services.evaluator.worker import main

        main(ctx.args)


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
    judge_url: str = typer.Option(None, help="Judge service URL [default: FRONTIER_JUDGE_URL]."),
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
    out: Path = typer.Option(None, help="Where runs/<name>/ goes [default: the checkout's runs/]."),
) -> None:
    """The miniature replication end to end: SFT, lax and strict GRPO, the alpha sweep through the merger
    and evaluator services, and the report. A second run reuses the stages already done."""
    from pydantic import ValidationError

    from trainer.replicate import ReplicationCheckFailed, StageFailed, load_config
    from trainer.replicate import replicate as run

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


if __name__ == "__main__":
    app()
