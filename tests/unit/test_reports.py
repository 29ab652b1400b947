"""Reports rebuilt from a run directory (samples.jsonl + run.json), and the run directory's records."""

from __future__ import annotations

import json
import math
import random
import struct
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import typer
from matplotlib.image import imread
from typer.testing import CliRunner

from services.evaluator.cli import register
from services.evaluator.records import (
    CheckpointInfo,
    RunMeta,
    SampleRecord,
    append_samples,
    judged_keys,
    read_samples,
    write_run_meta,
)
from services.evaluator.reports import build_report
from services.judge.core.models import FirstFailure, JudgeResult

# A synthetic sweep: 5 checkpoints along alpha, 5 problems, 10 samples each. CORRECT[problem][i] is
# how many samples of checkpoint i are correct; the failures move from optimization to correctness
# failures as alpha grows. h1 is solved only at alpha -0.5, h2 only at 1.5.
ALPHAS = [-0.5, 0.0, 0.5, 1.0, 1.5]
NAMES = [f"alpha_{a:g}" for a in ALPHAS]
N_SAMPLES = 10
CORRECT = {
    "e1": [10, 9, 8, 7, 6],
    "e2": [3, 4, 2, 1, 0],
    "m1": [0, 2, 3, 0, 0],
    "h1": [2, 0, 0, 0, 0],
    "h2": [0, 0, 0, 0, 1],
}
DIFFICULTY = {"e1": "easy", "e2": "easy", "m1": "medium", "h1": "hard", "h2": "hard"}
JUDGE_ERROR = ("alpha_1.5", "h1", 9)  # one sample the judge failed on: h1 has 9 judged samples there


def _synthetic_records(n_samples: int = N_SAMPLES) -> list[SampleRecord]:
    records = []
    for i, (name, alpha) in enumerate(zip(NAMES, ALPHAS, strict=True)):
        for problem, correct in CORRECT.items():
            c = correct[i] * n_samples // N_SAMPLES
            optimization = (n_samples - c) * (4 - i) // 4
            for s in range(n_samples):
                common = dict(
                    checkpoint=name,
                    alpha=alpha,
                    problem_id=problem,
                    difficulty=DIFFICULTY[problem],
                    sample_index=s,
                )
                if (name, problem, s) == JUDGE_ERROR:
                    records.append(
                        SampleRecord(**common, status="judge_error", message="sandbox did not start")
                    )
                    continue
                if s < c:
                    outcome = "correct"
                elif s - c < optimization:
                    outcome = "optimization_failure"
                elif s == n_samples - 1 and i == 2:
                    outcome = "format_error"
                else:
                    outcome = "correctness_failure"
                records.append(
                    SampleRecord(
                        **common,
                        outcome=outcome,
                        rewards={"R_1": int(outcome == "correct"), "R_inf": int(outcome == "correct")},
                        completion=f"```python\nprint({s})\n```",
                        seed=1000 + s,
                    )
                )
    return records


def _make_run(run_dir: Path, records: list[SampleRecord], n_samples: int = N_SAMPLES) -> Path:
    meta = RunMeta(
        checkpoints=[CheckpointInfo(name=n, alpha=a) for n, a in zip(NAMES, ALPHAS, strict=True)],
        benchmark="synthetic",
        n_samples=n_samples,
        temperature=0.8,
        seeds=[1000],
        backend="transformers",  # a field run.json may carry beyond the required ones
    )
    write_run_meta(run_dir, meta)
    append_samples(run_dir / "samples.jsonl", records)
    return run_dir


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    run_dir = _make_run(tmp_path_factory.mktemp("run"), _synthetic_records())
    result = build_report(run_dir)
    return run_dir, result, json.loads((run_dir / "report.json").read_text())


def _n_c(checkpoint: str, problem: str) -> tuple[int, int]:
    n = N_SAMPLES - ((checkpoint, problem) == JUDGE_ERROR[:2])
    return n, CORRECT[problem][NAMES.index(checkpoint)]


