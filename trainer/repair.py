"""Failure-conditioned repair training: the policy sees its failed program and the judge's feedback on
it, and writes the next attempt (docs/spec.md section 12.5).

Multi-turn GRPO (RLEF-style). Each rollout is: attempt, judge it (`feedback: true`), and while it fails
and turns are left, the judge's `feedback_text` as the next user turn, then a repair attempt; up to
`turns` attempts. The rollout's one completion is every attempt and every feedback turn in order;
`env_mask` is 1 on the policy's tokens and 0 on the feedback's, so the loss covers what the policy
wrote and nothing the judge wrote. The reward is the final program's: `pass_reward` when it passes
`R_k`, else `fail_reward`, less `invalid_turn_penalty` per attempt without valid code (no program, or
one that does not compile).

TRL's seam for this is GRPOTrainer's `rollout_func` (`RepairRollout`): it gets the step's prompts
(each repeated `num_generations` times) and the trainer, and returns token ids, `env_mask` and extra
columns that TRL forwards to the reward functions (`RepairReward` reads the rollout's reward from
them). TRL's `environment_factory` does not fit: it drives tool calls through a chat template the
model was trained to call tools with, while a repair turn follows a whole program and the miniature's
policy has no chat template at all.

Repair-only training: failed first attempts collected from a policy (`collect_failures`), each with
its feedback, become the prompts (`repair_dataset`) of single-turn GRPO on `R_k`.

A tiny from-scratch policy has never seen a feedback turn; the paper run warms it up first on SFT
examples of the repair shape (trainer/replication/policy.py, `repair_examples`).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from services.evaluator.records import REPAIR_SAMPLES_FILE
from services.evaluator.repair import evaluate_repair, feedback_of
from services.judge.client import JudgeClient, JudgeResult
from services.problems.prompts import render_repair_turn, repair_context

LANGUAGE = "python"


@dataclass(frozen=True)
class RepairSettings:
    """The numbers of a repair rollout (RLEF's by default: 3 turns, +1 / -1, -0.2 per invalid turn)."""

    turns: int = 3
    k: int | str = "inf"
    pass_reward: float = 1.0
    fail_reward: float = -1.0
    invalid_turn_penalty: float = 0.2
    max_feedback_chars: int = 1024

    @property
    def key(self) -> str:
        return f"R_{self.k}"

    def ks(self) -> list[int] | None:
        return None if self.k == "inf" else [int(self.k)]


# -- pure rules -------------------------------------------------------------------------------------
def passed(result: JudgeResult, key: str) -> bool:
    return result.status == "ok" and bool((result.rewards or {}).get(key))


def valid_code(result: JudgeResult) -> bool:
    """An attempt holds valid code: a program was found and it compiled (a judge error is not the
    policy's fault, so it counts as valid)."""
    if result.status != "ok":
        return True
    if result.outcome == "format_error":
        return False
    return not (result.first_failure and result.first_failure.verdict == "CE")


def rlef_reward(turns: Sequence[JudgeResult], settings: RepairSettings) -> float | None:
    """The reward of one rollout from its judged attempts; None where the judge failed on the last."""
    final = turns[-1]
    if final.status != "ok":
        return None
    reward = settings.pass_reward if passed(final, settings.key) else settings.fail_reward
    return reward - settings.invalid_turn_penalty * sum(not valid_code(t) for t in turns)


def rollout_stats(turns_per_rollout: Sequence[Sequence[JudgeResult]], key: str) -> dict[str, float]:
    """Logged per step: first-attempt and final pass rates, the repair rate (failed first attempts
    fixed later), mean attempts."""
    n = len(turns_per_rollout)
    first = [passed(t[0], key) for t in turns_per_rollout]
    final = [passed(t[-1], key) for t in turns_per_rollout]
    failed_first = n - sum(first)
    fixed = sum(fi and not f for f, fi in zip(first, final, strict=True))
    return {
        "repair/first_pass": sum(first) / n,
        "repair/final_pass": sum(final) / n,
        "repair/repair_rate": fixed / failed_first if failed_first else 0.0,
        "repair/attempts": sum(len(t) for t in turns_per_rollout) / n,
    }


# -- the rollout (TRL's rollout_func) ---------------------------------------------------------------
class RepairRollout:
    """Multi-turn rollouts for GRPOTrainer(rollout_func=...): generates with the trainer's own model,
    judges every attempt with feedback, and returns what TRL needs plus the rollout's reward."""

    def __init__(
        self,
        client: JudgeClient,
        problem_of_prompt: dict[str, str],
        tokenizer,
        settings: RepairSettings,
        max_turn_tokens: int,
    ):
        self.client = client
        self.problem_of_prompt = problem_of_prompt
        self.tokenizer = tokenizer
        self.settings = settings
        self.max_turn_tokens = max_turn_tokens
        self.last_turns: list[list[JudgeResult]] = []

    def __call__(self, prompts: list, trainer) -> dict:
        tok = self.tokenizer
        problem_ids = [self.problem_of_prompt[self._text(p)] for p in prompts]
        prompt_ids = [tok(self._text(p), add_special_tokens=False).input_ids for p in prompts]
        completion_ids: list[list[int]] = [[] for _ in prompts]
        env_mask: list[list[int]] = [[] for _ in prompts]
        turns: list[list[JudgeResult]] = [[] for _ in prompts]
        active = list(range(len(prompts)))
        model = trainer.accelerator.unwrap_model(trainer.model)
        for turn in range(self.settings.turns):
            contexts = [prompt_ids[i] + completion_ids[i] for i in active]
            generated = self._sample(model, contexts, trainer.temperature)
            texts = tok.batch_decode(generated, skip_special_tokens=True)
            results = self.client.judge(
                [
                    {"id": str(i), "problem_id": problem_ids[i], "language": LANGUAGE, "completion": text}
                    for i, text in zip(active, texts, strict=True)
                ],
                ks=self.settings.ks(),
                feedback=True,
            )
            still = []
            for i, ids, result in zip(active, generated, results, strict=True):
                completion_ids[i] += ids
                env_mask[i] += [1] * len(ids)
                turns[i].append(result)
                if (
                    turn == self.settings.turns - 1
                    or result.status != "ok"
                    or passed(result, self.settings.key)
                ):
                    continue
                # the end-of-text after an attempt is the policy's own token, or (cut short) the turn's
                ended = bool(ids) and ids[-1] == tok.eos_token_id
                feedback = feedback_of(result, self.settings.max_feedback_chars)
                text = render_repair_turn(feedback, tok, "" if ended else tok.eos_token)
                turn_ids = tok(text, add_special_tokens=False).input_ids
                completion_ids[i] += turn_ids
                env_mask[i] += [0] * len(turn_ids)
                still.append(i)
            active = still
            if not active:
                break
        self.last_turns = turns
        return {
            "prompt_ids": prompt_ids,
            "completion_ids": completion_ids,
            "logprobs": None,  # the trainer's own model sampled: no importance correction to make
            "env_mask": env_mask,
            "repair_reward": [rlef_reward(t, self.settings) for t in turns],
            "repair_final_outcome": [
                t[-1].outcome.value if t[-1].status == "ok" and t[-1].outcome else "judge_error"
                for t in turns
            ],
            "repair_stats": [rollout_stats(turns, self.settings.key)] * len(turns),
        }

    @staticmethod
    def _text(prompt) -> str:
        if isinstance(prompt, str):
            return prompt
        raise TypeError(
            "repair rollouts take plain-text prompts (a conversational dataset is rendered first)"
        )

    def _sample(self, model, contexts: list[list[int]], temperature: float) -> list[list[int]]:
        return sample_turns(model, self.tokenizer, contexts, temperature, self.max_turn_tokens)


def sample_turns(
    model, tokenizer, contexts: list[list[int]], temperature: float, max_new_tokens: int, stop_strings=None
) -> list[list[int]]:
    """One continuation per context (left-padded into one batch), each cut after its end-of-text, or
    after the first of `stop_strings` it writes (shared by the repair and session rollouts)."""
    import torch

    tok = tokenizer
    pad = tok.pad_token_id if tok.pad_token_id is not None else tok.eos_token_id
    width = max(len(c) for c in contexts)
    input_ids = torch.tensor([[pad] * (width - len(c)) + c for c in contexts])
    attention = torch.tensor([[0] * (width - len(c)) + [1] * len(c) for c in contexts])
    device = next(model.parameters()).device
    # a row that wrote a stop string stops generating (padded from there); it is cut below
    stop = {"stop_strings": list(stop_strings), "tokenizer": tok} if stop_strings else {}
    with torch.no_grad():
        out = model.generate(
            input_ids=input_ids.to(device),
            attention_mask=attention.to(device),
            do_sample=True,
            temperature=temperature,
            top_k=0,
            top_p=1.0,
            max_new_tokens=max_new_tokens,
            pad_token_id=pad,
            eos_token_id=tok.eos_token_id,
            **stop,
        )
    rows = []
    for row in out[:, width:].tolist():
        cut = row.index(tok.eos_token_id) + 1 if tok.eos_token_id in row else len(row)
        if stop_strings:
            cut = _cut_at_stop(tok, row[:cut], stop_strings)
        rows.append(row[:cut])
    return rows


def _cut_at_stop(tok, row: list[int], stop_strings) -> int:
    """The shortest prefix of `row` whose text holds one of `stop_strings` (all of it when none does):
    a binary search, since holding one only becomes true as the prefix grows."""

    def holds(n: int) -> bool:
        text = tok.decode(row[:n], skip_special_tokens=True)
        return any(s in text for s in stop_strings)

    if not holds(len(row)):
        return len(row)
    lo, hi = 1, len(row)
    while lo < hi:
        mid = (lo + hi) // 2
        if holds(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo


class RepairReward:
    """The rollout's RLEF reward, as a TRL reward function (the rollout judged every attempt already);
    logs the final outcomes as `judge/<outcome>` and the rollout statistics as `repair/*`."""

    __name__ = "repair_rlef"

    def __call__(self, prompts, completions, repair_reward, **kwargs) -> list:
        log_metric = kwargs.get("log_metric")
        if callable(log_metric):
            outcomes = Counter(kwargs.get("repair_final_outcome") or [])
            for outcome, n in outcomes.items():
                log_metric(f"judge/{outcome}", n / len(repair_reward))
            for name, value in ((kwargs.get("repair_stats") or [{}])[0]).items():
                log_metric(name, value)
        return list(repair_reward)


# -- repair-only training: failed attempts as prompts ------------------------------------------------
@dataclass(frozen=True)
class FailedAttempt:
    problem_id: str
    prompt: str
    completion: str
    feedback_text: str
    outcome: str


def collect_failures(
    checkpoint: str,
    benchmark: str,
    prompts: dict[str, str],
    client: JudgeClient,
    run_dir: Path,
    *,
    n_samples: int,
    temperature: float,
    max_tokens: int,
    settings: RepairSettings,
    seed: int = 0,
) -> list[FailedAttempt]:
    """Sample `n_samples` first attempts per problem (prompts: problem id -> prompt text) from a
    checkpoint as the evaluator does (a one-turn repair evaluation into `run_dir`), and keep the ones
    that fail `R_k`, each with the judge's feedback."""
    evaluate_repair(
        [checkpoint],
        benchmark,
        n_samples,
        1,
        temperature,
        max_tokens,
        run_dir,
        problems=list(prompts),
        seed=seed,
        backend="transformers",
        judge=client,
        show_progress=False,
    )
    failures = []
    for line in (Path(run_dir) / REPAIR_SAMPLES_FILE).read_text().splitlines():
        sample = json.loads(line)
        attempt = sample["attempts"][0]
        if attempt["outcome"] == "judge_error" or (attempt.get("rewards") or {}).get(settings.key):
            continue
        feedback = attempt.get("feedback") or "The program failed."
        pid = sample["problem_id"]
        failures.append(FailedAttempt(pid, prompts[pid], attempt["completion"], feedback, attempt["outcome"]))
    return failures


def repair_dataset(failures: Sequence[FailedAttempt], tokenizer):
    """The repair policy's prompts: one row per failed attempt (its prompt, attempt and feedback), with
    the `problem_id` the reward needs."""
    from datasets import Dataset

    if not failures:
        raise ValueError("no failed attempts to repair")
    return Dataset.from_list(
        [
            {
                "prompt": repair_context(f.prompt, [(f.completion, f.feedback_text)], tokenizer),
                "problem_id": f.problem_id,
            }
            for f in failures
        ]
    )
