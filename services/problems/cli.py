"""`frontier problems ...`: build the bundled problems' tests, check a problem directory, import
LiveCodeBench, CodeContests+, HumanEval, MBPP or EvalPlus records as problem directories, judge the
solution zoo."""

from __future__ import annotations

import itertools
import json
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text
from tqdm import tqdm

from services.judge.core import build as bundled
from services.judge.core.testlib import build as checker_build
from services.problems import importers
from services.problems.spec import VALIDATOR_NAME
from services.problems.store import ProblemError, TestStore, load_problem_dir
from services.terminal import say

problems_app = typer.Typer(
    no_args_is_help=True, add_completion=False, help="Build, check, import and judge problems."
)
_out = Console()
_err = Console(stderr=True)


@problems_app.command("build")
def build(
    root: Path = typer.Argument(..., help="A directory of bundled problems (e.g. problems/bundled)."),
    seed: int = typer.Option(0, help="Seed of the test generators."),
    force: bool = typer.Option(False, "--force", help="Rebuild even where the cache stamp matches."),
    jobs: int = typer.Option(bundled.DEFAULT_JOBS, "--jobs", "-j", help="Problems built at once."),
) -> None:
    """Generate every problem's tests/ (seeded gen.py, outputs by ref.py) and rewrite the index."""
    if not root.is_dir():
        say(_err, "error:", f"{root} is not a directory")
        raise typer.Exit(1)
    start = time.monotonic()
    results = bundled.build_all(root, seed=seed, force=force, jobs=jobs)
    built = [r for r in results if r.tests_written and not r.error]
    cached = [r for r in results if not r.tests_written and not r.error]
    failed = [r for r in results if r.error]
    for r in failed:
        # one line each, never wrapped at the terminal's width, and the message (a validator's or a
        # generator's words) printed as it is, not read as markup
        say(_err, "error", f"in {r.problem_id}: {r.error}")
    say(
        _out,
        "",
        f"{len(results)} problems: {len(built)} built ({sum(r.tests_written for r in built)} tests), "
        f"{len(cached)} up to date, {len(failed)} failed, in {time.monotonic() - start:.1f} s; "
        f"index: {root / bundled.INDEX_NAME}",
    )
    if failed:
        raise typer.Exit(1)


@problems_app.command("families")
def families_command(
    out: Path = typer.Argument(
        ..., help="Where to write the problem directories (e.g. problems/families/build)."
    ),
    seed: int = typer.Option(0, help="Seed of every instance's parameters and tests."),
    family: list[str] = typer.Option([], "--family", help="Only this family (repeatable); default: all."),
    instances: int = typer.Option(8, min=1, max=64, help="Instances per family (0 .. N-1)."),
) -> None:
    """Render the families miniature's problems (problems/families/*.py, docs/spec.md 12.9) into
    problem directories: statement, tests, ref.py (the efficient program), zoo/ (slow and mistakes)."""
    from services.problems.families import FamilyError, build_families, family_files

    start = time.monotonic()
    n_families = len(family) or len(family_files())
    try:
        with tqdm(total=n_families * instances, desc="families", unit="problem") as bar:
            written = build_families(
                out,
                seed,
                families=family or None,
                instances=range(instances),
                progress=lambda _: bar.update(1),
            )
    except FamilyError as err:
        say(_err, "error:", str(err))
        raise typer.Exit(2) from None
    say(
        _out,
        "",
        f"{len(written)} problems written under {out} (seed {seed}) in {time.monotonic() - start:.1f} s",
    )


@problems_app.command("check")
def check(problem_dir: Path = typer.Argument(..., help="One problem directory.")) -> None:
    """Validate one problem directory (problem.json, statement, checker, tests, zoo) and summarize it."""
    try:
        with tempfile.TemporaryDirectory(prefix="frontier-check-") as tmp:
            problem = load_problem_dir(problem_dir, TestStore(Path(tmp)))
        zoo = bundled.load_zoo(problem_dir) if (problem_dir / "zoo").exists() else []
        checker = problem.spec.checker
        program = getattr(checker, "type", None) == "program"
        if program and checker.language == "python" and problem.checker_source is not None:
            error = checker_build.python_errors(problem.checker_source)  # only parsed
            if error is not None:
                raise checker_build.CheckerDoesNotCompile(f"checker does not compile: {error}")
            program = False
        validator = (problem_dir / VALIDATOR_NAME).is_file()
        if program or validator:  # compiled once and run in this machine's sandbox, never on the host
            from services.judge.core import checks

            with checks.local_engine() as engine:
                checks.check_problem(engine, problem)  # a program checker compiles
                if validator:  # and a validator passes every input
                    inputs = [
                        (t.name, (problem_dir / "tests" / f"{t.name}.in").read_bytes()) for t in problem.tests
                    ]
                    source, latin1 = checks.read_source(problem_dir / VALIDATOR_NAME)
                    refused = checks.validate(engine, source, inputs, latin1=latin1)
                    if refused is not None:
                        name, why = refused
                        raise bundled.BundledError(
                            f"{problem_dir / VALIDATOR_NAME}: test {name} is not a valid input: {why}"
                        )
    except checker_build.CheckerDoesNotCompile as err:
        say(_err, "error:", f"{problem_dir}: {err}")
        raise typer.Exit(1) from None
    except ProblemError as err:
        say(_err, "error:", str(err))
        if (problem_dir / "gen.py").is_file() and not (problem_dir / "tests").is_dir():
            say(_err, "", f"hint: generate its tests with `frontier problems build {problem_dir.parent}`")
        raise typer.Exit(1) from None
    summary = problem.summary()
    table = Table(show_header=False, box=None)
    for key, value in summary.items():  # the problem's own words (a title, a checker's name): as written
        table.add_row(key, Text(str(value)))
    table.add_row("statement", f"{len(problem.statement)} characters" if problem.statement else "(missing)")
    table.add_row("zoo", Text(", ".join(f"{v.label}:{v.file}" for v in zoo) or "(none)"))
    if (problem_dir / "gen.py").is_file() and (problem_dir / "ref.py").is_file():
        fresh = bundled.is_up_to_date(problem_dir)
        table.add_row(
            "tests", "up to date" if fresh else "[yellow]stale: run `frontier problems build`[/yellow]"
        )
    _out.print(table)
    if not problem.statement:
        say(_err, "warning:", f"{problem_dir}: no statement", style="yellow")


