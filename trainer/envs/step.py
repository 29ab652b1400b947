"""Step-style environments (`reset` / `step` / `close`) for SkyRL-gym and OpenRLHF's agent functions,
thin over `SessionEnv`: one judge session per episode, the reward `R_k` of the final submission.

SkyRL-gym: register the class and name it in the dataset rows (`env_class`), with the problem id as
the reward spec's ground truth:

    from skyrl_gym.envs import register
    register(id="codefrontier", entry_point="trainer.envs.step:SkyRLSessionEnv")
    # row: {"prompt": [...], "env_class": "codefrontier", "reward_spec": {"ground_truth": "<problem id>"}}
    # env config (environment.skyrl_gym.codefrontier): {setting: tool | agentic, k: inf, max_turns: 4}

OpenRLHF: `--agent_func_path trainer/envs/step.py` with the problem id as each sample's label
(`--label_key`); FRONTIER_ENV_SETTING (tool | agentic), FRONTIER_ENV_K and FRONTIER_ENV_MAX_TURNS pick
the setting. Both classes work without their trainer installed (a plain base class stands in).
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

from trainer.envs.core import SessionEnv

try:  # SkyRL-gym is optional
    from skyrl_gym.envs.base_text_env import BaseTextEnv, BaseTextEnvStepOutput
except ImportError:  # pragma: no cover - where SkyRL-gym is absent
    BaseTextEnv = object  # type: ignore[assignment,misc]
    BaseTextEnvStepOutput = dict  # type: ignore[assignment,misc]

try:  # OpenRLHF is optional
    from openrlhf.utils.agent import AgentExecutorBase, AgentInstanceBase
except ImportError:  # pragma: no cover - where OpenRLHF is absent
    AgentExecutorBase = None
    AgentInstanceBase = object  # type: ignore[assignment,misc]


def _env_kwargs(config: Any) -> dict:
    get = config.get if hasattr(config, "get") else (lambda key, default=None: getattr(config, key, default))
    out = {"setting": get("setting", "tool")}
    for key in ("k", "max_turns", "exec_timeout_s", "max_observation_chars", "limits"):
        if get(key, None) is not None:
            out[key] = get(key)
    if "limits" in out and not isinstance(out["limits"], dict):
        out["limits"] = dict(out["limits"])
    return out


class SkyRLSessionEnv(BaseTextEnv):  # type: ignore[misc,valid-type]
    """SkyRL-gym's text environment: `init(prompt)` starts the session and appends the setting's
    instructions to the last message; `step(action)` answers `BaseTextEnvStepOutput` (`observations`
    as one user message, `reward`, `done`, `metadata`); `close()` deletes the session."""

    def __init__(self, env_config: Any = None, extras: dict | None = None, client=None):
        if BaseTextEnv is not object:
            super().__init__()
        extras = extras or {}
        spec = extras.get("reward_spec") or {}
        self.problem_id = spec.get("ground_truth") or extras.get("problem_id")
        if not self.problem_id:
            raise ValueError("the row needs reward_spec.ground_truth: the problem id")
        kwargs = _env_kwargs(env_config or {})
        self.env = SessionEnv(client, kwargs.pop("setting"), **kwargs)
        self.max_turns = self.env.max_turns

    def init(self, prompt: list[dict]) -> tuple[list[dict], dict]:
        tail = self.env.reset(self.problem_id)
        prompt = [*prompt[:-1], {**prompt[-1], "content": prompt[-1]["content"] + tail}]
        return prompt, {"session": self.env.session_id}

    def step(self, action: str):
        s = self.env.step(action)
        observations = [] if s.done else [{"role": "user", "content": s.observation}]
        return BaseTextEnvStepOutput(
            observations=observations,
            reward=s.reward if s.reward is not None else 0.0,
            done=s.done,
            metadata={**s.info, "judge_error": s.reward is None},
        )

    def close(self) -> None:
        self.env.close()


class AgentInstance(AgentInstanceBase):  # type: ignore[misc,valid-type]
    """OpenRLHF's agent instance (one per sample): `reset(states)` starts the session for the label's
    problem and returns the prompt with the setting's instructions; `step(states)` runs the action in
    `states["action_text"]` and returns `rewards`, `scores`, `environment_feedback`, `done`,
    `sampling_params` and `extra_logs`. The session is deleted when the episode is done."""

    def __init__(self, *args, client=None, **kwargs):
        config = {
            "setting": os.environ.get("FRONTIER_ENV_SETTING", "tool"),
            "k": os.environ.get("FRONTIER_ENV_K", "inf"),
            "max_turns": int(os.environ.get("FRONTIER_ENV_MAX_TURNS", "4")),
        }
        config.update(kwargs.get("config") or {})
        kwargs_env = _env_kwargs(config)
        self.env = SessionEnv(client, kwargs_env.pop("setting"), **kwargs_env)

    async def reset(self, states: dict, **kwargs) -> dict:
        problem_id = states.get("label")
        if not problem_id:
            raise ValueError("each sample's label must be its problem id")
        tail = await asyncio.to_thread(self.env.reset, problem_id)
        return {"observation": states.get("observation", "") + tail}

    async def step(self, states: dict, **kwargs) -> dict[str, Any]:
        s = await asyncio.to_thread(self.env.step, states["action_text"])
        reward = s.reward if s.reward is not None else 0.0
        if s.done:
            await asyncio.to_thread(self.env.close)
        return {
            "rewards": _tensor(reward),
            "scores": _tensor(reward),
            "environment_feedback": "" if s.done else s.observation,
            "done": s.done,
            "sampling_params": states.get("sampling_params"),
            "extra_logs": {
                "judge_error": _tensor(float(s.reward is None)),
                "turns": _tensor(float(s.info["turn"])),
            },
        }

    async def close(self) -> None:
        await asyncio.to_thread(self.env.close)


def _tensor(x: float):
    try:
        import torch
    except ImportError:  # pragma: no cover
        return x
    return torch.tensor(x)


if AgentExecutorBase is not None:  # pragma: no cover - only where OpenRLHF is installed

    class AgentExecutor(AgentExecutorBase):
        """OpenRLHF's executor over `AgentInstance` (its other arguments as OpenRLHF passes them)."""

        def __init__(self, *args, **kwargs):
            super().__init__(AgentInstance, *args, **kwargs)
