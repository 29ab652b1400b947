"""`frontier eval`, `frontier sweep` and `frontier report`: the evaluator's commands.

`eval` and `sweep` run here by default (generation on this machine, judging through the judge service
at FRONTIER_JUDGE_URL), with progress bars, and resume a run directory they find half done. With
`--service` they are queued on the evaluator service (FRONTIER_EVALUATOR_URL) instead and followed.

The service's own processes: `frontier serve evaluator` and `frontier worker evaluator`, or
`python -m services.evaluator.cli serve|worker` (what the images and the stack launcher run).
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Annotated

import typer

from services.evaluator.config import EvalConfig

_FIELDS = EvalConfig.model_fields


def _option(field: str, *flags: str) -> typer.models.OptionInfo:
    """A CLI option for an EvalConfig field, its help the field's description."""
    text = _FIELDS[field].description
    return typer.Option(*flags, help=f"{text[0].upper()}{text[1:]}.")


def _default(field: str):
    return _FIELDS[field].default


_BENCHMARK = _option("benchmark", "--benchmark", "-b")
_PROBLEM = typer.Option("--problem", "-p", help="Only this problem id (repeatable).")
_N = _option("n_samples", "--n-samples", "-n")
_TEMPERATURE = _option("temperature", "--temperature", "-t")
_MAX_TOKENS = _option("max_tokens", "--max-tokens")
_TOP_P = _option("top_p", "--top-p")
_SEED = _option("seed", "--seed")
_BACKEND = _option("backend", "--backend")
_BATCH = _option("batch_size", "--batch-size")
_REPAIR = _option("repair_turns", "--repair-turns")
_RUN_DIR = typer.Option(
    "--run-dir", "-o", help="Run directory (default: runs/<kind>-<time>); resumed if half done."
)
_SERVICE = typer.Option("--service", help="Queue the job on the evaluator service and follow it.")


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


def _config(
    benchmark, problem, n_samples, temperature, max_tokens, top_p, seed, backend, batch_size, repair_turns
):
    """The options `eval` and `sweep` share, as one EvalConfig (exit 2 with the reason when invalid)."""
    from pydantic import ValidationError

    fields = dict(
        benchmark=benchmark,
        problems=problem or None,
        n_samples=n_samples,
        temperature=temperature,
        max_tokens=max_tokens,
        top_p=top_p,
        seed=seed,
        backend=backend,
        batch_size=batch_size,
        repair_turns=repair_turns,
    )
    try:
        return EvalConfig(**fields)
    except ValidationError as err:
        why = "; ".join(f"--{'-'.join(map(str, e['loc']))}: {e['msg']}" for e in err.errors())
        typer.echo(f"error: {why.replace('_', '-')}", err=True)
        raise typer.Exit(2) from None


def eval_command(
    checkpoints: Annotated[list[str], typer.Argument(help="Checkpoint directories (or hub ids).")],
    benchmark: Annotated[str, _BENCHMARK] = _default("benchmark"),
    problem: Annotated[list[str] | None, _PROBLEM] = None,
    n_samples: Annotated[int, _N] = _default("n_samples"),
    temperature: Annotated[float, _TEMPERATURE] = _default("temperature"),
    max_tokens: Annotated[int, _MAX_TOKENS] = _default("max_tokens"),
    top_p: Annotated[float, _TOP_P] = _default("top_p"),
    seed: Annotated[int, _SEED] = _default("seed"),
    backend: Annotated[str | None, _BACKEND] = None,
    batch_size: Annotated[int | None, _BATCH] = None,
    repair_turns: Annotated[int, _REPAIR] = _default("repair_turns"),
    run_dir: Annotated[Path | None, _RUN_DIR] = None,
    service: Annotated[bool, _SERVICE] = False,
) -> None:
    """Evaluate checkpoints on a benchmark: sample, judge, classify, and write the report and plots."""
    config = _config(
        benchmark, problem, n_samples, temperature, max_tokens, top_p, seed, backend, batch_size, repair_turns
    )
    if service:
        _follow("/eval", {"checkpoints": checkpoints, **config.body()}, run_dir)
        return
    _run_here(checkpoints, None, config, run_dir or _default_run_dir("eval"))


