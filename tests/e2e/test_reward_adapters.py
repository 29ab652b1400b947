"""Partial-credit rewards and the adapters for TRL (async), verl and OpenRLHF, against a real judge.

The pure credit rules are checked against hand-computed values; every adapter is driven against a
judge service started here (API and worker as child processes), the OpenRLHF reward service as a
real uvicorn process over HTTP. Programs: the bundled reference (correct), the naive zoo program
(passes the small tests, too slow on the huge ones), a reference that answers -1 on every input of
1000 bytes or more (fails exactly the tests from 1000 bytes on, whatever the machine's speed), and
an unfenced text (a format error).
"""

from __future__ import annotations

import asyncio
import logging

import httpx
import pytest

from services.judge.client import JudgeClient
from services.judge.core.models import JudgeResult
from services.settings import get_settings
from services.stack import free_port
from tests.support.rewards import PROBLEM, PROBLEM_DIR, REF, TOKEN, fenced
from trainer.adapters import verl
from trainer.rewards import (
    AsyncJudgeReward,
    ContinuousCreditReward,
    DiscreteCreditReward,
    continuous_credit,
    discrete_credit,
)

NAIVE = (PROBLEM_DIR / "zoo" / "naive.py").read_text()
READ = "data = sys.stdin.buffer.read().split()"
assert READ in REF
# wrong (-1) on inputs of 1000 bytes or more: the problem's 17 tests are of 11, 10, 27, 61, 41, 401,
# 589, 540 bytes (8 below 1000), then 5401, 3712, 4991, 57108, 65746, 57861, 844561, 658746, 758755
SMALL_ONLY = REF.replace(
    READ,
    "raw = sys.stdin.buffer.read()\n    if len(raw) >= 1000:\n        print(-1)\n        return\n    data = raw.split()",
)
UNFENCED = "I don't know."


def chat(response: str, prompt: str = "Solve the problem.") -> str:
    """A query as OpenRLHF decodes it under a ChatML template: the prompt's turns, then the response."""
    return f"<|im_start|>user\n{prompt}<|im_end|>\n<|im_start|>assistant\n{response}<|im_end|>"


# -- pure credit rules, by hand ---------------------------------------------------------------------
def result(rewards=None, verdicts=(), status="ok", outcome="correct") -> JudgeResult:
    tests = [{"name": str(i), "input_bytes": 10 * (i + 1), "verdict": v} for i, v in enumerate(verdicts)]
    return JudgeResult(id="s", problem_id="p", status=status, outcome=outcome, rewards=rewards, tests=tests)


@pytest.mark.parametrize(
    "rewards, credit",
    [
        ({"R_1": 1, "R_2": 1, "R_3": 1, "R_inf": 1}, 1.0),  # correct: every scope
        ({"R_1": 1, "R_2": 1, "R_3": 1, "R_4": 0, "R_5": 0, "R_inf": 0}, 0.5),  # spec 4.4's example
        ({"R_1": 1, "R_2": 0, "R_3": 0, "R_inf": 0}, 0.25),  # only the smallest scope
        ({"R_1": 0, "R_2": 0, "R_inf": 0}, 0.0),  # format error: every reward 0
        ({"R_inf": 1}, 1.0),  # a problem whose tests all fit R_inf alone
        ({}, 0.0),  # nothing reported: no credit
    ],
    ids=["all-scopes", "spec-example", "smallest-scope-only", "none", "inf-only", "empty"],
)
def test_discrete_credit_is_the_fraction_of_scopes_passed(rewards, credit):
    assert discrete_credit(result(rewards=rewards)) == credit


