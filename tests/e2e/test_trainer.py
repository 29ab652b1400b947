"""The trainer: R_k from the real judge service as a TRL reward, and one real GRPO step on CPU."""

from __future__ import annotations

import json
import os

import pytest
import redis

from services.judge.client import JudgeClient
from services.testing.checkpoints import make_planted_checkpoints
from tests.support import BUNDLED
from tests.support.redis import claim_redis_db
from tests.support.stack import judge_stack
from trainer.rewards import JudgeReward
from trainer.train import build_dataset, train

PROBLEM = "prefix_range_sums"


def fenced(path) -> str:
    return f"Here is my solution.\n```python\n{path.read_text()}\n```\n"


@pytest.fixture(scope="module")
def redis_url():
    yield from claim_redis_db([*range(1, 8), *range(15, 7, -1)])


@pytest.fixture(scope="module")
def judge(redis_url, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("trainer-stack")
    with judge_stack(tmp, "tr", redis_url=redis_url, slots=2, job_retries=0, job_lease_s=30) as stack:
        with JudgeClient(stack.judge_url) as client:
            client.put_problem_dir(BUNDLED / PROBLEM)
            yield client


def test_judge_reward_is_r_k_of_each_completion(judge):
    ref, naive = BUNDLED / PROBLEM / "ref.py", BUNDLED / PROBLEM / "zoo" / "naive.py"
    completions = [
        fenced(ref),
        fenced(naive),
        "I don't know.",
        [{"role": "assistant", "content": fenced(ref)}],
    ]
    ids = [PROBLEM] * len(completions)
    strict = JudgeReward("inf", client=judge)
    assert strict(prompts=[""] * 4, completions=completions, problem_id=ids) == [1.0, 0.0, 0.0, 1.0]
    assert strict.last_outcomes == {"correct": 2, "optimization_failure": 1, "format_error": 1}
    # the naive program passes the small tests: a lax reward pays it, the strict one does not
    lax = JudgeReward(2, client=judge)
    assert lax(prompts=[""] * 4, completions=completions, problem_id=ids) == [1.0, 1.0, 0.0, 1.0]
    logged = {}
    lax(prompts=[""], completions=completions[:1], problem_id=ids[:1], log_metric=logged.__setitem__)
    assert logged == {"judge/correct": 1.0}
    # each completion's tests in one sandboxed process: the same rewards
    shared = JudgeReward(2, client=judge, isolation="submission")
    assert shared(prompts=[""] * 4, completions=completions, problem_id=ids) == [1.0, 1.0, 0.0, 1.0]
    with pytest.raises(ValueError, match="isolation"):
        JudgeReward(2, client=judge, isolation="thread")


def test_a_judge_error_is_none_so_trl_masks_it(judge, redis_url):
    judge.put_problem(
        "lost",
        {
            "time_limit_ms": 1000,
            "memory_limit_mb": 64,
            "tests": [{"name": "1", "input": "lost input\n", "output": "x\n"}],
            "public_tests": ["1"],  # so GET /problems shows its hashes
        },
    )
    sha = judge.problem("lost")["tests"][0]["input_sha256"]
    redis.Redis.from_url(redis_url).delete(f"tr{os.getpid()}:blob:{sha}")
    reward = JudgeReward("inf", client=judge)
    assert reward(prompts=[""], completions=["```python\nprint('x')\n```"], problem_id=["lost"]) == [None]
    assert reward.last_outcomes == {"judge_error": 1}


def test_bad_k_is_refused():
    with pytest.raises(ValueError, match="positive integer"):
        JudgeReward(0, client=None, judge_url="http://127.0.0.1:1")


def test_one_grpo_step_with_judge_rewards(judge, tmp_path):
    """TRL's GRPOTrainer, a tiny checkpoint that writes the reference solution, rewards from the judge."""
    programs = {"ref": (BUNDLED / PROBLEM / "ref.py").read_text()}
    model = make_planted_checkpoints(tmp_path / "models", programs)["ref"]
    final = train(
        model,
        [BUNDLED],
        tmp_path / "run",
        k="inf",
        max_steps=1,
        num_generations=2,
        max_completion_length=96,
        temperature=0.5,
        judge_url=judge.base_url,
        problem_ids=[PROBLEM],
        register_problems=False,
    )
    assert (final / "model.safetensors").exists()
    history = json.loads((final / "log_history.json").read_text())
    rewards = [
        h[k] for h in history for k in h if k.startswith("rewards/judge_R_inf") and k.endswith("/mean")
    ]
    assert rewards and rewards[0] == 1.0, history


def test_dataset_rows_carry_the_problem_id(judge):
    from services.testing.checkpoints import byte_tokenizer

    ds = build_dataset([BUNDLED], byte_tokenizer(), problem_ids=[PROBLEM])
    assert ds["problem_id"] == [PROBLEM]
    assert "### Question" in ds["prompt"][0]
