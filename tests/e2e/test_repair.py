"""Repair training (docs/spec.md section 12.5): the RLEF reward rules, the repair-rate metric against
hand-computed values, and real multi-turn rollouts through TRL against a running judge.

The rollouts use a model made here that writes a wrong program as its first attempt and, after the
repair turn's closing line, the reference: a bigram table over whole-line tokens (services/demo.py's
planted checkpoints, with two chains), so what each turn writes is known in advance."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from services.evaluator.metrics import RepairChain, repair_summary
from services.evaluator.repair import evaluate_repair, feedback_of
from services.judge.client import JudgeClient, JudgeResult
from services.problems.prompts import REPAIR_ANSWER, repair_context
from tests.support import BUNDLED
from tests.support.models import WRONG, repairing_checkpoint
from tests.support.redis import claim_redis_db
from tests.support.stack import judge_stack
from trainer.repair import (
    RepairRollout,
    RepairSettings,
    collect_failures,
    repair_dataset,
    rlef_reward,
    valid_code,
)
from trainer.train import build_dataset, train

PROBLEM = "prefix_range_sums"


def result(outcome: str, rewards: dict | None = None, verdict: str | None = None, status="ok") -> JudgeResult:
    return JudgeResult.model_validate(
        {
            "id": "s",
            "problem_id": "p",
            "status": status,
            "outcome": outcome if status == "ok" else None,
            "rewards": rewards if status == "ok" else None,
            "first_failure": {"test": "t1", "input_bytes": 10, "verdict": verdict} if verdict else None,
        }
    )


PASS = result("correct", {"R_1": 1, "R_inf": 1})
WA = result("correctness_failure", {"R_1": 0, "R_inf": 0}, "WA")
TLE = result("optimization_failure", {"R_1": 1, "R_inf": 0}, "TLE")
CE = result("correctness_failure", {"R_1": 0, "R_inf": 0}, "CE")
NO_CODE = result("format_error", {"R_1": 0, "R_inf": 0})
LOST = result("", status="judge_error")


# -- the reward rules (RLEF: +1 / -1 on the final program, -0.2 per turn without valid code) ---------
@pytest.mark.parametrize(
    ("rule", "turns", "settings", "expected"),
    [
        ("a first attempt that passes is +1", [PASS], RepairSettings(), 1.0),
        ("a repaired program is +1", [WA, PASS], RepairSettings(), 1.0),
        ("a final failure is -1", [WA, WA, TLE], RepairSettings(), -1.0),
        ("every turn without a program costs 0.2", [NO_CODE, CE, PASS], RepairSettings(), 0.6),
        ("the final program's R_k decides: R_1 passes a slow one", [TLE], RepairSettings(k=1), 1.0),
        ("the penalties are configurable", [NO_CODE, WA], RepairSettings(fail_reward=0.0), -0.2),
        ("a judge error on the last attempt is no reward", [WA, LOST], RepairSettings(), None),
    ],
)
def test_rlef_reward(rule, turns, settings, expected):
    assert rlef_reward(turns, settings) == (pytest.approx(expected) if expected is not None else None), rule


def test_valid_code_is_a_program_that_compiles():
    assert [valid_code(r) for r in (PASS, WA, TLE, CE, NO_CODE, LOST)] == [
        True,
        True,
        True,
        False,
        False,
        True,
    ]


def test_feedback_falls_back_to_the_verdict_and_is_cut():
    assert feedback_of(TLE) == "The program failed (optimization_failure: TLE on a test of 10 bytes)."
    long = TLE.model_copy(update={"feedback_text": "x" * 50})
    assert feedback_of(long, max_chars=20) == "x" * 17 + "..."


def test_a_repair_context_is_the_prompt_then_each_attempt_and_its_feedback():
    text = repair_context("P\n\n", [("A1", "bad 1"), ("A2", "bad 2")], end_of_text="<E>")
    assert text == (
        f"P\n\nA1<E>\n\n### Feedback:\nbad 1\n\n{REPAIR_ANSWER}A2<E>\n\n### Feedback:\nbad 2\n\n{REPAIR_ANSWER}"
    )


# -- the repair rate, against hand-computed values ---------------------------------------------------
def test_repair_summary_by_hand():
    # problem a: 4 samples: passes first; fixed at turn 2; fixed at turn 3; never fixed
    # problem b: 2 samples: both fail and stay failing; problem c: 2 samples, both pass at once
    chains = [
        RepairChain("a", 0, ("correct",)),
        RepairChain("a", 1, ("correctness_failure", "correct")),
        RepairChain("a", 2, ("optimization_failure", "correctness_failure", "correct")),
        RepairChain("a", 3, ("correctness_failure", "correctness_failure", "optimization_failure")),
        RepairChain("b", 0, ("format_error", "correctness_failure", "correctness_failure")),
        RepairChain("b", 1, ("optimization_failure", "optimization_failure", "optimization_failure")),
        RepairChain("c", 0, ("correct",)),
        RepairChain("c", 1, ("correct",)),
    ]
    s = repair_summary(chains, turns=3, resamples=200, seed=0)
    # first-attempt pass@1: the mean over problems of each one's passing share: (1/4 + 0 + 1) / 3
    assert s["first_attempt_pass@1"] == pytest.approx((0.25 + 0 + 1) / 3)
    # failed first attempts: 3 (a) + 2 (b) = 5; fixed within 3 turns: 2 (both in a)
    assert (s["failed_first"], s["repaired"]) == (5, 2)
    assert s["repair_rate"] == pytest.approx(2 / 5)
    # within 2 turns only the turn-2 fix counts
    assert s["repair_rate_by_turn"] == {"2": pytest.approx(1 / 5), "3": pytest.approx(2 / 5)}
    # pass@1 after repair: a 3/4, b 0, c 1
    assert s["final_pass@1"] == pytest.approx((0.75 + 0 + 1) / 3)
    lo, hi = s["interval95"]["repair_rate"]
    assert 0.0 <= lo <= s["repair_rate_by_problem_mean"] <= hi <= 1.0
    assert repair_summary(chains[-2:], turns=3, resamples=200, seed=0)["repair_rate"] is None


# -- real rollouts against the judge ------------------------------------------------------------------
@pytest.fixture(scope="module")
def redis_url():
    yield from claim_redis_db([*range(1, 8), *range(15, 7, -1)])


@pytest.fixture(scope="module")
def judge(redis_url, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("repair-stack")
    with judge_stack(tmp, "rp", redis_url=redis_url, slots=2, job_retries=0, job_lease_s=30) as stack:
        with JudgeClient(stack.judge_url) as client:
            client.put_problem_dir(BUNDLED / PROBLEM)
            yield client


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    return repairing_checkpoint(tmp_path_factory.mktemp("repair-model") / "m")


def test_a_two_turn_rollout_repairs_with_the_judges_feedback(judge, model):
    """Attempt 1 (wrong) is judged with feedback, the feedback becomes the next turn, attempt 2 (the
    reference) passes: reward +1, and only the policy's tokens are in the loss mask."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(model)
    prompt = build_dataset([BUNDLED], tok, [PROBLEM])["prompt"][0]
    lm = AutoModelForCausalLM.from_pretrained(model)
    trainer = SimpleNamespace(
        model=lm, temperature=0.5, accelerator=SimpleNamespace(unwrap_model=lambda m: m)
    )
    rollout = RepairRollout(judge, {prompt: PROBLEM}, tok, RepairSettings(turns=3), max_turn_tokens=64)
    out = rollout([prompt, prompt], trainer)

    assert out["repair_reward"] == [1.0, 1.0]
    assert out["logprobs"] is None
    turns = rollout.last_turns[0]
    assert [t.outcome.value for t in turns] == ["correctness_failure", "correct"]  # two turns, not three
    ids, mask = out["completion_ids"][0], out["env_mask"][0]
    assert len(ids) == len(mask)
    written = tok.decode([i for i, m in zip(ids, mask, strict=True) if m], skip_special_tokens=True)
    feedback = tok.decode([i for i, m in zip(ids, mask, strict=True) if not m])
    assert written == WRONG + (BUNDLED / PROBLEM / "ref.py").read_text().strip().join(
        ["```python\n", "\n```"]
    )
    # the masked tokens are exactly the repair turn: the judge's feedback and the closing line
    assert feedback == f"\n\n### Feedback:\n{feedback_of(turns[0])}\n\n{REPAIR_ANSWER}"
    assert turns[0].feedback_text and "failed" in turns[0].feedback_text  # the judge's own words
    # the context of the second attempt is the text-level repair context, token for token
    context = repair_context(prompt, [(WRONG, feedback_of(turns[0]))], tok)
    first_turn_ids = out["prompt_ids"][0] + ids[: mask.index(1, mask.index(0))]
    assert tok(context, add_special_tokens=False).input_ids == first_turn_ids


