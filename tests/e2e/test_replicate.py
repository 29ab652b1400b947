"""The miniature replication: its pure parts (corpus variants, pools, intervals, training curves) and
the whole pipeline, shortened (configs/replicate_tiny.toml: a few steps, two alphas), through real
judge, merger and evaluator services on a Redis database of its own."""

from __future__ import annotations

import ast
import json
import os
import random
from pathlib import Path

import pytest

from services.evaluator.metrics import (
    bootstrap_interval,
    ensemble_pass_at_budget,
    pool_pass_at_budget,
)
from services.evaluator.records import SampleRecord, read_samples
from services.passk import pass_at_k
from tests.support import BUNDLED, ROOT
from tests.support.redis import claim_redis_db
from tests.support.stack import judge_stack
from trainer.replication.corpus import CorpusShape, build_corpus, mutate, rename
from trainer.replication.replicate import (
    ReplicateConfig,
    StageFailed,
    Stages,
    grpo_depends,
    load_config,
    problem_split,
    replicate,
)
from trainer.replication.report import (
    agreement_statement,
    first_last,
    reward_agreement,
    reward_of,
    trained_ks,
    training_curve,
)

PROGRAM = (BUNDLED / "prefix_range_sums" / "ref.py").read_text()


# -- corpus -----------------------------------------------------------------------------------------
def test_renaming_keeps_behaviour_and_changes_every_bound_name():
    renamed = rename(PROGRAM, random.Random(1))
    assert renamed != PROGRAM
    names = {n.id for n in ast.walk(ast.parse(renamed)) if isinstance(n, ast.Name)}
    assert {"sys", "accumulate", "map", "int", "range", "list"} <= names  # imports and builtins stay
    assert not {"prefix", "bounds", "out"} & names  # what the program binds is renamed
    for program in (PROGRAM, renamed):  # same output on the statement's example
        scope: dict = {}
        import contextlib
        import io
        import sys

        stdin, sys.stdin = sys.stdin, io.TextIOWrapper(io.BytesIO(b"5 3\n4 -2 7 0 3\n1 3\n2 2\n1 5\n"))
        try:
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(compile(program, "p", "exec"), scope)
        finally:
            sys.stdin = stdin
        assert out.getvalue() == "9\n-2\n12\n"


def test_a_functional_problems_method_name_survives_renaming():
    code = (BUNDLED / "bracket_depth" / "ref.py").read_text()
    assert "def maxDepth(self" in rename(code, random.Random(0))


def test_mutation_plants_one_change_that_still_parses():
    rng = random.Random(3)
    mutants = {mutate(PROGRAM, rng) for _ in range(20)}
    assert all(m is not None for m in mutants)
    for code, kind in mutants:
        ast.parse(code)
        assert code != ast.unparse(ast.parse(PROGRAM))
        assert kind in {"flip_comparison", "off_by_one", "swap_min_max", "range_end"}
    assert mutate("print(1)", rng) is None  # nowhere to plant a bug


def test_corpus_has_the_shape_asked_for_and_is_reproducible():
    shape = CorpusShape(efficient=3, slow=2, wrong=1, crash=1, mutant=2)
    a = build_corpus(BUNDLED, shape, problems=["prefix_range_sums", "anagram_groups"], seed=5)
    b = build_corpus(BUNDLED, shape, problems=["prefix_range_sums", "anagram_groups"], seed=5)
    assert a == b
    kinds = [e.kind for e in a if e.problem_id == "anagram_groups"]
    assert {k: kinds.count(k) for k in set(kinds)} == {
        "efficient": 3,
        "slow": 2,
        "wrong": 1,
        "crash": 1,
        "mutant": 2,
    }
    assert all(e.completion.startswith("```python\n") and e.completion.endswith("\n```") for e in a)
    assert len({e.completion for e in a}) == len(a)  # no program twice
    with pytest.raises(ValueError, match="unknown problems"):
        build_corpus(BUNDLED, shape, problems=["no_such_problem"])