@pytest.mark.parametrize(
    "verdicts, credit",
    [
        (["AC"] * 4, 1.0),
        (["AC", "AC", "WA", "TLE"], 0.5),
        (["AC", "AC", "AC", "MLE"], 0.75),
        (["AC", "WA", "SKIPPED", "SKIPPED"], 0.25),  # first-failure shape: skipped tests earn nothing
        (["CE"], 0.0),
        ([], 0.0),  # format error: no tests
    ],
    ids=["all-ac", "half", "three-quarters", "skipped-count-as-failed", "compile-error", "format-error"],
)
def test_continuous_credit_is_the_fraction_of_tests_passed(verdicts, credit):
    assert continuous_credit(result(rewards={"R_inf": 0}, verdicts=verdicts)) == credit


@pytest.mark.parametrize(
    "res, k, expected",
    [
        (
            result({"R_2": 1, "R_inf": 0}, outcome="optimization_failure"),
            2,
            (1.0, "optimization_failure", False),
        ),
        (
            result({"R_2": 1, "R_inf": 0}, outcome="optimization_failure"),
            "inf",
            (0.0, "optimization_failure", False),
        ),
        (result(None, status="judge_error", outcome=None), "inf", (0.0, "judge_error", True)),
    ],
    ids=["lax-pays", "strict-does-not", "judge-error-marked"],
)
def test_verl_score_of_a_result(res, k, expected):
    d = verl.score_of(res, k)
    assert (d["score"], d["outcome"], d["judge_error"]) == expected
    assert set(d) == {"score", "outcome", "judge_error", "message"}


# -- a real judge (the fixtures judge and reward_service: tests/support/rewards.py, via the conftest) --


# -- TRL: partial credit and async ------------------------------------------------------------------
def test_discrete_credit_reward_against_the_judge(judge):
    reward = DiscreteCreditReward(client=judge)
    completions = [fenced(REF), fenced(SMALL_ONLY), fenced(NAIVE), UNFENCED]
    got = reward(prompts=[""] * 4, completions=completions, problem_id=[PROBLEM] * 4)
    # default ks 1..6 plus R_inf: 7 scopes. SMALL_ONLY passes R_1 (borrowing R_2's scope), R_2, R_3
    assert got[:2] == [1.0, 3 / 7]
    # the naive program passes the small scopes and fails the huge inputs: strictly partial credit
    assert 3 / 7 <= got[2] < 1.0
    assert got[3] == 0.0
    assert reward.last_outcomes["format_error"] == 1 and reward.last_outcomes["correct"] == 1


def test_continuous_credit_reward_runs_every_test(judge):
    reward = ContinuousCreditReward(client=judge)
    logged = {}
    got = reward(
        prompts=[""] * 3,
        completions=[fenced(REF), fenced(SMALL_ONLY), UNFENCED],
        problem_id=[PROBLEM] * 3,
        log_metric=logged.__setitem__,
    )
    # full mode: SMALL_ONLY is judged on all 17 tests, not stopped at its first failure
    assert got == [1.0, 8 / 17, 0.0]
    assert logged == {"judge/correct": 1 / 3, "judge/correctness_failure": 1 / 3, "judge/format_error": 1 / 3}
    assert reward.__name__ == "judge_continuous_credit"


def test_partial_credit_masks_judge_errors(judge):
    for reward in (DiscreteCreditReward(client=judge), ContinuousCreditReward(client=judge)):
        got = reward(prompts=[""] * 2, completions=[fenced(REF)] * 2, problem_id=["lost", PROBLEM])
        assert got == [None, 1.0]


def test_async_reward_is_awaited_like_trl_does(judge):
    from trl.trainer.grpo_trainer import is_async_callable

    reward = AsyncJudgeReward(2, judge_url=judge.base_url)
    assert is_async_callable(reward)  # what GRPOTrainer checks to await it on its event loop
    completions = [fenced(REF), fenced(NAIVE), UNFENCED, fenced(REF)]
    ids = [PROBLEM, PROBLEM, PROBLEM, "lost"]
    got = asyncio.run(reward(prompts=[""] * 4, completions=completions, problem_id=ids))
    assert got == [1.0, 1.0, 0.0, None]
    assert reward.last_outcomes == {
        "correct": 1,
        "optimization_failure": 1,
        "format_error": 1,
        "judge_error": 1,
    }
    # and a second call on a fresh event loop (a client per call: no connection outlives its loop)
    strict = AsyncJudgeReward("inf", judge_url=judge.base_url)
    assert asyncio.run(strict(prompts=[""], completions=[fenced(NAIVE)], problem_id=[PROBLEM])) == [0.0]