class ImportFormat(StrEnum):
    livecodebench = "livecodebench"
    codecontests_plus = "codecontests-plus"
    humaneval = "humaneval"
    mbpp = "mbpp"
    evalplus = "evalplus"


class DifficultyChoice(StrEnum):
    easy = "easy"
    medium = "medium"
    hard = "hard"


@problems_app.command("import")
def import_command(
    format: Annotated[ImportFormat, typer.Option("--format", "-f", help="The records' format.")],
    file: Annotated[
        Path,
        typer.Argument(
            help="A local JSONL, JSON-array or parquet file of records; with --from-hub, the release "
            "(LiveCodeBench, e.g. release_v6) or config (CodeContests+, e.g. 1x) to stream from the hub."
        ),
    ],
    out_dir: Annotated[Path, typer.Argument(help="Where to write one problem directory per record.")],
    start_date: Annotated[
        datetime | None,
        typer.Option(formats=["%Y-%m-%d"], help="Only contests on or after this date (LiveCodeBench)."),
    ] = None,
    end_date: Annotated[
        datetime | None,
        typer.Option(formats=["%Y-%m-%d"], help="Only contests on or before this date (LiveCodeBench)."),
    ] = None,
    difficulty: Annotated[
        list[DifficultyChoice] | None, typer.Option(help="Only these difficulties (repeatable).")
    ] = None,
    limit: Annotated[int | None, typer.Option(min=1, help="Stop after this many problems.")] = None,
    platform: Annotated[
        list[str] | None,
        typer.Option(help="Only these platforms, e.g. leetcode, atcoder, codeforces (repeatable)."),
    ] = None,
    time_limit_ms: Annotated[
        int | None,
        typer.Option(min=1, help="Override the time limit (default: the record's, else the format's)."),
    ] = None,
    memory_limit_mb: Annotated[int | None, typer.Option(min=1, help="Override the memory limit.")] = None,
    from_hub: Annotated[
        bool, typer.Option("--from-hub", help="Stream the records from the hub (needs network).")
    ] = False,
) -> None:
    """Import benchmark records as problem directories (problem.json, statement.md, tests/, checker)."""
    from services.problems import benchmarks

    if format.value in benchmarks.FORMATS:
        if from_hub or start_date or end_date or difficulty or platform:
            _err.print(
                f"[red]error:[/red] --format {format.value} reads a local .jsonl or .jsonl.gz file; "
                "--from-hub, --start-date, --end-date, --difficulty and --platform do not apply"
            )
            raise typer.Exit(2)
        _import_benchmark(format.value, file, out_dir, limit, time_limit_ms, memory_limit_mb)
        return
    selection = importers.Selection(
        start_date=start_date.date() if start_date else None,
        end_date=end_date.date() if end_date else None,
        difficulties=frozenset(d.value for d in difficulty or []),
        platforms=frozenset(platform or []),
    )
    if selection.start_date and selection.end_date and selection.start_date > selection.end_date:
        _err.print("[red]error:[/red] --start-date is after --end-date")
        raise typer.Exit(2)

    if from_hub:
        if format is ImportFormat.livecodebench:
            records = importers.livecodebench_hub_records(str(file))
        else:
            records = importers.codecontests_plus_hub_records(str(file))
        total = None
    else:
        if not file.is_file():
            say(_err, "error:", f"{file}: no such file")
            raise typer.Exit(2)
        records = importers.iter_records(file)
        total = importers.count_records(file)

    read = 0

    def counted(items: Iterator[importers.Located]) -> Iterator[importers.Located]:
        nonlocal read
        for item in items:
            read += 1
            bar.update(1)
            yield item

    out_dir.mkdir(parents=True, exist_ok=True)
    written = refused = 0

    def refuse(err: ProblemError) -> None:  # one record refused, named by its line; the rest are read
        nonlocal refused
        refused += 1
        say(_err, "error:", str(err))

    try:
        # the store only stages each problem's tests on their way into its directory
        with (
            tempfile.TemporaryDirectory(prefix=".import-store-", dir=out_dir) as tmp,
            tqdm(total=total, desc=f"importing {format.value}", unit="record") as bar,
        ):
            store = TestStore(Path(tmp))
            if format is ImportFormat.livecodebench:
                problems = importers.load_livecodebench(
                    counted(records),
                    store,
                    selection,
                    time_limit_ms=time_limit_ms or importers.LCB_TIME_LIMIT_MS,
                    memory_limit_mb=memory_limit_mb or importers.LCB_MEMORY_LIMIT_MB,
                    refuse=refuse,
                )
            else:
                problems = importers.load_codecontests_plus(
                    counted(records), store, selection, time_limit_ms, memory_limit_mb, refuse=refuse
                )
            for problem in itertools.islice(problems, limit):
                importers.write_problem_dir(problem, store, out_dir / problem.id)
                written += 1
                # staged blobs are not needed once copied out; a later problem re-stages what it shares
                for t in problem.tests:
                    for digest in (t.input_sha256, t.output_sha256):
                        store.path(digest).unlink(missing_ok=True)
    except (ProblemError, OSError, UnicodeDecodeError) as err:
        # OSError: an unreadable file, a full disk, or the hub out of reach
        say(_err, "error:", str(err))
        say(_err, "", f"{written} problems were written to {out_dir} before the error")
        raise typer.Exit(1) from None
    say(
        _out,
        "",
        f"{written} problems written to {out_dir} ({read - written} records read and not imported, "
        f"{refused} of them refused)",
    )
    if refused:
        raise typer.Exit(1)


