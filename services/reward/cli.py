"""`frontier serve reward`: OpenRLHF's remote reward model over the judge (spec section 13), or
`python -m services.reward.cli serve`."""

from __future__ import annotations

from typing import Annotated

import typer

REWARD_PORT = 8003


def _k(value: str) -> int | str:
    from services.reward.api import parse_k

    try:
        return parse_k(value)
    except ValueError as err:
        raise typer.BadParameter(str(err)) from None


def _credit(value: str) -> str:
    from services.judge.core.credit import CREDITS

    if value not in CREDITS:
        raise typer.BadParameter(f"{value!r} is not one of {', '.join(CREDITS)}")
    return value


def _isolation(value: str) -> str:
    from services.judge.core.models import check_isolation

    try:
        return check_isolation(value)
    except ValueError as err:
        raise typer.BadParameter(str(err)) from None


def serve(
    host: Annotated[str, typer.Option(help="Listen address.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port.")] = REWARD_PORT,
    k: Annotated[str, typer.Option(help="The reward R_k: 1, 2, ... or inf.", parser=_k)] = "inf",
    judge_url: Annotated[str | None, typer.Option(help="Judge URL (default: FRONTIER_JUDGE_URL).")] = None,
    credit: Annotated[
        str,
        typer.Option(
            help="The reward: r_k (R_k, 0 or 1), discrete (fraction of the scopes R_1..R_inf passed) or "
            "continuous (fraction of tests passed, every test run); a request's 'credit' field overrides it.",
            parser=_credit,
        ),
    ] = "r_k",
    isolation: Annotated[
        str | None,
        typer.Option(
            help="test: each test in a process of its own; submission: a completion's tests in one sandboxed "
            "process (docs/spec.md 4.8). Default: the judge's FRONTIER_ISOLATION; a request's 'isolation' "
            "field overrides it.",
            parser=_isolation,
        ),
    ] = None,
    assistant_marker: Annotated[
        list[str] | None,
        typer.Option(
            help="Where the chat template starts the assistant's turn, beside the known ones (ChatML, "
            "Llama 3, Gemma, DeepSeek, Phi-3, Mistral): a query that does not start with its prompt is "
            "judged from the last marker on. Repeatable.",
        ),
    ] = None,
) -> None:
    """Run the reward service: POST /get_reward answers OpenRLHF's --remote_rm_url with the judge's R_k
    or a partial credit."""
    from services.reward.api import create_app
    from services.serving import serve_http
    from services.settings import get_settings

    settings = get_settings()
    app = create_app(settings, k, judge_url, credit, isolation, assistant_marker or ())
    serve_http("the reward service", app, host, port, settings, access_log=False)


def register_service(serve_app: typer.Typer, worker_app: typer.Typer) -> None:
    """`frontier serve reward` (the reward service has no queue, so no worker)."""
    serve_app.command("reward")(serve)


# `python -m services.reward.cli serve`
service_app = typer.Typer(no_args_is_help=True, add_completion=False, help="The reward service.")
service_app.command("serve")(serve)


@service_app.callback()
def _group() -> None:
    """The reward service (its one command is `serve`)."""


if __name__ == "__main__":
    service_app()