# -- verl -------------------------------------------------------------------------------------------
@pytest.fixture
def verl_settings(judge, monkeypatch):
    """verl's reward function reads the judge's URL from the settings, as a verl worker would."""
    monkeypatch.setenv("FRONTIER_JUDGE_URL", judge.base_url)
    get_settings.cache_clear()
    verl._client.cache_clear()
    yield
    get_settings.cache_clear()
    verl._client.cache_clear()


def test_verl_compute_score(verl_settings):
    ref = verl.compute_score("codefrontier", fenced(REF), PROBLEM)
    assert ref == {"score": 1.0, "outcome": "correct", "judge_error": False, "message": ""}
    lax = verl.compute_score("codefrontier", fenced(NAIVE), PROBLEM, {"k": 2})
    assert (lax["score"], lax["outcome"]) == (1.0, "optimization_failure")
    strict = verl.compute_score("codefrontier", fenced(NAIVE), PROBLEM, {"k": "inf"})
    assert (strict["score"], strict["outcome"]) == (0.0, "optimization_failure")
    fmt = verl.compute_score("codefrontier", UNFENCED, PROBLEM)
    assert (fmt["score"], fmt["outcome"], fmt["judge_error"]) == (0.0, "format_error", False)


def test_verl_batch_keeps_order_and_each_k(verl_settings):
    got = verl.compute_score_batch(
        data_sources=["codefrontier"] * 4,
        solution_strs=[fenced(NAIVE), fenced(NAIVE), fenced(SMALL_ONLY), UNFENCED],
        ground_truths=[PROBLEM] * 4,
        extra_infos=[{"k": 2}, None, {"k": 3}, {"k": 2}],
    )
    assert [d["score"] for d in got] == [1.0, 0.0, 1.0, 0.0]
    assert [d["outcome"] for d in got] == [
        "optimization_failure",
        "optimization_failure",
        "correctness_failure",
        "format_error",
    ]
    assert all(set(d) == {"score", "outcome", "judge_error", "message"} for d in got)


def test_verl_partial_credit_and_isolation(verl_settings):
    # SMALL_ONLY is wrong on every test of 1,000 bytes or more: a partial pass, cheap to judge in full
    got = verl.compute_score_batch(
        ["codefrontier"] * 4,
        [fenced(SMALL_ONLY)] * 4,
        [PROBLEM] * 4,
        [
            {"credit": "discrete"},
            {"credit": "continuous"},
            {"credit": "continuous", "isolation": "submission"},
            {"k": 3, "isolation": "submission"},
        ],
    )
    discrete, continuous, shared, r_3 = (d["score"] for d in got)
    assert 0.0 < discrete < 1.0 and 0.0 < continuous < 1.0
    assert shared == continuous and r_3 == 1.0
    assert all(d["outcome"] == "correctness_failure" and not d["judge_error"] for d in got)
    for bad, field in (({"credit": "half"}, "credit"), ({"isolation": "thread"}, "isolation")):
        with pytest.raises(ValueError, match=field):
            verl.compute_score("codefrontier", fenced(REF), PROBLEM, bad)


def test_verl_judge_error_is_logged_and_marked(verl_settings, caplog):
    with caplog.at_level(logging.ERROR, logger="codefrontier.verl"):
        lost = verl.compute_score("codefrontier", fenced(REF), "lost")
        unknown = verl.compute_score_batch(["x", "x"], [fenced(REF)] * 2, ["no_such_problem", PROBLEM], None)
    assert lost["judge_error"] is True and lost["outcome"] == "judge_error" and lost["message"]
    # an unknown problem id fails the whole request: every sample of it is marked, none silently 0
    assert [d["judge_error"] for d in unknown] == [True, True]
    assert "no_such_problem" in unknown[0]["message"]
    errors = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert len(errors) == 2, [r.getMessage() for r in errors]


