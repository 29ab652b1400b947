"""Multi-turn GRPO rollouts in the tool-use and agentic settings, through TRL's `rollout_func`
(docs/spec.md section 13.5).

Each rollout holds one `SessionEnv` (one judge session): the prompt is the problem's prompt with the
setting's instructions; then, turn by turn, the policy writes until the end of an action (its closing
tag) or its end-of-text, the environment runs that action and its observation becomes the next
tokens, up to `turns` policy turns or a submission. The completion is every turn and every
observation in order; `env_mask` is 1 on the policy's tokens and 0 on the observations', so the loss
covers only what the policy wrote. The reward is `R_k` of the final submission (0.0 without one,
None on a judge error). Sampling is the repair rollout's (`trainer.repair.sample_turns`); plain-text
prompts only, as there: the miniature's policy has no chat template (TRL's `environment_factory`,
`trainer.envs.trl`, serves models that have one and call tools through it).
"""

from __future__ import annotations

from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from services.judge.client import JudgeClient
from trainer.envs.core import SETTINGS, STOP_STRINGS, SessionEnv
from trainer.repair import sample_turns


@dataclass(frozen=True)
class SessionSettings:
    """The numbers of a session rollout."""

    setting: str = "tool"
    turns: int = 4
    k: int | str = "inf"
    exec_timeout_s: float = 10.0
    max_observation_chars: int = 512
    limits: dict | None = None
    credit: str = "r_k"  # "discrete" / "continuous": the submission's partial credit as the reward
    retry: bool = False  # a failed submission's feedback, then another try (SessionEnv's `retry`)

    def __post_init__(self):
        if self.setting not in SETTINGS:
            raise ValueError(f"unknown setting {self.setting!r}: one of {', '.join(SETTINGS)}")
        if self.turns < 1:
            raise ValueError("turns must be at least 1")

    def env(self, client: JudgeClient) -> SessionEnv:
        return SessionEnv(
            client,
            self.setting,
            k=self.k,
            max_turns=self.turns,
            exec_timeout_s=self.exec_timeout_s,
            max_observation_chars=self.max_observation_chars,
            limits=self.limits,
            credit=self.credit,
            retry=self.retry,
        )


class SessionRollout:
    """GRPOTrainer(rollout_func=...): one judge session per rollout, the policy's turns and the
    environment's observations, and the final submission's reward as an extra column."""

    def __init__(
        self,
        client: JudgeClient,
        problem_of_prompt: dict[str, str],
        tokenizer,
        settings: SessionSettings,
        max_turn_tokens: int,
        parallel: int = 8,
    ):
        self.client = client
        self.problem_of_prompt = problem_of_prompt
        self.tokenizer = tokenizer
        self.settings = settings
        self.max_turn_tokens = max_turn_tokens
        self.parallel = parallel
        self.last_transcripts: list[str] = []  # each rollout's text (prompt, turns, observations)
        self.last_envs: list[SessionEnv] = []

    def __call__(self, prompts: list, trainer) -> dict:
        tok = self.tokenizer
        texts = [_text(p) for p in prompts]
        envs = [self.settings.env(self.client) for _ in prompts]
        with ThreadPoolExecutor(max(1, min(self.parallel, len(envs)))) as pool:
            try:
                return self._roll(tok, texts, envs, pool, trainer)
            finally:
                list(pool.map(lambda e: e.close(), envs))
                self.last_envs = envs

    def _roll(self, tok, texts, envs, pool, trainer) -> dict:
        problem_ids = [self.problem_of_prompt[t] for t in texts]
        tails = list(pool.map(lambda a: a[0].reset(a[1]), zip(envs, problem_ids, strict=True)))
        prompt_ids = [
            tok(t + tail, add_special_tokens=False).input_ids for t, tail in zip(texts, tails, strict=True)
        ]
        transcripts = [t + tail for t, tail in zip(texts, tails, strict=True)]
        completion_ids: list[list[int]] = [[] for _ in texts]
        env_mask: list[list[int]] = [[] for _ in texts]
        active = list(range(len(texts)))
        model = trainer.accelerator.unwrap_model(trainer.model)
        stops = STOP_STRINGS[self.settings.setting]
        while active:
            contexts = [prompt_ids[i] + completion_ids[i] for i in active]
            generated = sample_turns(model, tok, contexts, trainer.temperature, self.max_turn_tokens, stops)
            turns = tok.batch_decode(generated, skip_special_tokens=True)
            steps = list(pool.map(lambda a: envs[a[0]].step(a[1]), zip(active, turns, strict=True)))
            still = []
            for i, ids, turn, step in zip(active, generated, turns, steps, strict=True):
                completion_ids[i] += ids
                env_mask[i] += [1] * len(ids)
                transcripts[i] += turn
                if step.done:
                    continue
                observation = "\n" + step.observation
                obs_ids = tok(observation, add_special_tokens=False).input_ids
                completion_ids[i] += obs_ids
                env_mask[i] += [0] * len(obs_ids)
                transcripts[i] += observation
                still.append(i)
            active = still
        self.last_transcripts = transcripts
        outcomes = [e.outcome for e in envs]
        stats = {
            "session/turns": sum(e.turns for e in envs) / len(envs),
            "session/submitted": sum(e.result is not None for e in envs) / len(envs),
            "session/pass": sum(bool(e.reward) for e in envs) / len(envs),
        }
        return {
            "prompt_ids": prompt_ids,
            "completion_ids": completion_ids,
            "logprobs": None,  # the trainer's own model sampled: no importance correction to make
            "env_mask": env_mask,
            "session_reward": [e.reward for e in envs],
            "session_outcome": outcomes,
            "session_stats": [stats] * len(envs),
        }


def _text(prompt) -> str:
    if isinstance(prompt, str):
        return prompt
    raise TypeError("session rollouts take plain-text prompts (a conversational dataset is rendered first)")


class SessionReward:
    """The final submission's `R_k`, as a TRL reward function (the rollout judged it already); logs
    the final outcomes as `judge/<outcome>` and the rollout statistics as `session/*`."""

    __name__ = "session_R_k"

    def __call__(self, prompts, completions, session_reward, **kwargs) -> list:
        log_metric = kwargs.get("log_metric")
        if callable(log_metric):
            for outcome, n in Counter(kwargs.get("session_outcome") or []).items():
                log_metric(f"judge/{outcome}", n / len(session_reward))
            for name, value in ((kwargs.get("session_stats") or [{}])[0]).items():
                log_metric(name, value)
        return list(session_reward)
