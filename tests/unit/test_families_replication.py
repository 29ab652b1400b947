"""The families miniature in `frontier replicate` (docs/spec.md 12.9): the evaluation tiers (the split
check between train and every tier, held-out families by metadata.family), the difficulty pilot's rule
as pure functions, and the summary and report a run records from them (tier blocks, tier 2
exploratory, claims on tier 1 only, every claim `not measured` when the difficulty was not matched)."""

from __future__ import annotations

import json
import random

import pytest

from services.evaluator.records import SampleRecord
from services.problems.families import build_families, family_files, load_family, make_instance
from tests.support.cli import invoke
from trainer.replication.claims import ABSENT
from trainer.replication.config import ReplicateConfig
from trainer.replication.pilot import (
    NOT_MATCHED,
    choose_rung,
    correct_share,
    difficulty_markdown,
    next_rung_needed,
    unmatched_claims,
)
from trainer.replication.replicate import load_config, problem_split
from trainer.replication.report import render_markdown, summarize_tiers

TRAINED = ["prefix_sums", "window_extreme"]
NEW = ["residue_pairs"]


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    root = tmp_path_factory.mktemp("families")
    build_families(root, 0, families=[*TRAINED, *NEW], instances=range(7))
    return root


def _config(tmp_path, bench, tier2_families=NEW, extra="", tier2_instances=(0, 1, 2)):
    text = f"""
name = "fam"
[train]
benchmark = "{bench}"
families = {json.dumps(TRAINED)}
instances = [0, 1, 2, 3, 4]
[eval]
benchmark = "{bench}"
claims_tier = "tier1"
[eval.tiers.tier1]
families = {json.dumps(TRAINED)}
instances = [5, 6]
[eval.tiers.tier2]
families = {json.dumps(tier2_families)}
instances = {json.dumps(list(tier2_instances))}
new_families = true
{extra}
"""
    path = tmp_path / "fam.toml"
    path.write_text(text)
    return path


# -- tiers and the split ----------------------------------------------------------------------------
def test_the_tiers_are_resolved_by_family_and_instance_and_their_union_is_the_eval_set(tmp_path, bench):
    split = problem_split(load_config(_config(tmp_path, bench, extra="[pilot]\n")))
    assert split.train_ids == [f"{f}_{i}" for f in TRAINED for i in range(5)]
    assert split.tiers == {
        "tier1": [f"{f}_{i}" for f in TRAINED for i in (5, 6)],
        "tier2": ["residue_pairs_0", "residue_pairs_1", "residue_pairs_2"],
    }
    assert split.eval_ids == split.tiers["tier1"] + split.tiers["tier2"]
    assert split.as_json()["claims_tier"] == "tier1" and split.as_json()["tiers"] == split.tiers


def test_a_training_family_planted_in_the_held_out_families_tier_is_refused(tmp_path, bench):
    """window_extreme_5 and _6 are no training problem (other ids, statements and tests), but their
    family is trained on: a held-out-families tier refuses them by metadata.family."""
    path = _config(
        tmp_path, bench, tier2_families=["residue_pairs", "window_extreme"], tier2_instances=(5, 6)
    )
    with pytest.raises(ValueError, match="training family") as err:
        load_config(path)
    assert "window_extreme_5 (window_extreme)" in str(err.value) and "residue_pairs" not in str(err.value)
    result = invoke(["replicate", str(path), "--out", str(tmp_path / "o")], 2)
    assert "training family" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "o").exists()
    # the check is what refuses them: without new_families the same tier passes the split check
    path.write_text(path.read_text().replace("new_families = true", ""))
    assert "window_extreme_5" in problem_split(load_config(path)).tiers["tier2"]


def test_tier_misconfigurations_name_the_field(tmp_path, bench):
    base = _config(tmp_path, bench).read_text()
    for bad, says in (
        (base.replace('claims_tier = "tier1"', 'claims_tier = "tier9"'), "claims_tier 'tier9'"),
        (base + '[pilot]\ntier = "tier7"\n', "pilot.tier 'tier7'"),
        (base + "[pilot]\nwindow = [0.7, 0.2]\n", "low <= high"),
        (base + "[pilot]\nladder = [4, 4]\n", "distinct"),
        (
            base.replace('claims_tier = "tier1"\n', 'claims_tier = "tier1"\nproblems = ["prefix_sums_5"]\n'),
            "union",
        ),
    ):
        (tmp_path / "bad.toml").write_text(bad)
        with pytest.raises(ValueError, match=says):
            load_config(tmp_path / "bad.toml")
        assert "Traceback" not in invoke(["replicate", str(tmp_path / "bad.toml")], 2).output


def test_no_two_instances_of_a_family_share_a_statement():
    for path in family_files():
        module = load_family(path)
        statements = [make_instance(module, i, check=False).statement for i in range(8)]
        assert len(set(statements)) == 8, path.stem


