"""GRPO on code with the judge's R_k as the reward: TRL's GRPOTrainer, our dataset and reward.

    frontier train --model PATH --problems problems/bundled --k 3 --out runs/grpo-k3

Lax (small k) and strict (large k) runs are the two endpoints the merger interpolates between.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from services.judge.client import JudgeClient
from services.problems.discovery import find_problems, problem_dirs
from services.problems.prompts import ProblemPrompt, prompt_messages, render_prompt
from trainer.repair import RepairReward, RepairRollout, RepairSettings
from trainer.rewards import JudgeReward


def build_dataset(roots: Sequence[Path], tokenizer, problem_ids: Sequence[str] | None = None):
    """One row per problem: the LiveCodeBench-style prompt and the `problem_id` the reward needs."""
    from datasets import Dataset

    rows = []
    for root in roots:
        for found in find_problems(Path(root)):
            spec = found.spec
            if problem_ids and spec.id not in problem_ids:
                continue
            messages = prompt_messages(
                ProblemPrompt(
                    problem_id=spec.id, statement=found.statement or spec.title, function=spec.function
                )
            )
            prompt = (
                messages if getattr(tokenizer, "chat_template", None) else render_prompt(messages, tokenizer)
            )
            rows.append({"prompt": prompt, "problem_id": spec.id})
    if not rows:
        raise ValueError(f"no problems found under {list(map(str, roots))}")
    return Dataset.from_list(rows)


def timed_trainer_class():
    """TRL's GRPOTrainer, logging the seconds each step spends generating and asking the judge."""
    from trl import GRPOTrainer

    class TimedGRPOTrainer(GRPOTrainer):
        """GRPOTrainer that also logs `time/generation_s` and `time/judge_s` (the reward call) per step."""

        def _generate(self, prompts: list):
            start = time.monotonic()
            out = super()._generate(prompts)
            self._log_metric("time/generation_s", time.monotonic() - start)
            return out

        def _calculate_rewards(self, inputs, prompts, completions, completion_ids_list):
            start = time.monotonic()
            out = super()._calculate_rewards(inputs, prompts, completions, completion_ids_list)
            self._log_metric("time/judge_s", time.monotonic() - start)
            return out

    return TimedGRPOTrainer


def train(
    model: str | Path,
    problems: Sequence[Path],
    out_dir: Path,
    *,
    k: int | str = "inf",
    max_steps: int = 100,
    num_generations: int = 8,
    max_completion_length: int = 1024,
    learning_rate: float = 1e-6,
    temperature: float = 1.0,
    judge_url: str | None = None,
    problem_ids: Sequence[str] | None = None,
    register_problems: bool = True,
    seed: int = 0,
    prompts_per_step: int = 1,
    beta: float = 0.0,
    callbacks: Sequence = (),
    use_vllm: bool = False,
    num_iterations: int = 1,
    reward: Callable[[JudgeClient], object] | None = None,
    repair: RepairSettings | None = None,
    dataset=None,
    session=None,
) -> Path:
    """Train with GRPO; returns the directory of the final checkpoint. Each step samples
    `num_generations` completions for each of `prompts_per_step` problems. With `repair`, each
    completion is a multi-turn repair rollout rewarded RLEF-style (trainer/repair.py); `dataset`
    replaces the problems' prompts (repair-only training: failed attempts as prompts). With `session`
    (trainer.envs.rollout.SessionSettings), each completion is a multi-turn rollout in a judge session
    (the tool-use or agentic setting) rewarded with the final submission's R_k."""
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import GRPOConfig

    client = JudgeClient(judge_url) if judge_url else JudgeClient()
    if register_problems:
        for root in problems:
            for d in problem_dirs(Path(root)):
                if not problem_ids or d.name in problem_ids:
                    client.put_problem_dir(d)
    tokenizer = AutoTokenizer.from_pretrained(model)
    if dataset is None:
        dataset = build_dataset(problems, tokenizer, problem_ids)
    args = GRPOConfig(
        output_dir=str(out_dir),
        max_steps=max_steps,
        per_device_train_batch_size=num_generations * prompts_per_step,
        num_generations=num_generations,
        beta=beta,
        # updates per generated batch: more learning per judged sample (PPO-style clipping keeps it safe)
        num_iterations=num_iterations,
        max_completion_length=max_completion_length,
        learning_rate=learning_rate,
        temperature=temperature,
        logging_steps=1,
        save_strategy="no",
        report_to=[],
        seed=seed,
        use_cpu=not _cuda(),
        # TRL's defaults (bf16 autocast, activation checkpointing) only pay on a GPU: on a CPU bf16
        # matmuls are several times slower, and the small models trained there need no checkpointing
        bf16=_cuda(),
        gradient_checkpointing=_cuda(),
        # vLLM generation where asked (a GPU machine with the `gpu` extra), sharing the training GPU
        use_vllm=use_vllm,
        vllm_mode="colocate",
    )
    # R_k by default; `reward` makes another reward function over the same judge client
    reward_funcs = [reward(client) if reward else JudgeReward(k, client=client)] if repair is None else []
    rollout = None
    if repair is not None:
        # the rollout judges every attempt itself; its reward reaches TRL as an extra column
        prompts = dict(zip(dataset["prompt"], dataset["problem_id"], strict=True))
        rollout = RepairRollout(client, prompts, tokenizer, repair, max_completion_length)
        reward_funcs = [RepairReward()]
    elif session is not None:
        from trainer.envs.rollout import SessionReward, SessionRollout

        rollout = SessionRollout(
            client,
            dict(zip(dataset["prompt"], dataset["problem_id"], strict=True)),
            tokenizer,
            session,
            max_completion_length,
        )
        reward_funcs = [SessionReward()]
    trainer = timed_trainer_class()(
        model=AutoModelForCausalLM.from_pretrained(model),
        reward_funcs=reward_funcs,
        args=args,
        train_dataset=dataset,
        processing_class=tokenizer,
        callbacks=list(callbacks),
        rollout_func=rollout,
    )
    trainer.train()
    final = Path(out_dir) / "final"
    trainer.save_model(str(final))
    tokenizer.save_pretrained(final)
    (final / "log_history.json").write_text(json.dumps(trainer.state.log_history, indent=1))
    return final


def _cuda() -> bool:
    import torch

    return torch.cuda.is_available()
