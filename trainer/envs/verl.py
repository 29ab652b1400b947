"""A verl tool (`BaseTool`: create / execute / calc_reward / release) over one judge session per rollout.

In verl's tool config (`actor_rollout_ref.rollout.multi_turn.tool_config_path`):

    tools:
      - class_name: trainer.envs.verl.JudgeSessionTool
        config: {type: native, setting: tool, k: inf}      # setting: tool (python) or agentic (bash)

and in each dataset row `extra_info.tools_kwargs.<tool name>.create_kwargs.problem_id`.

verl's tool agent loop calls create, execute and release around every single tool call; a tool that
kept its state in the instance would lose it between calls. This tool keeps one `SessionEnv` per
rollout instead: the rollout is verl's `agent_data` (its `request_id`) where execute receives it, else
the instance (rollout engines that create one instance per request and release it at the end). A
per-call instance's release leaves the rollout's session alone; the session is deleted when the
rollout's `agent_data` is freed (the loop is over), or by the instance's own release where the
instance is the rollout, and in any case by the judge's idle reaper (`limits.idle_s`).

Parameters of a call: `code` (tool setting) or `command` (agentic setting) runs it; `path` with
`content` writes a file; `submit_code` or `submit_path` judges a program, and the call's reward and
`calc_reward` are then its `R_k`. Works without verl installed (a stand-in base class), so it is
importable and testable anywhere.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import weakref
from typing import Any
from uuid import uuid4

from services.judge.client import JudgeClient
from trainer.envs.core import KIND, SETTINGS, SessionEnv

log = logging.getLogger("codefrontier.envs.verl")

try:  # verl is optional: the tool is importable (and testable) without it
    from verl.tools.base_tool import BaseTool
    from verl.tools.schemas import OpenAIFunctionToolSchema
except ImportError:  # pragma: no cover - exercised where verl is absent
    BaseTool = object  # type: ignore[assignment,misc]
    OpenAIFunctionToolSchema = None  # type: ignore[assignment]

try:
    from verl.tools.schemas import ToolResponse
except ImportError:

    class ToolResponse:  # type: ignore[no-redef]
        """verl's ToolResponse where verl is installed; this stand-in otherwise."""

        def __init__(self, text: str | None = None, **extra):
            self.text, self.image, self.video = text, extra.get("image"), extra.get("video")


def default_schema(setting: str, name: str | None = None) -> dict:
    """The tool's OpenAI function schema for a setting (used when the config gives none)."""
    run = "code" if KIND[setting] == "python" else "command"
    what = (
        "Python code (a persistent interpreter)" if run == "code" else "a shell command (a persistent shell)"
    )
    return {
        "type": "function",
        "function": {
            "name": name or KIND[setting],
            "description": f"Run {what} in a sandbox holding the problem's files, write a file, or submit "
            "the final program to be judged.",
            "parameters": {
                "type": "object",
                "properties": {
                    run: {"type": "string", "description": f"{what} to run"},
                    "path": {"type": "string", "description": "a file to write, with content"},
                    "content": {"type": "string", "description": "the file's content"},
                    "submit_code": {"type": "string", "description": "the final program, to be judged"},
                    "submit_path": {"type": "string", "description": "a file holding the final program"},
                },
                "required": [],
            },
        },
    }