# -- pure numbers -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "counts, budget",
    [([(8, 2), (8, 0)], 4), ([(8, 2), (8, 5), (8, 0)], 6), ([(4, 1)], 3)],
)
def test_pool_at_a_divisible_budget_is_the_ensemble_formula(counts, budget):
    assert pool_pass_at_budget(counts, budget) == pytest.approx(ensemble_pass_at_budget(counts, budget))


def test_pool_of_one_is_pass_at_k_and_uneven_budgets_average_the_extra_sample():
    assert pool_pass_at_budget([(8, 3)], 5) == pytest.approx(pass_at_k(8, 3, 5))
    # B=3 over two checkpoints: one of them draws 2, the other 1, each way half the time
    a, b = (4, 1), (4, 0)
    expected = (
        1
        - (1 - pass_at_k(*a, 2)) * (1 - pass_at_k(*b, 1))
        + 1
        - (1 - pass_at_k(*a, 1)) * (1 - pass_at_k(*b, 2))
    ) / 2
    assert pool_pass_at_budget([a, b], 3) == pytest.approx(expected)
    with pytest.raises(ValueError):
        pool_pass_at_budget([(2, 1)], 3)


def test_bootstrap_interval_holds_the_mean_and_collapses_on_constant_values():
    values = [0.0, 0.25, 0.5, 1.0, 0.75, 0.5]
    lo, hi = bootstrap_interval(values, resamples=500, seed=1)
    assert lo <= sum(values) / len(values) <= hi and lo < hi
    assert bootstrap_interval([0.3] * 5) == (pytest.approx(0.3), pytest.approx(0.3))


def test_training_curve_and_first_last_fifths():
    log = [
        {"step": i, "reward": r, "judge/correct": r, "time/judge_s": 0.1}
        for i, r in enumerate([0, 0, 1, 1, 1], 1)
    ]
    log.append({"train_runtime": 3.0, "step": 5})  # the final summary row is not a step
    curve = training_curve(log)
    assert [c["step"] for c in curve] == [1, 2, 3, 4, 5] and curve[0]["time/judge_s"] == 0.1
    assert first_last([c["reward"] for c in curve]) == (0.0, 1.0)


def _judged(rewards: dict | None) -> SampleRecord:
    if rewards is None:
        return SampleRecord(checkpoint="c", problem_id="p", sample_index=0, status="judge_error")
    outcome = "correct" if rewards.get("R_inf") else "format_error" if not rewards else "optimization_failure"
    return SampleRecord(checkpoint="c", problem_id="p", sample_index=0, outcome=outcome, rewards=rewards)


def test_a_ks_reward_is_read_from_the_reported_ones():
    """docs/spec.md 4.4: a k above every reported one has R_inf's scope; no rewards (a format error,
    an episode without a submission) is 0 everywhere; a judge error or a k between reported ones is
    unknown."""
    reported = {"R_1": 1, "R_3": 1, "R_inf": 0}
    assert [reward_of(reported, k) for k in (1, 3, "inf", 4, 9)] == [1, 1, 0, 0, 0]
    assert reward_of(reported, 2) is None and reward_of(None, 1) is None
    assert reward_of({}, 2) == 0 and reward_of({}, "inf") == 0


def test_rewards_agreeing_on_every_sample_are_named_with_the_samples_counted():
    """R_2 and R_3 agree on every sample (the fourth only through R_inf's scope); R_1 and R_inf each
    differ from every other k somewhere; a judge error and a sample whose R_2 is not reported are left
    out of the count."""
    records = [
        _judged({"R_1": 1, "R_2": 1, "R_3": 1, "R_inf": 0}),
        _judged({"R_1": 1, "R_2": 0, "R_3": 0, "R_inf": 0}),
        _judged({}),  # a format error: 0 for every k
        _judged({"R_1": 1, "R_2": 1, "R_inf": 1}),  # every input below 100 bytes: R_3 is R_inf
        _judged(None),
        _judged({"R_1": 1, "R_3": 1, "R_inf": 1}),  # R_2 not reported: unknown
    ]
    agreement = reward_agreement(records, [1, 2, 3, "inf"])
    assert agreement == {"ks": [1, 2, 3, "inf"], "samples": 4, "left_out": 2, "groups": [[2, 3]]}
    assert agreement_statement(agreement, "single") == (
        "Of R_1, R_2, R_3, R_inf, these give the same reward on every one of the 4 judged single-turn "
        "samples (2 left out: judge errors or a reward not reported): R_2 = R_3."
    )
    # without the sample that told R_inf from R_2 and R_3, all three are one group
    assert reward_agreement(records[1:4], [1, 2, 3, "inf"])["groups"] == [[2, 3, "inf"]]