# -- OpenRLHF: the reward service as a real process -------------------------------------------------


def post(url: str, body, token: str | None = TOKEN) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.post(f"{url}/get_reward", json=body, headers=headers, timeout=300)


def test_openrlhf_get_reward(reward_service):
    # the prompt itself holds a fenced correct program: only the response, query minus prompt, is judged
    prompt = f"Make this faster:\n```python\n{REF}\n```\n"
    responses = [fenced(REF), fenced(NAIVE), UNFENCED]
    body = {"query": [prompt + r for r in responses], "prompts": [prompt] * 3, "labels": [PROBLEM] * 3}
    r = post(reward_service, body)
    assert r.status_code == 200, r.text
    got = r.json()
    assert got["rewards"] == [1.0, 0.0, 0.0]
    assert got["scores"] == got["rewards"]
    assert got["extra_logs"]["correct"] == [1.0, 0.0, 0.0]
    assert got["extra_logs"]["optimization_failure"] == [0.0, 1.0, 0.0]
    assert got["extra_logs"]["format_error"] == [0.0, 0.0, 1.0]
    assert got["extra_logs"]["judge_error"] == [0.0, 0.0, 0.0]


def test_openrlhf_without_prompts_and_with_a_judge_error(reward_service):
    body = {"query": [chat(fenced(REF)), chat(fenced(REF))], "labels": ["lost", PROBLEM]}
    got = post(reward_service, body).json()
    assert got["rewards"] == [0.0, 1.0]
    assert got["extra_logs"]["judge_error"] == [1.0, 0.0]


def test_openrlhf_never_judges_prompt_text(reward_service):
    """The prompt holds a correct program; a response with no code must not be rewarded for it, however
    the query is cut: by its prompt, by the template's assistant marker, or refused (422)."""
    prompt = f"Make this faster:\n```python\n{REF}\n```\n"
    templated = {
        "chatml": chat(UNFENCED, prompt),
        "llama3": f"<|start_header_id|>user<|end_header_id|>\n\n{prompt}<|eot_id|>"
        f"<|start_header_id|>assistant<|end_header_id|>\n\n{UNFENCED}<|eot_id|>",
        "mistral": f"<s>[INST] {prompt} [/INST] {UNFENCED}</s>",
    }
    # the prompt as sent differs from the query's start (a tokenizer round trip): the marker decides
    body = {"query": list(templated.values()), "prompts": [prompt.strip() + " "] * 3, "labels": [PROBLEM] * 3}
    got = post(reward_service, body).json()
    assert got["rewards"] == [0.0] * 3 and got["extra_logs"]["format_error"] == [1.0] * 3, got
    # the same templates with the correct program as the response: rewarded
    right = [q.replace(UNFENCED, fenced(REF)) for q in templated.values()]
    assert post(reward_service, {"query": right, "labels": [PROBLEM] * 3}).json()["rewards"] == [1.0] * 3
    # neither the prompt nor a marker: which part is the response cannot be told, so nothing is judged
    for extra in ({}, {"prompts": ["another prompt"]}):
        r = post(reward_service, {"query": [prompt + UNFENCED], "labels": [PROBLEM], **extra})
        assert r.status_code == 422 and "query 0" in r.json()["detail"] and "marker" in r.json()["detail"]


def test_response_of_cuts_after_the_prompt_or_the_last_marker():
    from services.reward.api import response_of

    assert response_of("PROMPT answer", "PROMPT ") == "answer"
    assert response_of("<|im_start|>assistant\nx<|im_end|>", None) == "x"
    # the response quoting a marker is still the response: what follows the last one
    q = "<|im_start|>user\nq<|im_end|>\n<|im_start|>assistant\nsee [/INST] y</s>"
    assert response_of(q, "other") == "y"
    assert response_of("no marker here", None) is None
    assert response_of("my template>>> z", None, ["my template>>>"]) == "z"