def test_a_grpo_step_on_repair_rollouts(judge, model, tmp_path):
    """TRL's GRPOTrainer with the rollout as its rollout_func: one step, the repair reward logged."""
    final = train(
        model,
        [BUNDLED],
        tmp_path / "run",
        max_steps=1,
        num_generations=2,
        max_completion_length=64,
        temperature=0.5,
        judge_url=judge.base_url,
        problem_ids=[PROBLEM],
        register_problems=False,
        repair=RepairSettings(turns=2),
    )
    history = json.loads((final / "log_history.json").read_text())
    step = next(h for h in history if "reward" in h)
    assert step["reward"] == pytest.approx(1.0)
    assert step["repair/first_pass"] == 0.0 and step["repair/final_pass"] == 1.0
    assert step["repair/repair_rate"] == 1.0 and step["repair/attempts"] == 2.0


def test_the_evaluators_repair_rate_on_a_model_that_repairs(judge, model, tmp_path):
    """First attempts fail (all of them), the repair turn fixes each: repair rate 1, first-attempt
    pass@1 0, pass@1 after repair 1; every attempt recorded with its outcome and feedback."""
    summaries = evaluate_repair(
        [str(model)],
        str(BUNDLED),
        3,
        3,
        0.5,
        64,
        tmp_path,
        problems=[PROBLEM],
        judge=judge,
        backend="transformers",
        resamples=100,
        show_progress=False,
    )
    s = summaries["m"]
    assert (s["samples"], s["failed_first"], s["repaired"]) == (3, 3, 3)
    assert s["repair_rate"] == 1.0 and s["repair_rate_by_turn"] == {"2": 1.0, "3": 1.0}
    assert s["first_attempt_pass@1"] == 0.0 and s["final_pass@1"] == 1.0
    lines = [json.loads(x) for x in (tmp_path / "repair.jsonl").read_text().splitlines()]
    assert [[a["outcome"] for a in x["attempts"]] for x in lines] == [["correctness_failure", "correct"]] * 3
    assert lines[0]["attempts"][0]["completion"] == WRONG and lines[0]["attempts"][0]["feedback"]
    assert json.loads((tmp_path / "repair.json").read_text())["m"]["repair_rate"] == 1.0