def test_no_two_rewards_agreeing_is_said_too_and_no_sample_says_nothing():
    records = [_judged({"R_1": 1, "R_2": 1, "R_inf": 0}), _judged({"R_1": 1, "R_2": 0, "R_inf": 0})]
    agreement = reward_agreement(records, [1, 2, "inf"])
    assert agreement["groups"] == [] and agreement["samples"] == 2 and agreement["left_out"] == 0
    assert agreement_statement(agreement, "tool") == (
        "No two of R_1, R_2, R_inf agree on every one of the 2 judged tool-setting samples."
    )
    empty = reward_agreement([_judged(None)], [1, 2])
    assert empty == {"ks": [1, 2], "samples": 0, "left_out": 1, "groups": []}
    assert agreement_statement(empty, "single") is None
    assert agreement_statement(reward_agreement(records, [2]), "single") is None  # one k: nothing to say


def test_a_settings_ks_are_its_k_family_and_its_endpoints_once_each():
    from types import SimpleNamespace

    grpo = SimpleNamespace(lax_k=3, strict_k="inf", k_family=[4, "inf", 1, 2, 3])
    assert trained_ks(grpo) == [1, 2, 3, 4, "inf"]  # the k list as configured, in ascending order
    assert trained_ks(grpo, []) == [3, "inf"]  # no k-family in the setting: the endpoints
    assert trained_ks(SimpleNamespace(lax_k=2, strict_k=5)) == [2, 5]


def test_stages_rerun_what_changed_and_everything_after(tmp_path):
    calls = []

    def stage(name):
        def run():
            calls.append(name)
            return {"out": str(tmp_path)}

        return run

    for depends in ({"a": 1}, {"a": 1}, {"a": 2}):
        stages = Stages(tmp_path, lambda _: None)
        stages.run("first", depends, stage("first"))
        stages.run("second", "fixed", stage("second"))
    assert calls == ["first", "second", "first", "second"]