@pytest.mark.parametrize(
    "body, says",
    [
        ({"query": ["a", "b"], "labels": [PROBLEM]}, "one problem id per query"),
        ({"query": ["a"], "prompts": ["p", "q"], "labels": [PROBLEM]}, "prompts has 2 items"),
        ({"labels": [PROBLEM]}, "query: Field required"),
        ({"query": [chat(fenced(REF))], "labels": ["no_such_problem"]}, "no_such_problem"),
    ],
    ids=["labels-count", "prompts-count", "no-query", "unknown-problem"],
)
def test_openrlhf_bad_input_is_422_with_a_message(reward_service, body, says):
    r = post(reward_service, body)
    assert r.status_code == 422, r.text
    assert says in r.json()["detail"]


def test_openrlhf_token_and_open_healthz(reward_service):
    body = {"query": [UNFENCED], "labels": [PROBLEM]}
    assert post(reward_service, body, token=None).status_code == 401
    assert post(reward_service, body, token="wrong").status_code == 401
    assert httpx.get(f"{reward_service}/healthz", timeout=10).json() == {"status": "ok", "reward": "R_inf"}


def test_openrlhf_partial_credit_by_request_field(reward_service):
    # hand-computed (spec 13.1): SMALL_ONLY passes 3 of the 7 scopes R_1..R_6, R_inf, and 8 of 17 tests
    responses = [fenced(REF), fenced(SMALL_ONLY), UNFENCED]
    for credit, want in (("discrete", [1.0, 3 / 7, 0.0]), ("continuous", [1.0, 8 / 17, 0.0])):
        body = {"query": [chat(r) for r in responses], "labels": [PROBLEM] * 3, "credit": credit}
        got = post(reward_service, body).json()
        assert got["rewards"] == got["scores"] == want, (credit, got)
        assert got["extra_logs"]["format_error"] == [0.0, 0.0, 1.0]
    bad = post(reward_service, {"query": ["x"], "labels": [PROBLEM], "credit": "half"})
    assert bad.status_code == 422 and "credit" in bad.json()["detail"]


def test_openrlhf_partial_credit_as_the_servers_option(judge):
    from fastapi.testclient import TestClient

    from services.reward.api import create_app

    app = create_app(get_settings(), judge_url=judge.base_url, credit="continuous")
    with TestClient(app) as http:
        assert http.get("/healthz").json() == {"status": "ok", "reward": "continuous_credit"}
        got = http.post("/get_reward", json={"query": [chat(fenced(SMALL_ONLY))], "labels": [PROBLEM]}).json()
        assert got["rewards"] == [8 / 17]
        # a request's own field still wins over the server's option
        body = {"query": [chat(fenced(SMALL_ONLY))], "labels": [PROBLEM], "credit": "r_k"}
        assert http.post("/get_reward", json=body).json()["rewards"] == [0.0]
    with pytest.raises(ValueError, match="unknown credit"):
        create_app(get_settings(), credit="half")
    # isolation: the server's option, a request's field over it; the same credit either way
    app = create_app(get_settings(), judge_url=judge.base_url, credit="continuous", isolation="submission")
    with TestClient(app) as http:
        got = http.post("/get_reward", json={"query": [chat(fenced(SMALL_ONLY))], "labels": [PROBLEM]}).json()
        assert got["rewards"] == [8 / 17]
        body = {"query": [chat(fenced(SMALL_ONLY))], "labels": [PROBLEM], "isolation": "test"}
        assert http.post("/get_reward", json=body).json()["rewards"] == [8 / 17]
        bad = http.post("/get_reward", json={**body, "isolation": "thread"})
        assert bad.status_code == 422 and "isolation" in bad.json()["detail"]
    with pytest.raises(ValueError, match="isolation"):
        create_app(get_settings(), isolation="thread")


