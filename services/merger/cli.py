"""`frontier merge`: alpha sweeps and task-arithmetic merges from a shell, locally or through the service.

frontier merge --low A --high B --alphas -1,-0.5,0,0.5,1,1.5,2 --out DIR     (or --alphas -1:2:0.5)
frontier merge --base B --model A:0.7 --model C:0.3 --out DIR
frontier merge submit ... (same options; queued on the merger service) / frontier merge status JOB_ID

The service's own processes: `frontier serve merger` and `frontier worker merger`, or
`python -m services.merger.cli serve|worker` (what the images and the stack launcher run).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    help="Alpha-merge checkpoints (theta_a = a*high + (1-a)*low) or merge by task arithmetic.",
)

Low = Annotated[str | None, typer.Option("--low", help="checkpoint at alpha 0 (directory or hub id)")]
High = Annotated[str | None, typer.Option("--high", help="checkpoint at alpha 1")]
Alphas = Annotated[str | None, typer.Option("--alphas", help="comma list (-1,-0.5,0,2) or start:stop:step")]
Base = Annotated[str | None, typer.Option("--base", help="general form: the base checkpoint")]
Models = Annotated[list[str] | None, typer.Option("--model", help="general form: PATH:WEIGHT, repeatable")]
Out = Annotated[Path | None, typer.Option("--out", help="output directory (alpha_<a>/ per alpha inside)")]
DTypeOpt = Annotated[
    str | None, typer.Option("--dtype", help="bfloat16, float16 or float32 (default: inputs')")
]
Overwrite = Annotated[bool, typer.Option("--overwrite", help="replace outputs that exist")]
Normalize = Annotated[bool, typer.Option("--normalize", help="general form: divide weights by their sum")]


def parse_alphas(text: str) -> list[float]:
    """`-1,-0.5,0` or `start:stop:step` (stop included): merger.models.parse_alphas, as a CLI error."""
    from merger.models import parse_alphas as parse

    try:
        return parse(text)
    except ValueError as err:
        raise typer.BadParameter(str(err)) from None


def parse_model(text: str) -> tuple[str, float]:
    path, sep, weight = text.rpartition(":")
    try:
        if not sep or not path:
            raise ValueError
        return path, float(weight)
    except ValueError:
        raise typer.BadParameter(f"--model {text!r}: expected PATH:WEIGHT") from None


def _request(low, high, alphas, base, models, out, dtype, overwrite, normalize) -> dict:
    if out is None:
        raise typer.BadParameter("--out is required")
    body: dict = {"output_dir": str(out.absolute()), "dtype": dtype, "overwrite": overwrite}
    if base is not None or models:
        body |= {
            "base": base,
            "models": [{"path": p, "weight": w} for p, w in map(parse_model, models or [])],
        }
        body["normalize"] = normalize
    else:
        body |= {"low": low, "high": high, "alphas": parse_alphas(alphas) if alphas is not None else None}
    from pydantic import ValidationError

    from merger.models import MergeRequest

    try:
        return MergeRequest.model_validate(body).model_dump(mode="json", exclude_none=True)
    except ValidationError as e:
        raise typer.BadParameter(
            "; ".join(err["msg"].removeprefix("Value error, ") for err in e.errors())
        ) from None


def _run_local(body: dict) -> None:
    from rich.console import Console
    from rich.text import Text
    from tqdm import tqdm

    from merger.merge import MergeError
    from merger.sweep import merge_alphas, merge_models
    from services.terminal import say

    bar = tqdm(total=0, unit="B", unit_scale=True, desc="merging", dynamic_ncols=True)

    def progress(p) -> None:
        bar.total = p.bytes_total
        bar.set_postfix_str(f"tensor {p.tensors_done}/{p.tensors_total}", refresh=False)
        bar.update(p.bytes_done - bar.n)

    common = {"dtype": body.get("dtype"), "overwrite": body["overwrite"], "progress": progress}
    try:
        if "alphas" in body:
            result = merge_alphas(body["low"], body["high"], body["alphas"], body["output_dir"], **common)
        else:
            models = [(m["path"], m["weight"]) for m in body["models"]]
            result = merge_models(
                body["base"], models, body["output_dir"], normalize=body["normalize"], **common
            )
    except MergeError as e:
        bar.close()
        say(Console(stderr=True), "merge refused:", str(e))
        raise typer.Exit(2) from None
    bar.close()
    console = Console()
    for o in result.outputs:
        what = f"alpha {o.record['alpha']}" if "alpha" in o.record else f"weights {o.record['weights']}"
        line = Text(f"{what}: {o.path}")  # the path as written, never as markup
        if o.warnings:
            line.append(f"  {len(o.warnings)} tensors with NaN/Inf", "yellow")
        console.print(line, soft_wrap=True)
    for note in result.notes:
        say(console, "note:", note, style="dim")
    gb = (result.bytes_read + result.bytes_written) / 1e9
    console.print(
        f"{len(result.outputs)} checkpoints in {result.seconds:.1f} s ({gb / result.seconds:.2f} GB/s moved)"
    )


@app.callback(invoke_without_command=True)
def merge(
    ctx: typer.Context,
    low: Low = None,
    high: High = None,
    alphas: Alphas = None,
    base: Base = None,
    model: Models = None,
    out: Out = None,
    dtype: DTypeOpt = None,
    overwrite: Overwrite = False,
    normalize: Normalize = False,
) -> None:
    """Merge here, in this process: one pass over the inputs writes every alpha's checkpoint."""
    if ctx.invoked_subcommand is not None:
        if any(v for v in (low, high, alphas, base, model, out)):
            raise typer.BadParameter(f"put the options after `{ctx.invoked_subcommand}`")
        return
    _run_local(_request(low, high, alphas, base, model, out, dtype, overwrite, normalize))