def test_a_config_with_a_mistake_names_the_field(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\n[grpo]\nsteps = 0\n')
    with pytest.raises(ValueError, match="steps"):
        load_config(bad)
    bad.write_text('name = "x"\n[sweep]\nalphas = [0.0, 0.0]\n')
    with pytest.raises(ValueError, match="alpha"):
        load_config(bad)
    bad.write_text(
        'name = "x"\n[train]\nproblems = ["prefix_range_sums"]\n[eval]\nproblems = ["no_such_problem"]\n'
    )
    with pytest.raises(ValueError, match="no_such_problem"):
        load_config(bad)
    for path in (ROOT / "configs").glob("replicate_*.toml"):
        if path.name != "replicate_gpu.toml":  # its data sets are imported on the GPU machine
            assert isinstance(load_config(path), ReplicateConfig)


# -- the split: trained on one set, measured on another ---------------------------------------------
TWO_SETS = '[train]\nproblems = ["prefix_range_sums"]\n[eval]\nproblems = ["echo_phrase"]\n'


def _config(tmp_path, text: str) -> Path:
    path = tmp_path / "split.toml"
    path.write_text('name = "split"\n' + text)
    return path


def test_a_config_naming_one_set_for_both_is_refused_with_the_split_named(tmp_path):
    for old in ('problems = ["prefix_range_sums"]\n', 'benchmark = "bundled"\n', ""):
        with pytest.raises(ValueError, match=r"\[train\]") as err:
            load_config(_config(tmp_path, old))
        assert "[eval]" in str(err.value)
    assert load_config(_config(tmp_path, TWO_SETS)).eval.problems == ["echo_phrase"]


def _planted(tmp_path, source: str, new_id: str, *, statement: str | None = None, drop_test: bool = False):
    """A copy of the bundled problem `source` under `new_id` in a benchmark of its own: optionally with
    another statement, optionally one test fewer."""
    import shutil

    bench = tmp_path / "bench"
    dst = bench / new_id
    shutil.copytree(BUNDLED / source, dst)
    spec = json.loads((dst / "problem.json").read_text())
    spec["id"] = new_id
    (dst / "problem.json").write_text(json.dumps(spec))
    if statement is not None:
        (dst / spec["statement"]).write_text(statement)
    if drop_test:
        first = sorted((dst / "tests").glob("*.in"))[0]
        first.unlink()
        first.with_suffix(".out").unlink()
    return bench


@pytest.mark.parametrize(
    ("plant", "reason"),
    [
        ({}, "has the statement of training problem 'prefix_range_sums'"),
        ({"statement": "Answer the queries.\n"}, "has the test data of training problem 'prefix_range_sums'"),
        ({"statement": "Answer the queries.\n", "drop_test": True}, "shares a test with training problem"),
    ],
)
def test_a_training_problem_planted_in_the_eval_set_under_another_id_is_refused(tmp_path, plant, reason):
    bench = _planted(tmp_path, "prefix_range_sums", "range_queries", **plant)
    text = f'[train]\nproblems = ["prefix_range_sums", "echo_phrase"]\n[eval]\nbenchmark = "{bench}"\n'
    with pytest.raises(ValueError, match="shares 1 problem") as err:
        load_config(_config(tmp_path, text))
    assert reason in str(err.value) and "'range_queries'" in str(err.value)
    # a problem of its own (another statement and other tests) is held out
    other = _planted(tmp_path / "other", "bracket_depth", "depths")
    text = f'[train]\nproblems = ["prefix_range_sums"]\n[eval]\nbenchmark = "{other}"\n'
    assert load_config(_config(tmp_path, text)).eval.benchmark == str(other)


def test_a_training_problem_listed_in_the_eval_set_is_refused_before_anything_runs(tmp_path):
    text = (
        '[train]\nproblems = ["prefix_range_sums"]\n[eval]\nproblems = ["echo_phrase", "prefix_range_sums"]\n'
    )
    with pytest.raises(ValueError, match="'prefix_range_sums' is in both sets"):
        load_config(_config(tmp_path, text))
    # `frontier replicate` says so and exits 2, an invalid configuration
    from typer.testing import CliRunner

    from services.cli import app

    result = CliRunner().invoke(
        app, ["replicate", str(_config(tmp_path, text)), "--out", str(tmp_path / "o")]
    )
    assert result.exit_code == 2 and "in both sets" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "o").exists()
    # a config built in code (not through load_config) is refused by replicate itself, before a stage
    config = ReplicateConfig.model_validate(
        {
            "name": "planted",
            "train": {"problems": ["prefix_range_sums"]},
            "eval": {"problems": ["prefix_range_sums"]},
        }
    )
    with pytest.raises(ValueError, match="in both sets"):
        replicate(config, tmp_path / "runs")
    assert not (tmp_path / "runs").exists()
    # and a stage asked to measure a training problem refuses it
    split = problem_split(load_config(_config(tmp_path, TWO_SETS)))
    assert split.held_out(["echo_phrase"]) == ["echo_phrase"]
    with pytest.raises(StageFailed, match="training problems"):
        split.held_out(["echo_phrase", "prefix_range_sums"])