def _import_benchmark(
    fmt: str,
    file: Path,
    out_dir: Path,
    limit: int | None,
    time_limit_ms: int | None,
    memory_limit_mb: int | None,
) -> None:
    """HumanEval, MBPP or EvalPlus records as assert problems: a bad record is refused with its line
    and field and the rest are imported; the exit status is 1 when any record was refused."""
    from services.problems import benchmarks

    convert = benchmarks.CONVERTERS[fmt]
    limits = {"time_limit_ms": time_limit_ms, "memory_limit_mb": memory_limit_mb}
    written, refused = 0, 0
    try:
        records = benchmarks.read_records(file)
        out_dir.mkdir(parents=True, exist_ok=True)
        with (
            tempfile.TemporaryDirectory(prefix=".import-store-", dir=out_dir) as tmp,
            tqdm(desc=f"importing {fmt}", unit="record") as bar,
        ):
            store = TestStore(Path(tmp))
            for where, record in records:
                if limit is not None and written >= limit:
                    break
                bar.update(1)
                try:
                    if isinstance(record, ProblemError):
                        raise record
                    imported = convert(record, store, where, **limits)
                    problem = imported.problem
                    importers.write_problem_dir(problem, store, out_dir / problem.id)
                    if imported.canonical is not None:
                        (out_dir / problem.id / benchmarks.CANONICAL_NAME).write_text(imported.canonical)
                except ProblemError as err:
                    refused += 1
                    tqdm.write(f"refused {err}", file=sys.stderr)
                    continue
                written += 1
                for t in problem.tests:
                    for digest in (t.input_sha256, t.output_sha256):
                        store.path(digest).unlink(missing_ok=True)
    except (ProblemError, OSError) as err:
        say(_err, "error:", str(err))
        say(_err, "", f"{written} problems imported, {refused} records refused before the error")
        raise typer.Exit(1) from None
    say(_out, "", f"{written} problems imported, {refused} records refused; in {out_dir}")
    if refused:
        raise typer.Exit(1)


@problems_app.command("zoo")
def zoo_command(
    root: Path = typer.Argument(Path("problems/bundled"), help="A directory of problems with zoo/ folders."),
    problem: list[str] = typer.Option(None, "--problem", "-p", help="Only these problem ids."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object per variant."),
) -> None:
    """Judge every zoo variant and print the outcome table (per problem, per variant)."""
    from services.judge.cli import engine_or_exit
    from services.judge.core.zoo import judge_zoo

    with engine_or_exit() as engine:
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
            cells = (
                r.variant.problem_id,
                r.variant.file,
                r.variant.label,
                r.result.outcome.value if r.result.outcome else r.result.status,
                r.first_verdict or "-",
                f"{r.variant.expected_outcome.value} / {exp.value if exp else '-'}",
            )
            table.add_row(*(Text(c) for c in cells), ok)  # file names and labels as written
        _out.print(table)
    bad = [r for r in rows if not r.as_expected]
    _out.print(f"{len(rows) - len(bad)}/{len(rows)} variants as expected")
    raise typer.Exit(1 if bad else 0)