@app.command("run")
def run(
    low: Low = None,
    high: High = None,
    alphas: Alphas = None,
    base: Base = None,
    model: Models = None,
    out: Out = None,
    dtype: DTypeOpt = None,
    overwrite: Overwrite = False,
    normalize: Normalize = False,
) -> None:
    """Same as `frontier merge OPTIONS`."""
    _run_local(_request(low, high, alphas, base, model, out, dtype, overwrite, normalize))


@app.command("submit")
def submit(
    low: Low = None,
    high: High = None,
    alphas: Alphas = None,
    base: Base = None,
    model: Models = None,
    out: Out = None,
    dtype: DTypeOpt = None,
    overwrite: Overwrite = False,
    normalize: Normalize = False,
    url: Annotated[str | None, typer.Option("--url", help="merger service (default: settings)")] = None,
) -> None:
    """Queue the merge on the merger service; prints the job id."""
    import httpx

    from services.settings import get_settings

    body = _request(low, high, alphas, base, model, out, dtype, overwrite, normalize)
    settings = get_settings()
    r = httpx.post(
        f"{url or settings.merger_url}/merge", json=body, timeout=30, headers=settings.auth_headers()
    )
    if r.status_code != 202:
        typer.echo(f"refused ({r.status_code}): {r.json().get('detail', r.text)}", err=True)
        raise typer.Exit(2)
    typer.echo(r.json()["job_id"])


@app.command("status")
def status(
    job_id: str,
    url: Annotated[str | None, typer.Option("--url", help="merger service (default: settings)")] = None,
) -> None:
    """A queued merge's status, progress and outputs, as JSON."""
    import httpx

    from services.settings import get_settings

    settings = get_settings()
    r = httpx.get(f"{url or settings.merger_url}/merge/{job_id}", timeout=30, headers=settings.auth_headers())
    if r.status_code != 200:
        typer.echo(f"{r.status_code}: {r.json().get('detail', r.text)}", err=True)
        raise typer.Exit(2)
    typer.echo(json.dumps(r.json(), indent=2))


# -- the service's processes ------------------------------------------------------------------------
def serve(
    host: Annotated[
        str | None,
        typer.Option(help="Listen address (default: FRONTIER_MERGER_HOST); 0.0.0.0 in a container."),
    ] = None,
    port: Annotated[int | None, typer.Option(help="Port (default: FRONTIER_MERGER_PORT or 8001).")] = None,
    queue: Annotated[
        str | None, typer.Option(help="Queue name (default: FRONTIER_MERGER_QUEUE or merge).")
    ] = None,
    redis_url: Annotated[str | None, typer.Option(help="Redis URL (default: FRONTIER_REDIS_URL).")] = None,
) -> None:
    """Run the merger's HTTP API: POST /merge, GET /merge/{job_id} (OpenAPI at /docs)."""

    from services.merger.api import create_app
    from services.serving import serve_http
    from services.settings import get_settings

    settings = get_settings()
    app = create_app(redis_url or settings.redis_url, queue or settings.merger_queue, settings)
    serve_http("the merger", app, host or settings.merger_host, port or settings.merger_port, settings)


def worker(
    queue: Annotated[
        str | None, typer.Option(help="Queue name (default: FRONTIER_MERGER_QUEUE or merge).")
    ] = None,
    redis_url: Annotated[str | None, typer.Option(help="Redis URL (default: FRONTIER_REDIS_URL).")] = None,
    burst: Annotated[bool, typer.Option("--burst", help="Exit once the queue is empty.")] = False,
    name: Annotated[str | None, typer.Option(help="Worker name (default: RQ's).")] = None,
) -> None:
    """Run a merger worker: merge jobs from the Redis queue, one at a time, each in a forked process."""
    import merger.sweep  # noqa: F401 - torch imported once here, not again in every forked job
    from services.jobs import run_worker
    from services.settings import get_settings

    settings = get_settings()
    run_worker(queue or settings.merger_queue, settings, redis_url=redis_url, burst=burst, name=name)


def register_service(serve_app: typer.Typer, worker_app: typer.Typer) -> None:
    """`frontier serve merger` and `frontier worker merger`."""
    serve_app.command("merger")(serve)
    worker_app.command("merger")(worker)


# `python -m services.merger.cli serve|worker`
service_app = typer.Typer(no_args_is_help=True, add_completion=False, help="The merger's API and workers.")
service_app.command("serve")(serve)
service_app.command("worker")(worker)

if __name__ == "__main__":
    service_app()