def test_the_gpu_config_trains_on_codecontests_plus_and_measures_on_a_later_livecodebench_window():
    import tomllib

    path = ROOT / "configs" / "replicate_gpu.toml"
    config = ReplicateConfig.model_validate(tomllib.loads(path.read_text()))
    assert config.train.benchmark == "data/codecontests_plus"
    assert (
        config.eval.benchmark == "data/livecodebench"
        and config.eval.released_from.isoformat() == "2024-10-01"
    )
    assert config.claims.hard_difficulties == ["hard"] and config.sweep.n_samples == 250
    if not (ROOT / "data" / "codecontests_plus").is_dir():  # not imported here: a clear error, not a trace
        with pytest.raises(ValueError, match=r"\[train\].*frontier problems import"):
            load_config(path)


def test_a_release_window_and_difficulties_select_the_eval_set(tmp_path):
    bench = tmp_path / "lcb"
    releases = [
        ("bracket_depth", "2024-06-01", "hard"),
        ("echo_phrase", "2024-11-02", "hard"),
        ("kth_gap", "2024-12-24", "easy"),
    ]
    for i, (source, day, difficulty) in enumerate(releases):
        problem = _planted(tmp_path / source, source, f"lcb-{i}") / f"lcb-{i}"
        spec = json.loads((problem / "problem.json").read_text())
        spec.update(difficulty=difficulty, metadata={"contest_date": f"{day}T00:00:00"})
        (problem / "problem.json").write_text(json.dumps(spec))
        bench.mkdir(exist_ok=True)
        problem.rename(bench / problem.name)
    window = f'[train]\nproblems = ["prefix_range_sums"]\n[eval]\nbenchmark = "{bench}"\nreleased_from = 2024-10-01\n'
    assert problem_split(load_config(_config(tmp_path, window))).eval_ids == ["lcb-1", "lcb-2"]
    hard = window + 'difficulties = ["hard"]\n'
    assert problem_split(load_config(_config(tmp_path, hard))).eval_ids == ["lcb-1"]
    with pytest.raises(ValueError, match="outside its release window"):
        load_config(_config(tmp_path, window + 'problems = ["lcb-0"]\n'))
    with pytest.raises(ValueError, match="no problem"):
        load_config(_config(tmp_path, window.replace("2024-10-01", "2030-01-01")))


# -- the whole pipeline, shortened --------------------------------------------------------------------
@pytest.fixture(scope="module")
def replicated(tmp_path_factory):
    gen = claim_redis_db([*range(1, 8), *range(15, 7, -1)])
    redis_url = next(gen)
    tmp = tmp_path_factory.mktemp("replicate")
    # the settings of a stack of this module's own; replicate brings up its services itself
    env = judge_stack(
        tmp, "rep", redis_url=redis_url, services=(), slots=2, job_lease_s=30, data_roots=tmp
    ).frontier_env
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    from services.settings import get_settings

    get_settings.cache_clear()
    try:
        config = load_config(ROOT / "configs" / "replicate_tiny.toml")
        summary = replicate(config, tmp / "runs")
        yield config, tmp / "runs" / config.name, summary
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        get_settings.cache_clear()
        next(gen, None)


def test_every_stage_wrote_its_artifacts(replicated):
    config, run_dir, _ = replicated
    stages = json.loads((run_dir / "stages.json").read_text())
    assert list(stages) == [
        "sft",
        "grpo_lax",
        "grpo_strict",
        "grpo_partial",
        "grpo_lax_seed1",
        "grpo_strict_seed1",
        "grpo_k_1",
        "repair_warmup",
        "grpo_repair",
        "merge",
        "eval",
        "repair_eval",
    ]
    for name in ("corpus.jsonl", "summary.json", "report.md", "samples.jsonl", "eval/samples.jsonl"):
        assert (run_dir / name).is_file(), name
    for plot in ("training", "outcomes_by_alpha", "frontier", "pass_at_k", "pools", "churn"):
        assert (run_dir / "plots" / f"{plot}.png").stat().st_size > 1000
    for alpha in config.sweep.alphas:
        merge_config = json.loads((run_dir / "merged" / f"alpha_{alpha}" / "merge_config.json").read_text())
        assert merge_config["alpha"] == alpha
    for arm in ("lax", "strict", "partial", "repair"):
        log = json.loads((run_dir / f"grpo_{arm}" / "final" / "log_history.json").read_text())
        steps = [e for e in log if "reward" in e]
        assert len(steps) == config.grpo.steps
        assert all("time/generation_s" in e and "time/judge_s" in e for e in steps)


