"""`frontier judge BENCHMARK COMPLETIONS.jsonl`: a file of completions judged in one call (docs/spec.md
4.9), on this machine's sandbox or over HTTP as batches, with progress, per-record results as JSONL and
a pass@k summary (the evaluator's unbiased estimator).

A completions record names its problem by `task_id` (the benchmark's, e.g. "HumanEval/0", as imported
into the problem's metadata) or `problem_id` (the problem directory's name), and carries its program as
`solution` (a whole program, EvalPlus's name) or `completion` (HumanEval's: the text that follows the
prompt, or a whole program that defines the entry point itself; a completion holding a fenced code
block is model output, and its last Python block is judged). `language` defaults to python.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from services.judge.core.models import JudgeResult, Submission
from services.judge.core.options import JudgeOptions
from services.judge.core.verdicts import Outcome
from services.passk import mean_pass_at_k, report_ks
from services.problems.benchmarks import BenchmarkError, program_for, read_records
from services.problems.store import Problem, ProblemError, TestStore, load_problem_dir


class SetError(ValueError):
    """The benchmark or the completions file cannot be judged at all."""


@dataclass(frozen=True)
class Item:
    line: str  # where the record is, e.g. "samples.jsonl:12"
    task_id: str
    problem: Problem
    submission: Submission


def load_benchmark(root: Path, store: TestStore) -> dict[str, Problem]:
    """Every problem directory under `root` (one level), by problem id and by its metadata's task_id."""
    root = Path(root)
    if not root.is_dir():
        raise SetError(f"{root}: not a directory of problems")
    if (root / "problem.json").is_file():
        dirs = [root]
    else:
        dirs = sorted(p for p in root.iterdir() if (p / "problem.json").is_file())
    if not dirs:
        raise SetError(f"{root}: holds no problem directories (none has a problem.json)")
    out: dict[str, Problem] = {}
    for d in dirs:
        try:
            problem = load_problem_dir(d, store)
        except ProblemError as err:
            raise SetError(f"{d}: {err}") from None
        out[problem.id] = problem
        task_id = problem.spec.metadata.get("task_id")
        if isinstance(task_id, str | int) and str(task_id) not in out:
            out[str(task_id)] = problem
    return out


def read_completions(path: Path, problems: dict[str, Problem], refuse: Callable[[str], None]) -> list[Item]:
    """The judgeable records of a completions file; each other record is passed to `refuse` with its
    line and what is wrong, and left out."""
    items: list[Item] = []
    try:
        records = list(read_records(path))
    except BenchmarkError as err:
        raise SetError(str(err)) from None
    for where, rec in records:
        if isinstance(rec, BenchmarkError):
            refuse(str(rec))
            continue
        key = rec.get("task_id", rec.get("problem_id"))
        if not isinstance(key, str | int):
            refuse(f"{where}: field 'task_id' (or 'problem_id'): missing")
            continue
        problem = problems.get(str(key))
        if problem is None:
            refuse(f"{where}: field 'task_id': {str(key)!r} is no problem of the benchmark")
            continue
        language = rec.get("language", "python")
        solution, completion = rec.get("solution"), rec.get("completion")
        text = solution if solution is not None else completion
        if not isinstance(text, str) or not isinstance(language, str):
            refuse(f"{where}: field 'solution' (or 'completion'): a string is needed")
            continue
        sid = f"{len(items)}"
        try:
            if solution is None and "```" in text:
                sub = Submission(id=sid, problem_id=problem.id, language=language, completion=text)
            else:
                code = text if solution is not None else program_for(problem, text)
                sub = Submission(id=sid, problem_id=problem.id, language=language, code=code)
        except ValueError as err:  # pydantic's ValidationError is a ValueError
            refuse(f"{where}: {str(err).splitlines()[0]}")
            continue
        items.append(Item(where, str(key), problem, sub))
    return items


def judge_local(
    engine, items: Sequence[Item], options: JudgeOptions, progress: Callable[[], None]
) -> list[JudgeResult]:
    """Every item on the engine's slots in parallel, with `options`; results in the items' order."""
    results: list[JudgeResult | None] = [None] * len(items)
    # announced: a fan-out (docs/spec.md 4.10) takes only the slots no item is left to take
    with ThreadPoolExecutor(engine.n_slots) as pool, engine.queued(len(items)) as queued:
        futures = {
            pool.submit(engine.judge, it.problem, it.submission, options, queued=queued): i
            for i, it in enumerate(items)
        }
        for future in as_completed(futures):
            results[futures[future]] = future.result()
            progress()
    return [r for r in results if r is not None]


def judge_http(
    client, problem_dirs: dict[str, Path], items: Sequence[Item], options: JudgeOptions, progress
) -> list[JudgeResult]:
    """Upload the problems the items use, submit the items as batches (one while it fits the client's
    batch size) and follow them until done; results in the items' order."""
    for pid in dict.fromkeys(it.problem.id for it in items):
        client.put_problem_dir(problem_dirs[pid], pid)
    subs = [it.submission for it in items]
    size = max(1, client.batch_size)
    batches = [client.submit(subs[i : i + size], options) for i in range(0, len(subs), size)]
    shown = 0
    done: dict[str, list[JudgeResult]] = {}
    while len(done) < len(batches):
        judged = 0
        for bid in batches:
            if bid in done:
                judged += len(done[bid])
                continue
            state = client.batch(bid, wait_s=2.0)
            if state["status"] == "done":
                done[bid] = [JudgeResult.model_validate(r) for r in state["results"]]
                judged += len(done[bid])
            else:
                judged += int(state["judged"] * state["submissions"] / max(1, state["distinct"]))
        for _ in range(min(judged, len(subs)) - shown):
            progress()
        shown = max(shown, min(judged, len(subs)))
        if len(done) < len(batches):
            time.sleep(0.2)
    return [r for bid in batches for r in done[bid]]


def result_record(item: Item, result: JudgeResult) -> dict[str, Any]:
    """One line of the results file: the record's place and task, then the judge's result object."""
    return {
        "line": item.line,
        "task_id": item.task_id,
        "passed": result.outcome == Outcome.CORRECT,
        **result.model_dump(mode="json", exclude_none=True),
    }


def summary(items: Sequence[Item], results: Sequence[JudgeResult]) -> dict[str, Any]:
    """pass@k over the benchmark's problems that have completions (k up to the fewest samples a
    problem has), with the counts it comes from; judge errors are counted apart, never as failures."""
    counts: dict[str, list[int]] = {}
    errors = 0
    for it, r in zip(items, results, strict=True):
        n_c = counts.setdefault(it.problem.id, [0, 0])
        if r.status != "ok":
            errors += 1
            continue
        n_c[0] += 1
        n_c[1] += r.outcome == Outcome.CORRECT
    judged = [(n, c) for n, c in counts.values() if n > 0]
    out: dict[str, Any] = {
        "records": len(items),
        "problems": len(judged),
        "correct": sum(c for _, c in judged),
        "judge_errors": errors,
        "pass_at_k": {},
    }
    if judged:
        for k in report_ks(min(n for n, _ in judged)):
            out["pass_at_k"][f"pass@{k}"] = round(mean_pass_at_k(judged, k), 6)
    return out


def write_jsonl(path: Path | None, rows: Iterator[dict]) -> None:
    import sys

    f = sys.stdout if path is None else open(path, "w")  # noqa: SIM115
    try:
        for row in rows:
            f.write(json.dumps(row) + "\n")
    finally:
        if path is not None:
            f.close()
        else:
            f.flush()