# -- the pilot's rule -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("shares", "design"),
    [
        ([0.9, 0.5, 0.3, 0.1], 3),  # the first rung in the window, not the closest to its middle
        ([0.6, 0.1, 0.1, 0.1], 4),  # the bounds are in the window
        ([0.7, 0.61, 0.19, 0.0], None),  # jumps over it: not matched
        ([0.1, 0.05, 0.0, 0.0], None),
        ([0.9, 0.8, 0.7, 0.2], 1),
        ([None, 0.3, None, None], 3),  # a rung not measured is not in the window
    ],
)
def test_the_design_is_the_first_rung_in_the_window(shares, design):
    rungs = [{"efficient": e, "correct": s} for e, s in zip([4, 3, 2, 1], shares, strict=True)]
    decision = choose_rung(rungs, (0.20, 0.60))
    assert decision["design"] == design and decision["matched"] is (design is not None)
    if design is None:
        assert decision["reason"].startswith(NOT_MATCHED) and "[0.20, 0.60]" in decision["reason"]
    else:
        assert decision["reason"] is None
        upto = [4, 3, 2, 1].index(design)
        assert next_rung_needed(rungs[:upto], (0.2, 0.6)) and not next_rung_needed(
            rungs[: upto + 1], (0.2, 0.6)
        )


def test_correct_share_leaves_judge_errors_out_and_an_unmatched_run_decides_no_claim():
    assert correct_share(["correct", "correctness_failure", None, "correct"]) == pytest.approx(2 / 3)
    assert correct_share([None, None]) is None
    claims = [
        {"finding": 1, "verdict": "holds", "parts": [{"part": "a", "verdict": "holds", "figure": "x"}]},
        {"finding": 2, "verdict": "does not hold", "parts": []},
    ]
    out = unmatched_claims(claims, "difficulty not matched: ...")
    assert [c["verdict"] for c in out] == [ABSENT, ABSENT] and out[0]["parts"][0]["verdict"] == ABSENT
    assert out[0]["parts"][0]["figure"] == "x" and all(c["reason"].startswith(NOT_MATCHED) for c in out)
    assert out[0]["figure"] == "a: x (not measured)" and "holds" not in out[0]["figure"]
    assert claims[0]["verdict"] == "holds"  # the input is left as it was


# -- what a run records -----------------------------------------------------------------------------
def _records(split, rng):
    """Samples of the SFT checkpoint and two alphas over every evaluation problem: tier 1 mostly
    correct, tier 2 never."""
    out = []
    tier1 = set(split.tiers["tier1"])
    for ckpt, alpha in (("sft", None), ("alpha_0", 0.0), ("alpha_1", 1.0)):
        for pid in split.eval_ids:
            for i in range(2):
                good = pid in tier1 and rng.random() < 0.6
                outcome = "correct" if good else rng.choice(["optimization_failure", "correctness_failure"])
                out.append(
                    SampleRecord(
                        checkpoint=ckpt, alpha=alpha, problem_id=pid, sample_index=i, outcome=outcome
                    )
                )
    return out


@pytest.mark.parametrize("matched", [True, False])
def test_the_summary_has_a_block_per_tier_claims_on_tier_1_and_the_difficulty_first(tmp_path, bench, matched):
    config: ReplicateConfig = load_config(_config(tmp_path, bench, extra="[pilot]\n[sweep]\nn_samples = 2\n"))
    split = problem_split(config)
    records = _records(split, random.Random(0))
    rungs = [{"efficient": 4, "correct": 0.45 if matched else 0.9, "judged": 8}]
    if not matched:
        rungs += [{"efficient": e, "correct": 0.0, "judged": 8} for e in (3, 2, 1)]
    difficulty = {
        "ladder": [4, 3, 2, 1],
        "window": [0.2, 0.6],
        "tier": "tier1",
        "rungs": rungs,
        **choose_rung(rungs, (0.2, 0.6)),
    }
    log = tmp_path / "log_history.json"
    log.write_text(json.dumps([{"step": s, "reward": s / 10} for s in range(1, 6)]))
    runs = {arm: {"k": k, "log": str(log), "checkpoint": arm} for arm, k in (("lax", 3), ("strict", "inf"))}
    summary = summarize_tiers(
        config,
        {"checkpoint": "sft"},
        runs,
        records,
        tmp_path / "samples.jsonl",
        {"sft": "sft"},
        split=split.as_json(),
        difficulty=difficulty,
    )
    assert set(summary["tiers"]) == {"tier1", "tier2"}
    assert summary["tiers"]["tier2"]["exploratory"] and not summary["tiers"]["tier1"]["exploratory"]
    # the top level is tier 1's: its rows count tier 1's samples only, and its claims are tier 1's
    assert (
        summary["sft"]["judged"]
        == 2 * len(split.tiers["tier1"])
        == summary["tiers"]["tier1"]["sft"]["judged"]
    )
    assert summary["tiers"]["tier2"]["sft"]["judged"] == 2 * len(split.tiers["tier2"])
    assert summary["tiers"]["tier2"]["sft"]["outcomes"]["correct"] == 0
    assert summary["claims"] == summary["tiers"]["tier1"]["claims"]
    assert set(summary["tiers"]["tier1"]) >= {"sweep", "sft", "claims", "ensemble", "churn", "settings"}
    assert summary["difficulty"]["matched"] is matched
    if not matched:
        assert all(c["verdict"] == ABSENT and NOT_MATCHED in c["reason"] for c in summary["claims"])
        assert all(c["verdict"] == ABSENT for c in summary["tiers"]["tier2"]["claims"])
    report = render_markdown({**summary, "plots": {}, "evaluator_report": None}, tmp_path)
    assert report.splitlines()[2].startswith("## Difficulty: the pilot")
    assert "## Tier tier2: exploratory, part of no verdict" in report
    assert "[evaluation set, tier tier1]" in report
    if not matched:
        assert "Every verdict is `not measured`: difficulty not matched" in report
    assert difficulty_markdown(difficulty)[0] in report