def sweep_command(
    low: Annotated[str, typer.Argument(help="theta_low: the checkpoint at alpha = 0.")],
    high: Annotated[str, typer.Argument(help="theta_high: the checkpoint at alpha = 1.")],
    alphas: Annotated[
        str,
        typer.Option(
            "--alphas",
            "-a",
            help="Comma-separated (--alphas=-0.5,0,0.5,1,1.5) or start:stop:step (--alphas=-1:2:0.5)",
        ),
    ] = "-0.5,0,0.5,1,1.5",
    merger: Annotated[
        bool,
        typer.Option(
            "--merger", help="Write each alpha's checkpoint through the merger service, not in place."
        ),
    ] = False,
    benchmark: Annotated[str, _BENCHMARK] = _default("benchmark"),
    problem: Annotated[list[str] | None, _PROBLEM] = None,
    n_samples: Annotated[int, _N] = _default("n_samples"),
    temperature: Annotated[float, _TEMPERATURE] = _default("temperature"),
    max_tokens: Annotated[int, _MAX_TOKENS] = _default("max_tokens"),
    top_p: Annotated[float, _TOP_P] = _default("top_p"),
    seed: Annotated[int, _SEED] = _default("seed"),
    backend: Annotated[str | None, _BACKEND] = None,
    batch_size: Annotated[int | None, _BATCH] = None,
    repair_turns: Annotated[int, _REPAIR] = _default("repair_turns"),
    run_dir: Annotated[Path | None, _RUN_DIR] = None,
    service: Annotated[bool, _SERVICE] = False,
) -> None:
    """Evaluate theta_a = a*high + (1-a)*low for each alpha (in place: no checkpoint written)."""
    from merger.models import parse_alphas  # one parser: "-0.5,0,1" or "start:stop:step"

    try:
        values = parse_alphas(alphas)
    except ValueError as err:
        typer.echo(f"error: --alphas {err}", err=True)
        raise typer.Exit(2) from None
    config = _config(
        benchmark, problem, n_samples, temperature, max_tokens, top_p, seed, backend, batch_size, repair_turns
    )
    if service or merger:
        # the merger path needs the merger service, and so runs as a service job
        body = {
            "low": low,
            "high": high,
            "alphas": values,
            "mode": "merger" if merger else "in_place",
            **config.body(),
        }
        _follow("/sweep", body, run_dir)
        return
    from services.evaluator.inputs import EvalError, sweep_checkpoints

    try:
        checkpoints = sweep_checkpoints(values)
    except EvalError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2) from None
    _run_here(checkpoints, (low, high), config, run_dir or _default_run_dir("sweep"))


def _default_run_dir(kind: str) -> Path:
    return Path("runs") / f"{kind}-{datetime.now():%Y%m%d-%H%M%S}"


def _run_here(checkpoints, sweep, config: EvalConfig, run_dir: Path) -> None:
    from services.evaluator.generate import GenerationError
    from services.evaluator.inputs import EvalError
    from services.evaluator.pipeline import evaluate
    from services.judge.client import JudgeClientError

    try:
        result = evaluate(checkpoints, config, run_dir, sweep=sweep)
    except (EvalError, GenerationError, JudgeClientError) as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2) from None
    if result.already_judged:
        typer.echo(f"resumed: {result.already_judged} samples were already judged")
    typer.echo(
        f"judged {result.judged} samples in {result.seconds:.1f} s ({result.judge_errors} judge errors)"
    )
    _print_summary(result.report["summary"])
    _print_repair(result.report["summary"])
    typer.echo(result.report["report_json"])
    typer.echo(result.report["report_md"])
    for path in result.report["plots"].values():
        typer.echo(path)


def _print_summary(summary: dict) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    table = Table(title="per checkpoint")
    for col in ("checkpoint", "alpha", "judged", "correct", "pass@1"):
        table.add_column(col, justify="left" if col == "checkpoint" else "right")
    for ck in summary["checkpoints"]:
        p1 = ck["pass_at_1"]
        table.add_row(
            Text(ck["name"]),  # the request's name, as written
            "-" if ck["alpha"] is None else f"{ck['alpha']:g}",
            str(ck["judged"]),
            f"{100 * ck['correct']:.1f}%",
            "-" if p1 is None else f"{p1:.3f}",
        )
    Console().print(table)


