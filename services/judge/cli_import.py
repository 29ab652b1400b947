"""`frontier problems import`: LiveCodeBench or CodeContests+ records to SPEC problem directories."""

from __future__ import annotations

import itertools
import tempfile
from collections.abc import Iterator
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from services.judge import loaders
from services.judge.problems import ProblemError, TestStore

_out = Console()
_err = Console(stderr=True)


class ImportFormat(StrEnum):
    livecodebench = "livecodebench"
    codecontests_plus = "codecontests-plus"


class DifficultyChoice(StrEnum):
    easy = "easy"
    medium = "medium"
    hard = "hard"


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
    selection = loaders.Selection(
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
            records = loaders.livecodebench_hub_records(str(file))
        else:
            records = loaders.codecontests_plus_hub_records(str(file))
        total = None
    else:
        if not file.is_file():
            _err.print(f"[red]error:[/red] {file}: no such file")
            raise typer.Exit(2)
        records = loaders.iter_records(file)
        total = loaders.count_records(file)

    read = 0

    def counted(items: Iterator[loaders.Located]) -> Iterator[loaders.Located]:
        nonlocal read
        for item in items:
            read += 1
            progress.advance(task)
            yield item

    out_dir.mkdir(parents=True, exist_ok=True)
    written = 0
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    try:
        # the store only stages each problem's tests on their way into its directory
        with (
            tempfile.TemporaryDirectory(prefix=".import-store-", dir=out_dir) as tmp,
            Progress(*columns, console=_err, transient=False) as progress,
        ):
            task = progress.add_task(f"importing {format.value}", total=total)
            store = TestStore(Path(tmp))
            if format is ImportFormat.livecodebench:
                problems = loaders.load_livecodebench(
                    counted(records),
                    store,
                    selection,
                    time_limit_ms=time_limit_ms or loaders.LCB_TIME_LIMIT_MS,
                    memory_limit_mb=memory_limit_mb or loaders.LCB_MEMORY_LIMIT_MB,
                )
            else:
                problems = loaders.load_codecontests_plus(
                    counted(records), store, selection, time_limit_ms, memory_limit_mb
                )
            for problem in itertools.islice(problems, limit):
                loaders.write_problem_dir(problem, store, out_dir / problem.id)
                written += 1
                # staged blobs are not needed once copied out; a later problem re-stages what it shares
                for t in problem.tests:
                    for digest in (t.input_sha256, t.output_sha256):
                        store.path(digest).unlink(missing_ok=True)
    except (ProblemError, OSError) as err:
        # OSError: an unreadable file, a full disk, or the hub out of reach
        _err.print(f"[red]error:[/red] {err}")
        _err.print(f"{written} problems were written to {out_dir} before the error")
        raise typer.Exit(1) from None
    _out.print(f"{written} problems written to {out_dir} ({read - written} records read and not imported)")