def test_openrlhf_unreachable_judge_is_a_502_that_says_so(caplog):
    from fastapi.testclient import TestClient

    from services.reward.api import create_app
    from services.settings import Settings

    dead = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    app = create_app(Settings(judge_client_retries=0), judge_url=dead)
    with TestClient(app) as http, caplog.at_level(logging.ERROR, logger="codefrontier.reward"):
        r = http.post("/get_reward", json={"query": [chat(fenced(REF))], "labels": [PROBLEM]})
    assert r.status_code == 502
    assert "judge did not answer" in r.json()["detail"] and dead in r.json()["detail"]
    assert any("judge request failed" in rec.getMessage() for rec in caplog.records)


def test_verl_unreachable_judge_is_marked_not_a_silent_zero(monkeypatch, caplog):
    monkeypatch.setenv("FRONTIER_JUDGE_URL", f"http://127.0.0.1:{free_port()}")
    monkeypatch.setenv("FRONTIER_JUDGE_CLIENT_RETRIES", "0")  # one attempt: no minute of backoff
    get_settings.cache_clear()
    verl._client.cache_clear()
    try:
        with caplog.at_level(logging.ERROR, logger="codefrontier.verl"):
            one = verl.compute_score("codefrontier", fenced(REF), PROBLEM)
            batch = verl.compute_score_batch(["x"] * 2, [fenced(REF)] * 2, [PROBLEM] * 2, [None, {"k": 2}])
    finally:
        get_settings.cache_clear()
        verl._client.cache_clear()
    for d in [one, *batch]:
        assert d["judge_error"] is True and d["outcome"] == "judge_error" and d["score"] == 0.0
        assert "unreachable" in d["message"]
    # each failed request is logged: the single sample's, and one per k of the batch
    assert len([r for r in caplog.records if r.levelno == logging.ERROR]) == 3


def test_the_client_retry_budget_is_a_setting(monkeypatch):
    monkeypatch.setenv("FRONTIER_JUDGE_CLIENT_RETRIES", "2")
    get_settings.cache_clear()
    try:
        with JudgeClient(f"http://127.0.0.1:{free_port()}") as client:
            assert client.retry.retries == 2
    finally:
        get_settings.cache_clear()


def test_one_grpo_step_with_async_and_partial_credit_rewards(judge, tmp_path):
    """TRL's own GRPOTrainer awaits the async reward and calls both partial credits, on a tiny
    checkpoint that writes the reference solution: every reward is 1 and the outcomes are logged."""
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import GRPOConfig, GRPOTrainer

    from services.testing.checkpoints import make_planted_checkpoints
    from trainer.train import build_dataset

    model = make_planted_checkpoints(tmp_path / "models", {"ref": REF})["ref"]
    tokenizer = AutoTokenizer.from_pretrained(model)
    args = GRPOConfig(
        output_dir=str(tmp_path / "run"),
        max_steps=1,
        per_device_train_batch_size=2,
        num_generations=2,
        beta=0.0,
        max_completion_length=96,
        temperature=0.5,
        logging_steps=1,
        save_strategy="no",
        report_to=[],
        use_cpu=True,
    )
    rewards = [
        AsyncJudgeReward("inf", judge_url=judge.base_url),
        DiscreteCreditReward(client=judge),
        ContinuousCreditReward(client=judge),
    ]
    trainer = GRPOTrainer(
        model=AutoModelForCausalLM.from_pretrained(model),
        reward_funcs=rewards,
        args=args,
        train_dataset=build_dataset([PROBLEM_DIR.parent], tokenizer, problem_ids=[PROBLEM]),
        processing_class=tokenizer,
    )
    trainer.train()
    logged = trainer.state.log_history[0]
    for name in ("judge_R_inf", "judge_discrete_credit", "judge_continuous_credit"):
        assert logged[f"rewards/{name}/mean"] == 1.0, logged
    assert logged["judge/correct"] == 1.0, logged