def _formula_pass(n: int, c: int, k: int) -> float:
    return 1 - math.comb(n - c, k) / math.comb(n, k)


# --- the files ---------------------------------------------------------------------------------------


def test_build_report_writes_json_markdown_and_four_plots(built):
    run_dir, result, _ = built
    assert result["report_json"] == str(run_dir / "report.json")
    assert result["report_md"] == str(run_dir / "report.md")
    assert set(result["plots"]) == {"outcomes", "frontier", "pass_at_k", "ensemble"}
    for path in [result["report_json"], result["report_md"], *result["plots"].values()]:
        assert Path(path).is_file() and Path(path).stat().st_size > 0


@pytest.mark.parametrize("plot", ["outcomes", "frontier", "pass_at_k", "ensemble"])
def test_plots_are_valid_pngs_of_non_trivial_size_and_content(built, plot):
    _, result, _ = built
    data = Path(result["plots"][plot]).read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert width >= 400 and height >= 300
    assert len(data) > 10_000
    pixels = imread(result["plots"][plot])
    assert pixels.shape[:2] == (height, width)
    assert np.unique(pixels[::3, ::3].reshape(-1, pixels.shape[-1]), axis=0).shape[0] > 20  # drawn, not blank


def test_summary_names_each_checkpoint_with_its_numbers(built):
    _, result, report = built
    assert [ck["name"] for ck in result["summary"]["checkpoints"]] == NAMES
    first = result["summary"]["checkpoints"][0]
    assert first["correct"] == pytest.approx(15 / 50)
    assert first["pass_at_1"] == pytest.approx(15 / 50)
    assert result["summary"]["totals"] == report["totals"]


# --- the numbers in report.json ----------------------------------------------------------------------


def test_report_totals_and_checkpoints_in_alpha_order_with_regions(built):
    _, _, report = built
    assert report["totals"] == {"samples": 250, "judged": 249, "judge_errors": 1, "problems": 5}
    assert [ck["name"] for ck in report["checkpoints"]] == NAMES
    assert [ck["region"] for ck in report["checkpoints"]] == [
        "extrapolation",
        "interpolation",
        "interpolation",
        "interpolation",
        "extrapolation",
    ]
    assert [ck["judge_errors"] for ck in report["checkpoints"]] == [0, 0, 0, 0, 1]
    assert report["run"]["benchmark"] == "synthetic" and report["run"]["n_samples"] == N_SAMPLES


def test_report_outcome_fractions_match_a_direct_count(built):
    _, _, report = built
    records = _synthetic_records()
    for name in NAMES:
        judged = [r for r in records if r.checkpoint == name and r.status == "ok"]
        counts = Counter(r.outcome.value for r in judged)
        got = report["outcome_fractions"][name]["overall"]
        assert got["judged"] == len(judged)
        assert got["fractions"] == pytest.approx({o: counts[o] / len(judged) for o in got["fractions"]})
        for difficulty in ["easy", "medium", "hard"]:
            mine = [r for r in judged if r.difficulty == difficulty]
            per = Counter(r.outcome.value for r in mine)
            got = report["outcome_fractions"][name]["by_difficulty"][difficulty]
            assert got["fractions"] == pytest.approx({o: per[o] / len(mine) for o in got["fractions"]})
    # by hand: alpha -0.5 solves 10 + 3 + 0 + 2 + 0 of 50, and fails every other sample by being slow
    assert report["outcome_fractions"]["alpha_-0.5"]["overall"]["fractions"] == pytest.approx(
        {"correct": 0.3, "optimization_failure": 0.7, "correctness_failure": 0.0, "format_error": 0.0}
    )


def test_report_pass_at_k_matches_the_formula_for_every_checkpoint_and_k(built):
    _, _, report = built
    assert report["ks"] == [1, 2, 4, 8, 10]
    for name in NAMES:
        for row in report["pass_at_k"][name]["overall"]:
            k = row["k"]
            usable = [p for p in CORRECT if _n_c(name, p)[0] >= k]
            assert row["problems"] == len(usable)
            assert row["value"] == pytest.approx(
                sum(_formula_pass(*_n_c(name, p), k) for p in usable) / len(usable)
            )