def test_summary_is_consistent_with_the_config_and_the_samples(replicated):
    config, run_dir, summary = replicated
    on_disk = json.loads((run_dir / "summary.json").read_text())
    assert on_disk["statements"] == summary["statements"] and summary["statements"]
    assert [row["alpha"] for row in on_disk["sweep"]] == config.sweep.alphas
    outcomes = ("correct", "optimization_failure", "correctness_failure", "format_error")
    samples = [json.loads(line) for line in Path(on_disk["samples"]).read_text().splitlines()]
    problems = len(config.eval.problems)
    for row in on_disk["sweep"]:
        assert sum(row[o] for o in outcomes) == pytest.approx(1.0)
        mine = [s for s in samples if s["alpha"] == row["alpha"] and s["status"] == "ok"]
        assert row["judged"] == len(mine) == problems * config.sweep.n_samples
        for o in outcomes:
            assert row[o] == pytest.approx(sum(s["outcome"] == o for s in mine) / len(mine))
            lo, hi = row["interval95"][o]
            assert 0 <= lo <= hi <= 1
    assert sum(on_disk["sft"]["outcomes"].values()) == pytest.approx(1.0)
    assert {"problem_id", "alpha", "completion", "outcome", "rewards"} <= set(samples[0])
    for arm, k in (("lax", config.grpo.lax_k), ("strict", "inf")):
        run = on_disk["runs"][arm]
        assert run["k"] == k and run["steps"] == config.grpo.steps
        assert 0 <= run["reward_first"] <= 1 and 0 <= run["reward_last"] <= 1
    partial = on_disk["partial_credit"]  # the third arm, evaluated beside the sweep
    assert on_disk["runs"]["partial"]["k"] == "partial-discrete"
    assert partial["judged"] == problems * config.sweep.n_samples
    assert sum(partial[o] for o in outcomes) == pytest.approx(1.0)
    # sft, partial credit, the repair warm-up, the repair-trained run, the seed-1 pair and R_1, beside the sweep
    assert len([s for s in samples if s["alpha"] is None]) == 7 * problems * config.sweep.n_samples
    # which ks' rewards agree on every judged sample: from the eval stage's samples, said in the report
    agreement = on_disk["settings"]["single"]["reward_agreement"]
    assert agreement == reward_agreement(read_samples(run_dir / "eval" / "samples.jsonl"), [1, 2, "inf"])
    assert agreement["samples"] + agreement["left_out"] == len(samples) and agreement["samples"] > 0
    line = agreement_statement(agreement, "single")
    assert line in summary["statements"] and f"- {line}" in (run_dir / "report.md").read_text()
    pools = on_disk["ensemble"]
    assert pools["budget"] == config.sweep.n_samples
    # the split: trained on one set, every sample of another, and the report says which set is which
    split = on_disk["split"]
    assert split["train"] == config.train.problems and split["eval"] == config.eval.problems
    assert not set(split["train"]) & set(split["eval"])
    assert {s["problem_id"] for s in samples} == set(split["eval"])
    corpus = [json.loads(line) for line in (run_dir / "corpus.jsonl").read_text().splitlines()]
    assert {e["problem_id"] for e in corpus} == set(split["train"])
    report = (run_dir / "report.md").read_text()
    assert "**evaluation set** (held out" in report and ", ".join(split["eval"]) in report
    assert "## Training [training set]" in report and "## The sweep (theta_a" in report
    headings = [line for line in report.splitlines() if line.startswith("## ")]
    assert all("set]" in h for h in headings if not h.startswith("## The split")), headings
    assert pools["interpolation_extrapolation"]["checkpoints"] == [r["name"] for r in on_disk["sweep"]]


