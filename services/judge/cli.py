"""`frontier judge`, `frontier serve judge` and `frontier worker judge`: judge a program from a shell,
run the judge's HTTP API, run its queue workers."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from services.judge.core.languages import LANGUAGES
from services.judge.core.models import Submission, check_isolation
from services.judge.core.options import JudgeOptions
from services.judge.core.verdicts import Verdict
from services.problems.store import ProblemError
from services.serving import setup_logging
from services.settings import get_settings
from services.terminal import say

_out = Console()
_err = Console(stderr=True)

# a program's language from its file's extension (each language's declaration names its own)
EXTENSIONS = {ext: name for name, language in LANGUAGES.items() for ext in language.extensions}
COLORS = {Verdict.AC: "green", Verdict.SKIPPED: "dim", Verdict.TLE: "yellow", Verdict.MLE: "yellow"}


def engine_or_exit():
    """A warm sandbox Engine, or exit 2 with the reason when the sandbox cannot start here."""
    from services.judge.core.engine import Engine
    from services.judge.core.sandbox.slot import SandboxError

    try:
        return Engine()
    except SandboxError as err:
        say(_err, "error:", str(err))
        raise typer.Exit(2) from None


def judge_command(
    problem_dir: Path = typer.Argument(..., help="A problem directory (SPEC section 2)."),
    file: Path = typer.Argument(..., help="The program, or a model completion with --completion."),
    language: str = typer.Option(
        None,
        "--language",
        "-l",
        help=f"{', '.join(LANGUAGES)} (default: from the extension).",
    ),
    mode: str = typer.Option("first_failure", "--mode", help="first_failure (default) or full."),
    completion: bool = typer.Option(
        False, "--completion", help="FILE is model output: judge its last code block."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the SPEC's result object as JSON."),
    feedback: bool = typer.Option(
        False,
        "--feedback",
        help="Also print the feedback a repair policy would get (docs/spec.md 5.1; public tests show "
        "their content); the template is FRONTIER_FEEDBACK_TEMPLATE.",
    ),
    isolation: str = typer.Option(
        None,
        "--isolation",
        help="test: every test in a process of its own; submission: a Python program's tests forked in "
        "turn from one sandboxed snapshot of it (docs/spec.md 4.8). Default FRONTIER_ISOLATION.",
    ),
) -> None:
    """Judge one program against one problem and print verdicts, rewards R_k and the outcome class;
    or, given a directory of problems and a .jsonl of completions, judge them all (see judge-set)."""
    from services.problems.store import load_problem_dir

    if file.name.endswith((".jsonl", ".jsonl.gz")):
        judge_set(problem_dir, file, mode=mode, isolation=isolation, as_json=as_json)
        return

    language = language or EXTENSIONS.get(file.suffix.lower(), "python")
    if language not in LANGUAGES:
        say(_err, "error:", f"unsupported language {language!r}; use one of {', '.join(LANGUAGES)}")
        raise typer.Exit(2)
    if mode not in ("first_failure", "full"):
        _err.print("[red]error:[/red] --mode must be first_failure or full")
        raise typer.Exit(2)
    try:
        check_isolation(isolation)
    except ValueError as err:
        say(_err, "error:", f"--{err}")
        raise typer.Exit(2) from None
    try:
        text = file.read_text()
    except OSError as err:
        say(_err, "error:", f"cannot read {file}: {err.strerror}")
        raise typer.Exit(2) from None
    with engine_or_exit() as engine:
        try:
            problem = load_problem_dir(problem_dir, engine.store)
        except ProblemError as err:
            say(_err, "error:", str(err))
            raise typer.Exit(2) from None
        sub = Submission(
            id=file.name,
            problem_id=problem.id,
            language=language,
            **({"completion": text} if completion else {"code": text}),
        )
        result = engine.judge(problem, sub, JudgeOptions(mode=mode, feedback=feedback, isolation=isolation))
    if as_json:
        sys.stdout.write(result.model_dump_json(indent=2) + "\n")
    else:
        _print_result(result)
        if result.feedback_text:
            say(_out, "", result.feedback_text)
    raise typer.Exit(0 if result.status == "ok" else 1)


def judge_set(
    benchmark: Path,
    completions: Path,
    *,
    mode: str = "first_failure",
    isolation: str | None = None,
    as_json: bool = False,
    out: Path | None = None,
    url: str | None = None,
) -> None:
    """Judge a file of completions against a directory of problems (docs/spec.md 4.9)."""
    import tempfile

    from tqdm import tqdm

    from services.judge import judge_set as js
    from services.problems.store import TestStore

    if mode not in ("first_failure", "full"):
        _err.print("[red]error:[/red] --mode must be first_failure or full")
        raise typer.Exit(2)
    try:
        check_isolation(isolation)
    except ValueError as err:
        say(_err, "error:", f"--{err}")
        raise typer.Exit(2) from None
    options = JudgeOptions(mode=mode, isolation=isolation)
    refused: list[str] = []

    def refuse(message: str) -> None:
        refused.append(message)
        tqdm.write(f"refused {message}", file=sys.stderr)

    with tempfile.TemporaryDirectory(prefix="frontier-set-") as tmp:
        engine = None if url else engine_or_exit()
        try:
            store = engine.store if engine else TestStore(Path(tmp))
            try:
                problems = js.load_benchmark(benchmark, store)
                items = js.read_completions(completions, problems, refuse)
            except js.SetError as err:
                say(_err, "error:", str(err))
                raise typer.Exit(2) from None
            with tqdm(total=len(items), desc="judging", unit="completion", file=sys.stderr) as bar:
                if engine is not None:
                    results = js.judge_local(engine, items, options, lambda: bar.update(1))
                else:
                    from services.judge.client import JudgeClient, JudgeClientError

                    dirs = {p.id: _problem_dir(benchmark, p.id) for p in problems.values()}
                    try:
                        with JudgeClient(url) as client:
                            results = js.judge_http(client, dirs, items, options, lambda: bar.update(1))
                    except JudgeClientError as err:
                        say(_err, "error:", str(err))
                        raise typer.Exit(1) from None
        finally:
            if engine is not None:
                engine.close()
    js.write_jsonl(out, (js.result_record(it, r) for it, r in zip(items, results, strict=True)))
    summary = {**js.summary(items, results), "refused": len(refused)}
    if as_json or out is None:
        say(_err, "", json.dumps(summary))
    else:
        table = Table(title=Text(f"{completions.name} on {benchmark.name}"))  # file names, as written
        for col in ("records", "problems", "correct", "refused", "judge errors", *summary["pass_at_k"]):
            table.add_column(col, justify="right")
        table.add_row(
            *(str(summary[k]) for k in ("records", "problems", "correct", "refused", "judge_errors")),
            *(f"{v:.4f}" for v in summary["pass_at_k"].values()),
        )
        _out.print(table)
        say(_out, "", f"results: {out}")
    raise typer.Exit(0 if not refused and not summary["judge_errors"] else 1)


def _problem_dir(benchmark: Path, problem_id: str) -> Path:
    return benchmark if (benchmark / "problem.json").is_file() else benchmark / problem_id


def judge_set_command(
    benchmark: Path = typer.Argument(..., help="A directory of problem directories (an imported benchmark)."),
    completions: Path = typer.Argument(
        ..., help="JSONL (or .jsonl.gz): task_id or problem_id, and solution or completion per line."
    ),
    out: Path = typer.Option(None, "--out", "-o", help="Write per-record results here (default stdout)."),
    url: str = typer.Option(
        None,
        "--url",
        help="Judge over HTTP at this judge API (problems uploaded, one batch) instead of here.",
    ),
    mode: str = typer.Option("first_failure", "--mode", help="first_failure (default) or full."),
    isolation: str = typer.Option(None, "--isolation", help="test or submission (docs/spec.md 4.8)."),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as one JSON object."),
) -> None:
    """Judge a file of completions against a benchmark: per-record results as JSONL and pass@k."""
    judge_set(benchmark, completions, mode=mode, isolation=isolation, as_json=as_json, out=out, url=url)


def _print_result(result) -> None:
    if result.status != "ok":
        say(_err, "judge error:", result.message or "")
        return
    table = Table(title=f"{result.problem_id}: {result.outcome.value}")
    for col in ("test", "input bytes", "verdict", "cpu ms", "wall ms", "memory KB"):
        table.add_column(col, justify="right" if col != "test" else "left")
    for t in result.tests:
        color = COLORS.get(t.verdict, "red")
        table.add_row(
            t.name,
            str(t.input_bytes),
            f"[{color}]{t.verdict.value}[/{color}]" + (" (borderline)" if t.borderline else ""),
            *(str(v) if v is not None else "" for v in (t.cpu_ms, t.wall_ms, t.memory_kb)),
        )
    _out.print(table)
    _out.print("rewards: " + "  ".join(f"{k}={v}" for k, v in result.rewards.items()))
    _out.print("in scope: " + "  ".join(f"{k}={v}" for k, v in result.in_scope.items()))
    if result.compile_output:
        say(_out, "compile output:", result.compile_output, sep="\n")  # the compiler's words, as written
    if result.message:
        say(_out, "", result.message)


def serve_judge(
    host: str = typer.Option(None, help="Listen address (default: FRONTIER_JUDGE_HOST or 127.0.0.1)."),
    port: int = typer.Option(None, help="Port (default: FRONTIER_JUDGE_PORT or 8000)."),
) -> None:
    """Run the judge's HTTP API (OpenAPI at /docs). Needs Redis (FRONTIER_REDIS_URL) and workers to judge."""
    from services.judge.api import create_app
    from services.serving import serve_http

    settings = get_settings()
    host, port = host or settings.judge_host, port or settings.judge_port
    serve_http(
        "the judge", create_app(settings), host, port, settings,
        log_level="info", access_log=False, timeout_graceful_shutdown=5,
    )  # fmt: skip