def test_report_pass_at_k_leaves_out_a_problem_with_fewer_than_k_judged_samples(built):
    _, _, report = built
    last = report["pass_at_k"]["alpha_1.5"]["overall"][-1]
    assert (last["k"], last["problems"], last["excluded"]) == (10, 4, ["h1"])
    assert report["pass_at_k"]["alpha_1"]["overall"][-1]["excluded"] == []


def test_report_ensemble_matches_the_formula_at_each_matched_budget(built):
    _, _, report = built
    ensemble = report["ensemble"]
    assert ensemble["pool"] == NAMES
    assert ensemble["budgets"] == [5, 10]
    rows = {row["budget"]: row for row in ensemble["overall"]}
    for budget, problems in [(5, list(CORRECT)), (10, [p for p in CORRECT if p != "h1"])]:
        row, per = rows[budget], budget // len(NAMES)
        expected_ensemble = sum(
            1 - math.prod(math.comb(n - c, per) / math.comb(n, per) for n, c in (_n_c(ck, p) for ck in NAMES))
            for p in problems
        ) / len(problems)
        singles = {
            ck: sum(_formula_pass(*_n_c(ck, p), budget) for p in problems) / len(problems) for ck in NAMES
        }
        best = max(singles, key=singles.get)
        assert row["problems"] == len(problems)
        assert row["per_checkpoint"] == per
        assert row["ensemble"] == pytest.approx(expected_ensemble)
        assert row["singles"] == pytest.approx(singles)
        assert (row["best_checkpoint"], row["best_single"]) == (best, pytest.approx(singles[best]))
        assert row["gain"] == pytest.approx(expected_ensemble - singles[best])


def test_report_churn_finds_the_unique_solves_of_the_extrapolated_points(built):
    _, _, report = built
    churn = report["churn"]
    assert churn["solved"]["alpha_-0.5"] == ["e1", "e2", "h1"]
    assert churn["unique_solves"] == {
        "alpha_-0.5": ["h1"],
        "alpha_0": [],
        "alpha_0.5": [],
        "alpha_1": [],
        "alpha_1.5": ["h2"],
    }
    assert churn["extrapolation_only_solves"] == {"alpha_-0.5": ["h1"], "alpha_1.5": ["h2"]}
    assert churn["solved_by_all"] == ["e1"]
    assert churn["solved_by_any"] == ["e1", "e2", "h1", "h2", "m1"]
    assert churn["jaccard"]["alpha_0"]["alpha_0.5"] == 1.0
    assert churn["jaccard"]["alpha_-0.5"]["alpha_1.5"] == pytest.approx(1 / 4)  # {e1} of {e1,e2,h1,h2}


def test_report_holds_every_sample_and_per_problem_results(built):
    _, _, report = built
    assert len(report["samples"]) == 250
    error = [s for s in report["samples"] if s["status"] == "judge_error"]
    assert [(s["checkpoint"], s["problem_id"], s["sample_index"]) for s in error] == [JUDGE_ERROR]
    assert error[0]["outcome"] is None and error[0]["rewards"] is None
    h1 = next(p for p in report["problems"] if p["problem_id"] == "h1")
    assert h1["difficulty"] == "hard"
    assert h1["results"]["alpha_-0.5"]["correct"] == 2
    assert h1["results"]["alpha_1.5"]["n"] == 9 and h1["results"]["alpha_1.5"]["judge_errors"] == 1


def test_report_samples_leave_the_completion_text_in_samples_jsonl_unless_asked(built, tmp_path):
    _, _, report = built
    assert report["samples_file"] == "samples.jsonl"
    assert all("completion" not in s for s in report["samples"])
    run_dir = _make_run(tmp_path / "run", _synthetic_records())
    with_text = json.loads(Path(build_report(run_dir, include_completions=True)["report_json"]).read_text())
    assert with_text["samples"][0]["completion"] == "```python\nprint(0)\n```"


