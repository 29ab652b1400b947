"""`frontier replicate` on the families miniature, shortened (docs/spec.md 12.9, revision 1 in 12.10):
SFT under the training-fit rule (its checks recorded), a pilot whose window no rung can reach ends its
ladder at the first rung below the window, records the shares in summary.json's `difficulty` and
report.md's first section, decides no claim, and still reports every figure, tier by tier (tier 2
exploratory), through the real judge, merger and evaluator services."""

from __future__ import annotations

import json
import os

import pytest

from services.problems.families import build_families
from tests.support.redis import claim_redis_db
from tests.support.stack import judge_stack
from trainer.replication.claims import ABSENT
from trainer.replication.pilot import NOT_MATCHED
from trainer.replication.replicate import load_config, replicate

CONFIG = """
name = "fam_tiny"
seed = 0
[train]
benchmark = "{bench}"
families = ["prefix_sums", "window_extreme"]
instances = [0, 1]
[eval]
benchmark = "{bench}"
claims_tier = "tier1"
[eval.tiers.tier1]
families = ["prefix_sums", "window_extreme"]
instances = [5]
[eval.tiers.tier2]
families = ["residue_pairs"]
instances = [0]
new_families = true
[pilot]
ladder = [2, 1]
window = [0.99, 1.0]   # out of a one-step policy's reach: "difficulty not matched"
tier = "tier1"
[corpus]
efficient = 2
slow = 1
wrong = 1
crash = 0
mutant = 1
[policy]
tokens = "templates"
vocab_size = 400
hidden_size = 32
num_layers = 1
num_heads = 2
num_kv_heads = 1
intermediate_size = 64
[sft]
epochs = 1
batch_size = 8
fit_parse_share = 0.9  # out of a 2-epoch tiny policy's reach: stops at the cap
fit_check_every = 1
fit_max_epochs = 2
[grpo]
lax_k = 3
steps = 1
num_generations = 2
prompts_per_step = 1
max_completion_length = 24
[sweep]
alphas = [0.0, 1.0]
n_samples = 1
max_tokens = 24
"""


@pytest.fixture(scope="module")
def replicated(tmp_path_factory):
    gen = claim_redis_db([*range(1, 8), *range(15, 7, -1)])
    redis_url = next(gen)
    tmp = tmp_path_factory.mktemp("families_replicate")
    bench = tmp / "families"
    build_families(bench, 0, families=["prefix_sums", "window_extreme", "residue_pairs"], instances=range(6))
    env = judge_stack(
        tmp, "fam", redis_url=redis_url, services=(), slots=2, job_lease_s=30, data_roots=tmp
    ).frontier_env
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    from services.settings import get_settings

    get_settings.cache_clear()
    try:
        (tmp / "fam.toml").write_text(CONFIG.format(bench=bench))
        config = load_config(tmp / "fam.toml")
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


def test_the_pilot_ends_below_the_window_records_its_shares_and_decides_no_claim(replicated):
    _, run_dir, summary = replicated
    difficulty = json.loads((run_dir / "summary.json").read_text())["difficulty"]
    assert difficulty == summary["difficulty"]
    first, second = difficulty["rungs"]
    assert (first["efficient"], first["run"], second["efficient"], second["run"]) == (2, True, 1, False)
    assert first["judged"] == 2 and 0 <= first["correct"] < 0.99  # tier 1: two problems, one sample
    assert (run_dir / "pilot" / "efficient_2" / "eval").is_dir()
    assert not (run_dir / "pilot" / "efficient_1").exists()  # below the window: the ladder ended
    assert not difficulty["matched"] and difficulty["design"] is None
    assert difficulty["reason"].startswith(NOT_MATCHED)
    corpus = [json.loads(line) for line in (run_dir / "pilot" / "efficient_2" / "corpus.jsonl").open()]
    assert sum(e["kind"] == "efficient" for e in corpus) == 8  # two per training problem
    # the training-fit rule: a check after each epoch, on the training prompts, to the cap
    fit = first["fit"]
    assert [c["epoch"] for c in fit["checks"]] == [1.0, 2.0] and not fit["reached"]
    assert all(0 <= c["parse_share"] < 0.9 for c in fit["checks"])
    saved = json.loads(
        (run_dir / "pilot" / "efficient_2" / "policy" / "sft" / "final" / "fit.json").read_text()
    )
    assert saved["checks"] == fit["checks"] and saved["epoch"] == pytest.approx(2.0)
    # no claim is decided, every figure is still there, tier by tier
    assert all(c["verdict"] == ABSENT and NOT_MATCHED in c["reason"] for c in summary["claims"])
    assert set(summary["tiers"]) == {"tier1", "tier2"} and summary["tiers"]["tier2"]["exploratory"]
    assert [r["alpha"] for r in summary["tiers"]["tier2"]["sweep"]] == [0.0, 1.0]
    assert (
        summary["tiers"]["tier1"]["sweep"][0]["judged"] == 2
        and summary["tiers"]["tier2"]["sweep"][0]["judged"] == 1
    )
    report = (run_dir / "report.md").read_text().splitlines()
    assert report[2].startswith("## Difficulty: the pilot")
    assert any(line.startswith("## Tier tier2: exploratory") for line in report)
