"""`frontier serve judge` and `frontier worker judge`: start the judge's API and its queue workers.

Both are plain functions with typer options, so the CLI registers them as they are; this module also
runs on its own: `python -m services.judge.cli_serve serve|worker`.
"""

from __future__ import annotations

import logging

import typer

from services.settings import get_settings


def _logging() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")


def serve_judge(
    host: str = typer.Option(None, help="Listen address [default: FRONTIER_JUDGE_HOST or 127.0.0.1]."),
    port: int = typer.Option(None, help="Port [default: FRONTIER_JUDGE_PORT or 8000]."),
) -> None:
    """Run the judge's HTTP API (OpenAPI at /docs). Needs Redis (FRONTIER_REDIS_URL) and workers to judge."""
    import uvicorn

    from services.judge.api import create_app
    from services.security import warn_if_exposed

    _logging()
    settings = get_settings()
    warn_if_exposed("the judge", host or settings.judge_host, settings)
    uvicorn.run(
        create_app(settings),
        host=host or settings.judge_host,
        port=port or settings.judge_port,
        log_level="info",
        access_log=False,
        timeout_graceful_shutdown=5,
    )


def worker_judge(
    slots: int = typer.Option(None, help="Sandbox slots, judged in parallel [default: FRONTIER_SLOTS or 2]."),
    burst: bool = typer.Option(False, "--burst", help="Exit once the queue is empty."),
) -> None:
    """Run a judge worker: one warm sandbox Engine, pulling jobs from the Redis queue 'judge'.

    Start one per machine (more slots for more cores); any number of machines can join one Redis.
    """
    from services.judge.worker import run_worker

    _logging()
    run_worker(get_settings(), slots=slots, burst=burst)


_app = typer.Typer(no_args_is_help=True, add_completion=False, help=__doc__)
_app.command("serve")(serve_judge)
_app.command("worker")(worker_judge)

if __name__ == "__main__":
    _app()