# --- report.md ---------------------------------------------------------------------------------------


def test_markdown_holds_the_tables_a_person_reads(built):
    run_dir, _, _ = built
    md = (run_dir / "report.md").read_text()
    for heading in [
        "## Outcome fractions",
        "## The frontier",
        "## pass@k",
        "## Ensemble at a matched budget",
    ]:
        assert heading in md
    assert "### easy" in md and "### hard" in md
    assert "- backend: transformers" in md
    assert "| α=-0.5 | 50 | 30.0% | 70.0% | 0.0% | 0.0% |" in md
    assert "| checkpoint | pass@1 | pass@2 | pass@4 | pass@8 | pass@10 |" in md
    assert "| α=-0.5 | 0.300 |" in md
    assert "0.500†" in md  # alpha 1.5's pass@10 is over 4 problems, marked
    assert "| α=1.5 | 2 | 1 | `h2` |" in md
    for plot in ["outcomes", "frontier", "pass_at_k", "ensemble"]:
        assert f"(plots/{plot}.png)" in md


# --- rebuilding --------------------------------------------------------------------------------------


def test_rebuilding_gives_identical_files(built, tmp_path):
    run_dir, result, _ = built
    before = {
        p: Path(p).read_bytes()
        for p in [result["report_json"], result["report_md"], *result["plots"].values()]
    }
    again = build_report(run_dir)
    after = {
        p: Path(p).read_bytes() for p in [again["report_json"], again["report_md"], *again["plots"].values()]
    }
    assert after == before


def test_judging_order_does_not_change_the_report(built, tmp_path):
    run_dir, _, _ = built
    shuffled = _synthetic_records()
    random.Random(7).shuffle(shuffled)
    other = _make_run(tmp_path / "shuffled", shuffled)
    build_report(other)
    assert (other / "report.json").read_bytes() == (run_dir / "report.json").read_bytes()
    assert (other / "report.md").read_bytes() == (run_dir / "report.md").read_bytes()


def test_a_retried_judge_error_replaces_the_earlier_record(tmp_path):
    run_dir = _make_run(tmp_path / "run", _synthetic_records())
    name, problem, index = JUDGE_ERROR
    append_samples(
        run_dir / "samples.jsonl",
        [
            SampleRecord(
                checkpoint=name,
                alpha=1.5,
                problem_id=problem,
                difficulty="hard",
                sample_index=index,
                outcome="correct",
            )
        ],
    )
    report = json.loads(Path(build_report(run_dir)["report_json"]).read_text())
    assert report["totals"] == {"samples": 250, "judged": 250, "judge_errors": 0, "problems": 5}
    assert report["churn"]["solved"]["alpha_1.5"] == ["e1", "h1", "h2"]


def test_no_matched_budget_is_said_not_plotted_as_zero(tmp_path):
    # 5 checkpoints, 4 samples each: no budget is a multiple of 5 within 4 samples
    run_dir = _make_run(tmp_path / "run", _synthetic_records(n_samples=4), n_samples=4)
    result = build_report(run_dir)
    report = json.loads(Path(result["report_json"]).read_text())
    assert report["ensemble"]["budgets"] == [] and report["ensemble"]["overall"] == []
    assert "No matched budget: the pool of M=5 checkpoints" in Path(result["report_md"]).read_text()
    assert Path(result["plots"]["ensemble"]).read_bytes()[:4] == b"\x89PNG"


# --- the CLI -----------------------------------------------------------------------------------------


def _cli() -> typer.Typer:
    app = typer.Typer()

    @app.callback()
    def _root() -> None:
        """frontier"""

    register(app)
    return app


