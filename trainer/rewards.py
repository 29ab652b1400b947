"""R_k as a TRL reward function, asked of the judge over HTTP.

    from trl import GRPOTrainer
    from trainer.rewards import JudgeReward

    trainer = GRPOTrainer(model=..., reward_funcs=[JudgeReward(k=3)], train_dataset=ds, args=...)

The dataset needs a `problem_id` column (TRL passes every extra column to reward functions). A
judge error (`status: judge_error`) gives None, which TRL leaves out of the group's statistics
instead of punishing the policy for the judge's failure.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from services.judge.client import JudgeClient
from services.settings import get_settings


def completion_text(completion) -> str:
    """TRL passes plain strings, or for conversational data a list of messages."""
    if isinstance(completion, str):
        return completion
    return "".join(m.get("content", "") for m in completion if m.get("role", "assistant") == "assistant")


class JudgeReward:
    """`R_k` (k = 1, 2, ... or "inf") of each completion; None where the judge itself failed."""

    def __init__(
        self,
        k: int | str = "inf",
        *,
        language: str = "python",
        mode: str = "first_failure",
        client: JudgeClient | None = None,
        judge_url: str | None = None,
        token: str | None = None,
    ):
        if k != "inf" and not (isinstance(k, int) and k >= 1):
            raise ValueError("k must be a positive integer or 'inf'")
        self.k = k
        self.key = f"R_{k}"
        self.language = language
        self.mode = mode
        # the judge's bearer token: `token`, else FRONTIER_API_TOKEN, as every client of the stack
        self.client = client or JudgeClient(judge_url or get_settings().judge_url, token=token)
        self.__name__ = f"judge_{self.key}"  # TRL names the logged reward column after this
        self.last_outcomes: Counter = Counter()

    def __call__(self, prompts: Sequence, completions: Sequence, problem_id: Sequence[str], **kwargs) -> list:
        subs = [
            {"id": str(i), "problem_id": pid, "language": self.language, "completion": completion_text(c)}
            for i, (pid, c) in enumerate(zip(problem_id, completions, strict=True))
        ]
        results = self.client.judge(subs, mode=self.mode, ks=None if self.k == "inf" else [self.k])
        self.last_outcomes = Counter(r.outcome if r.status == "ok" else "judge_error" for r in results)
        log_metric = kwargs.get("log_metric")
        if callable(log_metric):
            for outcome, n in self.last_outcomes.items():
                log_metric(f"judge/{outcome}", n / len(results))
        return [None if r.status != "ok" else float(r.rewards[self.key]) for r in results]