def _print_repair(summary: dict) -> None:
    """The repair evaluation's figures per checkpoint, where the run had one (--repair-turns)."""
    rows = [(ck["name"], ck["repair"]) for ck in summary["checkpoints"] if ck.get("repair")]
    if not rows:
        return
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    def cell(r: dict, key: str) -> str:
        ci = r["interval95"].get(key)
        value = "-" if r[key] is None else f"{r[key]:.3f}"
        return value + (f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "")

    table = Table(title="repair (95% intervals over problems)")
    for col in ("checkpoint", "turns", "first-attempt pass@1", "repair rate", "pass@1 after repair"):
        table.add_column(col, justify="left" if col == "checkpoint" else "right")
    for name, r in rows:
        table.add_row(
            Text(name),
            str(r["turns"]),
            cell(r, "first_attempt_pass@1"),
            cell(r, "repair_rate"),
            cell(r, "final_pass@1"),
        )
    Console().print(table)


def _follow(path: str, body: dict, run_dir: Path | None) -> None:
    """POST a job to the evaluator service and follow it to its end with a progress bar."""
    import httpx

    from services.settings import get_settings

    if run_dir is not None:
        body["run_dir"] = str(run_dir.resolve())
    url = get_settings().evaluator_url
    try:
        state = submit_and_follow(url, path, body)
    except (httpx.HTTPError, RuntimeError) as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2) from None
    if state["status"] != "finished":
        typer.echo(f"error: job {state['status']}: {state.get('error')}", err=True)
        raise typer.Exit(1)
    typer.echo(state["report_md"])
    for plot in (state.get("plots") or {}).values():
        typer.echo(plot)


def submit_and_follow(url: str, path: str, body: dict, poll_s: float = 1.0) -> dict:
    """POST /eval or /sweep to the evaluator service at `url`, show its progress until it ends, and
    return its final state (GET /eval/{job_id}). A refused request raises RuntimeError with the reason
    (`services.evaluator.client.EvalClientError`)."""
    from services.evaluator.client import EvalClient

    def accepted(job: dict) -> None:
        typer.echo(f"job {job['job_id']} ({job['kind']}) into {job['run_dir']}")

    with EvalClient(url) as client:
        return client.run(path, body, poll_s=poll_s, on_accepted=accepted)


def register(app: typer.Typer) -> None:
    app.command("eval")(eval_command)
    app.command("sweep")(sweep_command)
    app.command("report")(report)


# -- the service's processes ------------------------------------------------------------------------
def serve(
    host: Annotated[
        str | None,
        typer.Option(help="Listen address (default: FRONTIER_EVALUATOR_HOST); 0.0.0.0 in a container."),
    ] = None,
    port: Annotated[int | None, typer.Option(help="Port (default: FRONTIER_EVALUATOR_PORT or 8002).")] = None,
) -> None:
    """Run the evaluator's HTTP API: POST /eval and /sweep, GET /eval/{job_id} (OpenAPI at /docs)."""

    from services.evaluator.api import create_app
    from services.serving import serve_http
    from services.settings import get_settings

    settings = get_settings()
    host = host or settings.evaluator_host
    port = port or settings.evaluator_port
    serve_http(
        "the evaluator", create_app(settings), host, port, settings, log_level="info", access_log=False
    )


def worker(
    queue: Annotated[
        str | None, typer.Option(help="Queue name (default: FRONTIER_EVAL_QUEUE or eval).")
    ] = None,
    redis_url: Annotated[str | None, typer.Option(help="Redis URL (default: FRONTIER_REDIS_URL).")] = None,
    burst: Annotated[bool, typer.Option("--burst", help="Exit once the queue is empty.")] = False,
    name: Annotated[str | None, typer.Option(help="Worker name (default: RQ's).")] = None,
) -> None:
    """Run an evaluator worker: eval and sweep jobs from the Redis queue, each in a forked process."""
    # torch and transformers imported once here, not again in every forked job
    import transformers  # noqa: F401
    from rq.serializers import JSONSerializer

    import services.evaluator.pipeline  # noqa: F401
    from services.jobs import run_worker
    from services.settings import get_settings

    settings = get_settings()
    queue = queue or settings.eval_queue
    run_worker(queue, settings, redis_url=redis_url, serializer=JSONSerializer, burst=burst, name=name)


def register_service(serve_app: typer.Typer, worker_app: typer.Typer) -> None:
    """`frontier serve evaluator` and `frontier worker evaluator`."""
    serve_app.command("evaluator")(serve)
    worker_app.command("evaluator")(worker)


# `python -m services.evaluator.cli serve|worker`
service_app = typer.Typer(no_args_is_help=True, add_completion=False, help="The evaluator's API and workers.")
service_app.command("serve")(serve)
service_app.command("worker")(worker)

if __name__ == "__main__":
    service_app()