def test_the_repair_arm_is_evaluated_beside_the_sweep_with_its_repair_rate(replicated):
    config, run_dir, summary = replicated
    repair = summary["repair"]
    assert summary["runs"]["repair"]["k"] == "repair-multi_turn-R_inf"
    assert repair["turns"] == config.grpo.repair.turns and repair["warmup_examples"] > 0
    row = repair["row"]
    assert row["judged"] == len(config.eval.problems) * config.sweep.n_samples
    log = json.loads((run_dir / "grpo_repair" / "final" / "log_history.json").read_text())
    assert all("repair/first_pass" in e and "repair/attempts" in e for e in log if "reward" in e)
    # every arm's repair rate, from the repair evaluation's own samples
    assert list(repair["by_arm"]) == ["sft", "lax", "strict", "partial", "repair_warmup", "repair"]
    lines = [json.loads(x) for x in (run_dir / "repair_eval" / "repair.jsonl").read_text().splitlines()]
    for r in repair["by_arm"].values():
        assert r["samples"] + r["judge_errors"] == len(config.eval.problems) * config.sweep.n_samples
        assert 0 <= r["repaired"] <= r["failed_first"] <= r["samples"]
        assert r["repair_rate"] is None or r["repair_rate"] == pytest.approx(
            r["repaired"] / r["failed_first"]
        )
    mine = [x for x in lines if x["checkpoint"] == Path(row["name"]).name or x["checkpoint"] == row["name"]]
    assert all(len(x["attempts"]) <= config.grpo.repair.turns for x in lines) and mine
    # the first attempts are the eval's samples of the same checkpoint, so the two pass@1 agree
    assert repair["by_arm"]["repair"]["first_attempt_pass@1"] == pytest.approx(row["pass@1"])
    assert set(summary["frontier_position"]) == {"partial", "repair_warmup", "repair"}
    assert any(s.startswith("Repair rate") for s in summary["statements"])
    assert "## Repair" in (run_dir / "report.md").read_text()


def test_switching_an_arm_on_or_off_keeps_the_lax_and_strict_runs():
    config = load_config(ROOT / "configs" / "replicate_tiny.toml")
    bare = config.model_copy(
        update={"grpo": config.grpo.model_copy(update={"repair": None, "partial_credit": None})}
    )
    assert config.grpo.repair and config.grpo.partial_credit
    for arm, k in (("lax", config.grpo.lax_k), ("strict", config.grpo.strict_k)):
        assert grpo_depends(config, k, arm) == grpo_depends(bare, k, arm)


def test_a_second_run_reuses_every_finished_stage(replicated, capsys):
    config, run_dir, summary = replicated
    before = (run_dir / "stages.json").read_text()
    again = replicate(config, run_dir.parent)
    assert (run_dir / "stages.json").read_text() == before
    assert again["sweep"] == summary["sweep"]
    assert capsys.readouterr().out.count("done in an earlier run, reused") == 12


def test_a_claim_that_does_not_hold_fails_the_command(replicated, tmp_path):
    """`make demo` must not pass quietly: with require_checks, a false check is exit status 1 naming it
    (the tiny config's model learns nothing in two steps, so its claims are false)."""
    from typer.testing import CliRunner

    from services.cli import app

    config, run_dir, summary = replicated
    assert not all(summary["checks"].values())
    strict = tmp_path / "tiny.toml"
    # a top-level key after a table would land in the table: put it first
    text = (ROOT / "configs" / "replicate_tiny.toml").read_text()
    strict.write_text("require_checks = true\n" + text)
    result = CliRunner().invoke(app, ["replicate", str(strict), "--out", str(run_dir.parent)])
    assert result.exit_code == 1
    assert "check(s) failed" in result.output
    failed = [name for name, ok in summary["checks"].items() if not ok]
    assert failed[0] in result.output