def worker_judge(
    slots: int = typer.Option(None, help="Sandbox slots, judged in parallel (default: FRONTIER_SLOTS or 2)."),
    burst: bool = typer.Option(False, "--burst", help="Exit once the queue is empty."),
) -> None:
    """Run a judge worker: one warm sandbox Engine, pulling jobs from the Redis queue 'judge'.

    Start one per machine (more slots for more cores); any number of machines can join one Redis.
    """
    from services.judge.core.sandbox.privileges import explain
    from services.judge.core.sandbox.slot import SandboxError
    from services.judge.worker.judge import run_worker

    setup_logging()
    try:
        run_worker(get_settings(), slots=slots, burst=burst)
    except SandboxError as err:  # the privileges it lacks and the settings to add, not a traceback
        print(f"error: {explain(err)}", file=sys.stderr)
        raise typer.Exit(2) from None


# `python -m services.judge.cli serve|worker`: what the images and the stack launcher run
service_app = typer.Typer(no_args_is_help=True, add_completion=False, help="The judge's API and workers.")
service_app.command("serve")(serve_judge)
service_app.command("worker")(worker_judge)


def register(app: typer.Typer) -> None:
    app.command("judge")(judge_command)
    app.command("judge-set")(judge_set_command)


def register_service(serve_app: typer.Typer, worker_app: typer.Typer) -> None:
    """`frontier serve judge` and `frontier worker judge`."""
    serve_app.command("judge")(serve_judge)
    worker_app.command("judge")(worker_judge)


if __name__ == "__main__":
    service_app()