def test_repair_only_training_prompts_are_failed_attempts_with_their_feedback(judge, model, tmp_path):
    """Repair-only mode: the policy's failed attempts, each with the judge's feedback, are the prompts
    of single-turn GRPO on R_k (here the model repairs every one: reward 1)."""
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(model)
    prompt = build_dataset([BUNDLED], tok, [PROBLEM])["prompt"][0]
    settings = RepairSettings()
    failures = collect_failures(
        str(model),
        str(BUNDLED),
        {PROBLEM: prompt},
        judge,
        tmp_path / "failures",
        n_samples=2,
        temperature=0.5,
        max_tokens=64,
        settings=settings,
    )
    assert [(f.completion, f.outcome) for f in failures] == [(WRONG, "correctness_failure")] * 2
    dataset = repair_dataset(failures, tok)
    assert dataset["prompt"][0] == repair_context(prompt, [(WRONG, failures[0].feedback_text)], tok)
    final = train(
        model,
        [BUNDLED],
        tmp_path / "run",
        k="inf",
        max_steps=1,
        num_generations=2,
        max_completion_length=64,
        temperature=0.5,
        judge_url=judge.base_url,
        problem_ids=[PROBLEM],
        register_problems=False,
        dataset=dataset,
    )
    history = json.loads((final / "log_history.json").read_text())
    assert next(h for h in history if "reward" in h)["reward"] == 1.0
