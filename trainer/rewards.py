"""The judge's rewards as TRL reward functions, asked of the judge over HTTP.

    from trl import GRPOTrainer
    from trainer.rewards import JudgeReward, DiscreteCreditReward, ContinuousCreditReward

    trainer = GRPOTrainer(model=..., reward_funcs=[JudgeReward(k=3)], train_dataset=ds, args=...)

- `JudgeReward(k)`: `R_k`, 0 or 1 (spec section 13).
- `DiscreteCreditReward()`: partial credit, the fraction of the reported scopes `R_1..R_inf` passed.
- `ContinuousCreditReward()`: partial credit, the fraction of tests passed, every test run (`full`).
- `AsyncJudgeReward(k)`: `R_k` through `AsyncJudgeClient`; TRL awaits it on its own event loop.

Each takes `isolation="submission"` to have the judge fork a completion's tests from one sandboxed
snapshot of it (docs/spec.md 4.8): faster on small tests, the same verdicts (no work carries from
test to test).

The dataset needs a `problem_id` column (TRL passes every extra column to reward functions). A
judge error (`status: judge_error`) gives None, which TRL leaves out of the group's statistics
instead of punishing the policy for the judge's failure.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from services.judge.client import AsyncJudgeClient, JudgeClient, JudgeResult
from services.judge.core.credit import continuous_credit, discrete_credit, r_k_credit
from services.judge.core.models import check_isolation
from services.settings import get_settings


def completion_text(completion) -> str:
    """TRL passes plain strings, or for conversational data a list of messages."""
    if isinstance(completion, str):
        return completion
    return "".join(m.get("content", "") for m in completion if m.get("role", "assistant") == "assistant")


# the pure scoring of one judged result (status "ok") lives with the judge, shared with the reward
# service and the verl adapter; imported here so that `trainer.rewards.discrete_credit` keeps working
__all__ = [
    "AsyncJudgeReward",
    "ContinuousCreditReward",
    "DiscreteCreditReward",
    "JudgeReward",
    "completion_text",
    "continuous_credit",
    "discrete_credit",
    "r_k_credit",
]


# -- TRL reward functions ---------------------------------------------------------------------------
class JudgeReward:
    """`R_k` (k = 1, 2, ... or "inf") of each completion; None where the judge itself failed."""

    mode = "first_failure"

    def __init__(
        self,
        k: int | str = "inf",
        *,
        language: str = "python",
        mode: str | None = None,
        client: JudgeClient | None = None,
        judge_url: str | None = None,
        token: str | None = None,
        isolation: str | None = None,
    ):
        if k != "inf" and not (isinstance(k, int) and k >= 1):
            raise ValueError("k must be a positive integer or 'inf'")
        self.k = k
        self.key = f"R_{k}"
        self.language = language
        self.mode = mode or self.mode
        # None: the judge's FRONTIER_ISOLATION; "submission" runs a completion's tests in one process
        self.isolation = check_isolation(isolation)
        self.judge_url = judge_url or get_settings().judge_url
        self.token = token
        # the judge's bearer token: `token`, else FRONTIER_API_TOKEN, as every client of the stack
        self.client = client or self._make_client()
        self.__name__ = f"judge_{self.key}"  # TRL names the logged reward column after this
        self.last_outcomes: Counter = Counter()

    def _make_client(self):
        return JudgeClient(self.judge_url, token=self.token)

    def ks(self) -> list[int] | None:
        """The ks asked of the judge: only k's own (none for "inf": R_inf is always reported)."""
        return None if self.k == "inf" else [self.k]

    def score(self, result: JudgeResult) -> float:
        """The reward of one judged (status "ok") result."""
        return r_k_credit(result, self.key)

    def submissions(self, completions: Sequence, problem_id: Sequence[str]) -> list[dict]:
        return [
            {"id": str(i), "problem_id": pid, "language": self.language, "completion": completion_text(c)}
            for i, (pid, c) in enumerate(zip(problem_id, completions, strict=True))
        ]

    def rewards(self, results: Sequence[JudgeResult], log_metric=None) -> list:
        """One reward per result, None for a judge error; logs each outcome's share as `judge/<outcome>`."""
        self.last_outcomes = Counter(r.outcome if r.status == "ok" else "judge_error" for r in results)
        if callable(log_metric):
            for outcome, n in self.last_outcomes.items():
                log_metric(f"judge/{outcome}", n / len(results))
        return [None if r.status != "ok" else self.score(r) for r in results]

    def __call__(self, prompts: Sequence, completions: Sequence, problem_id: Sequence[str], **kwargs) -> list:
        subs = self.submissions(completions, problem_id)
        results = self.client.judge(subs, mode=self.mode, ks=self.ks(), isolation=self.isolation)
        return self.rewards(results, kwargs.get("log_metric"))


class DiscreteCreditReward(JudgeReward):
    """Partial credit: the fraction of the scopes `R_1..R_inf` (the judge's default ks) passed."""

    def __init__(self, **kwargs):
        super().__init__("inf", **kwargs)
        self.__name__ = "judge_discrete_credit"

    def ks(self) -> None:
        return None  # the judge's default: every k up to the one covering all inputs

    def score(self, result: JudgeResult) -> float:
        return discrete_credit(result)


class ContinuousCreditReward(JudgeReward):
    """Partial credit: the fraction of tests passed, with every test run (`full` mode)."""

    mode = "full"

    def __init__(self, **kwargs):
        super().__init__("inf", **kwargs)
        self.__name__ = "judge_continuous_credit"

    def score(self, result: JudgeResult) -> float:
        return continuous_credit(result)


class AsyncJudgeReward(JudgeReward):
    """`R_k` asked through `AsyncJudgeClient`: TRL runs async reward functions concurrently on its own
    event loop. Without a `client`, one is opened per call, so no connection outlives its loop."""

    def _make_client(self):
        return None

    async def __call__(
        self, prompts: Sequence, completions: Sequence, problem_id: Sequence[str], **kwargs
    ) -> list:
        subs = self.submissions(completions, problem_id)
        if self.client is not None:
            results = await self.client.judge(subs, mode=self.mode, ks=self.ks(), isolation=self.isolation)
        else:
            async with AsyncJudgeClient(self.judge_url, token=self.token) as client:
                results = await client.judge(subs, mode=self.mode, ks=self.ks(), isolation=self.isolation)
        return self.rewards(results, kwargs.get("log_metric"))