class JudgeSessionTool(BaseTool):  # type: ignore[misc,valid-type]
    def __init__(
        self, config: dict | None = None, tool_schema: Any = None, client: JudgeClient | None = None
    ):
        config = dict(config or {})
        self.setting = config.get("setting", "tool")
        if self.setting not in SETTINGS:
            raise ValueError(f"unknown setting {self.setting!r}: one of {', '.join(SETTINGS)}")
        if tool_schema is None:
            schema = default_schema(self.setting, config.get("name"))
            tool_schema = (
                OpenAIFunctionToolSchema.model_validate(schema) if OpenAIFunctionToolSchema else schema
            )
        if BaseTool is not object:
            super().__init__(config, tool_schema)
        else:
            self.config, self.tool_schema = config, tool_schema
            self.name = tool_schema["function"]["name"]
        self.client = client or JudgeClient(config.get("judge_url"))
        self.env_kwargs = {
            key: config[key]
            for key in ("k", "exec_timeout_s", "max_observation_chars", "limits")
            if key in config
        }
        self.env_kwargs.setdefault("max_turns", 1 << 30)  # turns are verl's to count
        self._create_kwargs: dict[str, dict] = {}  # instance id -> its create kwargs
        self._rollout_of: dict[str, str] = {}  # instance id -> rollout key
        self.rollouts: dict[str, SessionEnv] = {}  # rollout key -> its environment (one session)
        self._lock = threading.Lock()
        self._pending: set[asyncio.Future] = set()

    def get_openai_tool_schema(self):
        return self.tool_schema

    async def create(self, instance_id: str | None = None, **kwargs) -> tuple[str, Any]:
        instance_id = instance_id or str(uuid4())
        create_kwargs = kwargs.get("create_kwargs") or kwargs
        self._create_kwargs[instance_id] = dict(create_kwargs)
        return instance_id, ToolResponse()

    def _env(self, instance_id: str, agent_data: Any) -> SessionEnv:
        """The rollout's environment, its session started on first use."""
        key = getattr(agent_data, "request_id", None) if agent_data is not None else None
        key = str(key) if key is not None else instance_id
        self._rollout_of[instance_id] = key
        with self._lock:
            env = self.rollouts.get(key)
            if env is None:
                env = self.rollouts[key] = SessionEnv(self.client, self.setting, **self.env_kwargs)
                if key != instance_id:  # the rollout ends when verl frees its agent_data
                    weakref.finalize(agent_data, self._end_rollout, key)
        if env.session_id is None:
            problem_id = self._create_kwargs.get(instance_id, {}).get("problem_id")
            if not problem_id:
                raise ValueError(
                    "create_kwargs needs the problem_id (extra_info.tools_kwargs.<tool>.create_kwargs)"
                )
            env.reset(problem_id)
        return env

    async def execute(
        self, instance_id: str, parameters: dict[str, Any], **kwargs
    ) -> tuple[Any, float, dict]:
        if isinstance(parameters, str):
            parameters = json.loads(parameters)
        env = await asyncio.to_thread(self._env, instance_id, kwargs.get("agent_data"))
        run = "code" if env.kind == "python" else "command"
        if parameters.get("submit_code") is not None or parameters.get("submit_path") is not None:
            text = await asyncio.to_thread(
                env.submit, code=parameters.get("submit_code"), path=parameters.get("submit_path")
            )
            reward = env.reward or 0.0
        elif parameters.get(run) is not None:
            text, reward = await asyncio.to_thread(env.run, parameters[run]), 0.0
        elif parameters.get("path") is not None:
            text = await asyncio.to_thread(env.write, parameters["path"], parameters.get("content", ""))
            reward = 0.0
        else:
            text, reward = f"nothing to do: give {run}, path and content, submit_code or submit_path", 0.0
        return ToolResponse(text=text), reward, {"session": env.session_id, "outcome": env.outcome}

    async def calc_reward(self, instance_id: str, **kwargs) -> float:
        env = self.rollouts.get(self._rollout_of.get(instance_id, instance_id))
        return (env.reward or 0.0) if env is not None else 0.0

    async def release(self, instance_id: str, **kwargs) -> None:
        self._create_kwargs.pop(instance_id, None)
        key = self._rollout_of.pop(instance_id, instance_id)
        if key == instance_id:  # the instance was the rollout: its session goes with it
            env = self.rollouts.pop(key, None)
            if env is not None:
                await asyncio.to_thread(env.close)

    def _end_rollout(self, key: str) -> None:
        """Called when verl frees a rollout's agent_data: delete its session, off the event loop."""
        with self._lock:
            env = self.rollouts.pop(key, None)
        if env is None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is None:
            self._close_quietly(env)
        else:
            task = loop.run_in_executor(None, self._close_quietly, env)
            self._pending.add(task)
            task.add_done_callback(self._pending.discard)

    @staticmethod
    def _close_quietly(env: SessionEnv) -> None:
        sid = env.session_id
        try:
            env.close()
        except Exception as err:  # the idle reaper ends it anyway; say so
            log.warning("could not delete session %s: %s", sid, err)

    async def settle(self) -> None:
        """Wait for session deletions still in flight (ended rollouts)."""
        while self._pending:
            await asyncio.gather(*list(self._pending), return_exceptions=True)