def test_the_split_check_holds_between_train_and_each_tier(tmp_path, bench):
    path = _config(tmp_path, bench)
    path.write_text(path.read_text().replace("instances = [5, 6]", "instances = [4, 5]"))
    with pytest.raises(ValueError, match="'prefix_sums_4' is in both sets"):
        load_config(path)


def test_a_training_problem_with_an_evaluation_problems_program_up_to_names_is_left_out(tmp_path):
    """docs/spec.md 12.11: a renaming of a held-out reference program is left out of the training set;
    the same program with another constant (another instance's parameter) is kept."""
    from types import SimpleNamespace

    from trainer.replication.corpus import rename
    from trainer.replication.replicate import _without_eval_programs

    ref = "import sys\nn = int(sys.stdin.readline())\ntotal = n * 3 % 97\nprint(total)\n"

    def problem(pid, code):
        (tmp_path / pid).mkdir()
        if code is not None:
            (tmp_path / pid / "ref.py").write_text(code)
        return SimpleNamespace(problem_id=pid, path=str(tmp_path / pid))

    held = [problem("held", ref)]
    renamed = rename(ref, random.Random(3))
    assert renamed != ref
    train = [
        problem("twin", renamed),
        problem("other_mod", ref.replace("97", "101")),
        problem("no_ref", None),
        problem("broken", "def (:\n"),
    ]
    kept, excluded = _without_eval_programs(train, held)
    assert excluded == {"twin": "held"}
    assert [p.problem_id for p in kept] == ["other_mod", "no_ref", "broken"]


def test_exclude_eval_programs_reaches_the_split_and_is_a_train_setting(tmp_path, bench):
    from trainer.replication.corpus import program_shape

    path = _config(tmp_path, bench)
    text = path.read_text()
    path.write_text(
        text.replace(
            "instances = [0, 1, 2, 3, 4]\n", "instances = [0, 1, 2, 3, 4]\nexclude_eval_programs = true\n", 1
        )
    )
    split = problem_split(load_config(path))
    held = {program_shape((bench / pid / "ref.py").read_text()) for pid in split.eval_ids}
    expected = sorted(
        f"{f}_{i}"
        for f in TRAINED
        for i in range(5)
        if program_shape((bench / f"{f}_{i}" / "ref.py").read_text()) in held
    )
    record = split.as_json()
    assert sorted(record["excluded"]) == expected
    assert set(split.train_ids) == {f"{f}_{i}" for f in TRAINED for i in range(5)} - set(expected)
    assert "excluded" not in problem_split(load_config(_config(tmp_path, bench))).as_json()
    with pytest.raises(ValueError, match="exclude_eval_programs"):
        ReplicateConfig.model_validate(
            {
                "train": {"problems": ["x"]},
                "eval": {
                    "tiers": {"t": {"problems": ["y"]}},
                    "claims_tier": "t",
                    "exclude_eval_programs": True,
                },
            }
        )


def test_the_report_names_the_training_problems_left_out_and_their_held_out_twins():
    from trainer.replication.report import split_markdown

    summary = {
        "config": {"train": {"benchmark": "families"}, "eval": {"benchmark": "families"}},
        "split": {"train": ["a_0"], "eval": ["a_5"], "excluded": {"a_9": "a_5", "a_8": "a_5"}},
    }
    text = "\n".join(split_markdown(summary))
    assert "left out of the training set" in text and "2 problems: a_8 (a_5), a_9 (a_5)" in text
    del summary["split"]["excluded"]
    assert "left out" not in "\n".join(split_markdown(summary))