def test_frontier_report_rebuilds_and_prints_the_paths(tmp_path):
    run_dir = _make_run(tmp_path / "run", _synthetic_records())
    out = CliRunner().invoke(_cli(), ["report", str(run_dir)])
    assert out.exit_code == 0, out.output
    printed = out.output.split()
    assert printed[:2] == [str(run_dir / "report.json"), str(run_dir / "report.md")]
    assert len(printed) == 6 and all(Path(p).is_file() for p in printed)


def test_frontier_report_on_a_directory_without_run_json_fails_clearly(tmp_path):
    out = CliRunner().invoke(_cli(), ["report", str(tmp_path)])
    assert out.exit_code == 2
    assert "run.json" in out.output and "error:" in out.output


# --- records and samples.jsonl -----------------------------------------------------------------------


def test_a_verdict_needs_an_outcome_and_a_judge_error_has_none():
    with pytest.raises(ValueError, match="needs an outcome"):
        SampleRecord(checkpoint="c", problem_id="p", sample_index=0)
    with pytest.raises(ValueError, match="has no outcome"):
        SampleRecord(checkpoint="c", problem_id="p", sample_index=0, status="judge_error", outcome="correct")


def test_reading_drops_a_line_cut_off_by_a_kill_and_appending_repairs_it(tmp_path):
    path = tmp_path / "samples.jsonl"
    first = SampleRecord(checkpoint="c", problem_id="p", sample_index=0, outcome="correct")
    second = SampleRecord(checkpoint="c", problem_id="p", sample_index=1, outcome="format_error")
    append_samples(path, [first])
    with path.open("a") as f:
        f.write(second.model_dump_json()[:25])  # killed mid-write
    assert read_samples(path) == [first]
    append_samples(path, [second])
    assert read_samples(path) == [first, second]
    assert len(path.read_text().splitlines()) == 2


def test_appending_keeps_a_whole_last_record_written_without_its_newline(tmp_path):
    path = tmp_path / "samples.jsonl"
    first = SampleRecord(checkpoint="c", problem_id="p", sample_index=0, outcome="correct")
    second = SampleRecord(checkpoint="c", problem_id="p", sample_index=1, outcome="correct")
    path.write_text(first.model_dump_json())
    append_samples(path, [second])
    assert read_samples(path) == [first, second]


def test_a_broken_line_in_the_middle_is_an_error_with_its_line_number(tmp_path):
    path = tmp_path / "samples.jsonl"
    record = SampleRecord(checkpoint="c", problem_id="p", sample_index=0, outcome="correct")
    path.write_text("{not json\n" + record.model_dump_json() + "\n")
    with pytest.raises(ValueError, match="samples.jsonl:1"):
        read_samples(path)


def test_judged_keys_leave_judge_errors_to_be_retried():
    records = [
        SampleRecord(checkpoint="c", problem_id="p", sample_index=0, outcome="correct"),
        SampleRecord(checkpoint="c", problem_id="p", sample_index=1, status="judge_error"),
    ]
    assert judged_keys(records) == {("c", "p", 0)}


def test_a_record_from_a_judge_result_carries_its_verdict_or_its_judge_error():
    ok = JudgeResult(
        id="r1",
        problem_id="p1",
        status="ok",
        outcome="optimization_failure",
        rewards={"R_1": 1, "R_inf": 0},
        first_failure=FirstFailure(test="07", input_bytes=1200, verdict="TLE"),
    )
    record = SampleRecord.from_judge_result(ok, checkpoint="c", alpha=1.5, sample_index=3, seed=9)
    assert (record.outcome, record.rewards, record.alpha, record.seed) == (
        "optimization_failure",
        ok.rewards,
        1.5,
        9,
    )
    assert record.first_failure == {"test": "07", "input_bytes": 1200, "verdict": "TLE"}
    failed = JudgeResult(id="r2", problem_id="p1", status="judge_error", message="worker lost")
    record = SampleRecord.from_judge_result(failed, checkpoint="c", alpha=None, sample_index=0)
    assert (record.status, record.outcome, record.rewards, record.message) == (
        "judge_error",
        None,
        None,
        "worker lost",
    )
