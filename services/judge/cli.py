"""`frontier judge` and `frontier problems ...`: judge a program from a shell, manage problems."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from services.judge.cli_import import import_command
from services.judge.cli_problems import problems_app
from services.judge.models import Submission
from services.judge.problems import ProblemError
from services.judge.verdicts import Verdict

_out = Console()
_err = Console(stderr=True)

EXTENSIONS = {".py": "python", ".cpp": "cpp", ".cc": "cpp", ".cxx": "cpp", ".c++": "cpp"}
COLORS = {Verdict.AC: "green", Verdict.SKIPPED: "dim", Verdict.TLE: "yellow", Verdict.MLE: "yellow"}


def _engine():
    from services.judge.engine import Engine
    from services.judge.sandbox.slot import SandboxError

    try:
        return Engine()
    except SandboxError as err:
        _err.print(f"[red]error:[/red] {err}")
        raise typer.Exit(2) from None


def judge_command(
    problem_dir: Path = typer.Argument(..., help="A problem directory (SPEC section 2)."),
    file: Path = typer.Argument(..., help="The program, or a model completion with --completion."),
    language: str = typer.Option(
        None, "--language", "-l", help="python or cpp (default: from the extension)."
    ),
    mode: str = typer.Option("first_failure", "--mode", help="first_failure (default) or full."),
    completion: bool = typer.Option(
        False, "--completion", help="FILE is model output: judge its last code block."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the SPEC's result object as JSON."),
) -> None:
    """Judge one program against one problem and print verdicts, rewards R_k and the outcome class."""
    from services.judge.problems import load_problem_dir

    language = language or EXTENSIONS.get(file.suffix.lower(), "python")
    if language not in ("python", "cpp"):
        _err.print(f"[red]error:[/red] unsupported language {language!r}; use python or cpp")
        raise typer.Exit(2)
    if mode not in ("first_failure", "full"):
        _err.print("[red]error:[/red] --mode must be first_failure or full")
        raise typer.Exit(2)
    try:
        text = file.read_text()
    except OSError as err:
        _err.print(f"[red]error:[/red] cannot read {file}: {err.strerror}")
        raise typer.Exit(2) from None
    with _engine() as engine:
        try:
            problem = load_problem_dir(problem_dir, engine.store)
        except ProblemError as err:
            _err.print(f"[red]error:[/red] {err}")
            raise typer.Exit(2) from None
        sub = Submission(
            id=file.name,
            problem_id=problem.id,
            language=language,
            **({"completion": text} if completion else {"code": text}),
        )
        result = engine.judge(problem, sub, mode=mode)
    if as_json:
        sys.stdout.write(result.model_dump_json(indent=2) + "\n")
    else:
        _print_result(result)
    raise typer.Exit(0 if result.status == "ok" else 1)


def _print_result(result) -> None:
    if result.status != "ok":
        _err.print(f"[red]judge error:[/red] {result.message}")
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
        _out.print(f"[red]compile output:[/red]\n{result.compile_output}")
    if result.message:
        _out.print(result.message)


def zoo_command(
    root: Path = typer.Argument(Path("problems/bundled"), help="A directory of problems with zoo/ folders."),
    problem: list[str] = typer.Option(None, "--problem", "-p", help="Only these problem ids."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object per variant."),
) -> None:
    """Judge every zoo variant and print the outcome table (per problem, per variant)."""
    from services.judge.zoo import judge_zoo

    with _engine() as engine:
        rows = judge_zoo(engine, root, problem or None)
    if as_json:
        for r in rows:
            print(
                json.dumps(
                    {
                        "problem": r.variant.problem_id,
                        "variant": r.variant.file,
                        "label": r.variant.label,
                        "outcome": r.result.outcome,
                        "first_verdict": r.first_verdict,
                        "expected": r.variant.expected_outcome,
                        "as_expected": r.as_expected,
                    }
                )
            )
    else:
        table = Table(title=f"solution zoo: {len(rows)} variants")
        for col in ("problem", "variant", "label", "outcome", "first failure", "expected", ""):
            table.add_column(col)
        for r in rows:
            ok = "[green]ok[/green]" if r.as_expected else "[red]MISMATCH[/red]"
            exp = r.variant.expected_first_verdict
            table.add_row(
                r.variant.problem_id,
                r.variant.file,
                r.variant.label,
                r.result.outcome.value if r.result.outcome else r.result.status,
                r.first_verdict or "-",
                f"{r.variant.expected_outcome.value} / {exp.value if exp else '-'}",
                ok,
            )
        _out.print(table)
    bad = [r for r in rows if not r.as_expected]
    _out.print(f"{len(rows) - len(bad)}/{len(rows)} variants as expected")
    raise typer.Exit(1 if bad else 0)


def register(app: typer.Typer) -> None:
    app.command("judge")(judge_command)
    problems_app.command("zoo")(zoo_command)
    problems_app.command("import")(import_command)
    app.add_typer(problems_app, name="problems", help="Build, check, import and judge problems.")