def test_the_seed_runs_and_the_k_family_are_evaluated_and_placed_against_the_path(replicated):
    config, run_dir, summary = replicated
    from trainer.replication.report import checkpoint_row

    single = summary["settings"]["single"]
    assert single["sweep"] == summary["sweep"]
    by_alpha = {r["alpha"]: r for r in summary["sweep"]}
    for end, alpha in (("lax", 0.0), ("strict", 1.0)):
        rows = single["endpoints"][end]
        assert len(rows) == 1 + len(config.grpo.endpoint_seeds)  # the seed-0 pair is alpha 0 and 1
        assert rows[0] == by_alpha[alpha] and rows[1]["alpha"] is None
        assert rows[1]["judged"] == len(config.eval.problems) * config.sweep.n_samples
        # a row is checkpoint_row's output, so other settings' rows have the same keys
        assert set(rows[1]) == set(checkpoint_row("x", None, [], 100, 0))
    for s in (1,):
        for end in ("lax", "strict"):
            assert summary["runs"][f"{end}_seed{s}"]["steps"] == config.grpo.steps
    family = summary["k_family"]["runs"]
    assert [e["k"] for e in family] == config.grpo.k_family
    assert [e["endpoint"] for e in family] == [None, "lax", "strict"]
    assert family[1]["row"] == by_alpha[0.0] and family[1]["distance_to_path"] == pytest.approx(0.0)
    assert family[0]["distance_to_path"] >= 0 and family[0]["distance_to_null"] >= 0
    log = json.loads((run_dir / "grpo_k_1" / "final" / "log_history.json").read_text())
    assert len([e for e in log if "reward" in e]) == config.grpo.steps


def test_the_claims_table_leads_the_report_and_says_what_was_not_measured(replicated):
    config, run_dir, summary = replicated
    on_disk = json.loads((run_dir / "summary.json").read_text())
    table = on_disk["claims"]
    assert [c["finding"] for c in table] == [1, 2, 3, 4, 5, 6]
    assert all(c["verdict"] in ("holds", "does not hold", "not measured") for c in table)
    assert table[5]["verdict"] == "not measured"  # no tool-use or agentic settings in this run
    assert table[2]["verdict"] == "not measured"  # alphas 0 and 1 only: nothing to extrapolate
    assert table[0]["seeds"] == 2 and table[0]["verdict"] != "not measured"
    report = (run_dir / "report.md").read_text()
    assert report.index("claim by claim") < report.index("## What was measured")
    assert "## The k-family against the interpolation path" in report


def test_the_session_settings_are_decided_by_the_same_rule_as_the_single_turn_one(replicated):
    """The session arm hands its settings to the report in settings.single's shape: finding 6 is then
    measured by findings 1 and 3's rules (here on the single-turn rows themselves, so the verdicts
    agree with the single-turn ones)."""
    from services.evaluator.records import read_samples
    from trainer.replication.report import summarize

    config, run_dir, summary = replicated
    stages = json.loads((run_dir / "stages.json").read_text())
    outputs = {name[len("grpo_") :]: s["outputs"] for name, s in stages.items() if name.startswith("grpo_")}
    outputs["repair_warmup"] = stages["repair_warmup"]["outputs"]
    records = read_samples(run_dir / "eval" / "samples.jsonl")
    single = summary["settings"]["single"]
    again = summarize(
        config,
        stages["sft"]["outputs"],
        outputs,
        records,
        run_dir / "samples.jsonl",
        stages["eval"]["outputs"]["names"],
        stages["repair_eval"]["outputs"],
        settings={"tool": single, "agentic": single},
    )
    from trainer.replication.claims import ABSENT, SESSION_EXTRAPOLATION_PARTS, combine, pools_claim

    assert again["claims"][:5] == summary["claims"][:5]
    six = again["claims"][5]
    first = summary["claims"][0]["verdict"]
    third = combine([p for p in summary["claims"][2]["parts"] if p["part"] in SESSION_EXTRAPOLATION_PARTS])
    # churn along the sweep is measured from its rows; the hard pools need the setting's samples, the
    # k-family and the arms its own runs (none here): not measured
    fourth = pools_claim(summary["churn"], None)["verdict"]
    assert first != "not measured"
    verdicts = [first, ABSENT, third, fourth, ABSENT]
    assert [p["verdict"] for p in six["parts"]] == verdicts * 2
    assert six["verdict"] == combine([{"verdict": v} for v in verdicts])
