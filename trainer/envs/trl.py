"""TRL environments (GRPOTrainer's `environment_factory`) over a judge session per rollout.

    from trainer.envs.trl import environment_factory
    trainer = GRPOTrainer(model=..., train_dataset=ds,   # ds has a `problem_id` column
                          environment_factory=environment_factory("tool", k="inf"))

TRL makes one instance per rollout (and reuses instances across steps), calls `reset(**row)` before
generation, exposes every public method but `reset` and `get_reward` as a tool (name, type hints and
docstring make its schema), and calls `get_reward()` once per finished rollout. Here `reset` starts a
new judge session for the row's `problem_id` (deleting the instance's previous one), the tools act in
that session, and `get_reward` is `R_k` of the program submitted through the `submit` tool (0.0
without one), after which the session is deleted. The model needs a chat template with tool calling.
"""

from __future__ import annotations

from functools import partial

from services.judge.client import JudgeClient
from trainer.envs.core import SessionEnv


class _JudgeEnvironment:
    setting = "tool"

    def __init__(self, client: JudgeClient | None = None, **env_kwargs):
        self._env = SessionEnv(client, self.setting, **env_kwargs)

    def reset(self, problem_id: str | None = None, **row) -> str | None:
        if problem_id is None:
            raise ValueError("the training dataset needs a problem_id column")
        return self._env.reset(problem_id)

    def get_reward(self) -> float | None:
        try:
            return self._env.reward
        finally:
            self._env.close()

    def _close(self) -> None:
        self._env.close()


class ToolUseEnvironment(_JudgeEnvironment):
    """The tool-use setting: a persistent Python interpreter, then the program submitted."""

    setting = "tool"

    def python(self, code: str) -> str:
        """Run Python code in a persistent interpreter; variables survive between calls.

        Args:
            code: The Python code to run.

        Returns:
            The code's stdout and stderr, and a line for an error or a limit.
        """
        return self._env.run(code)

    def submit(self, code: str) -> str:
        """Submit the final program (reads stdin, writes stdout) to be judged. Call it once, at the end.

        Args:
            code: The whole program.

        Returns:
            The judge's outcome.
        """
        return self._env.submit(code=code)


class AgenticEnvironment(_JudgeEnvironment):
    """The agentic setting: a persistent shell in a directory with statement.md and example tests."""

    setting = "agentic"

    def bash(self, command: str) -> str:
        """Run a shell command; the working directory and exported variables survive between calls.

        Args:
            command: The command line.

        Returns:
            The command's stdout and stderr, and a line for a non-zero exit code or a limit.
        """
        return self._env.run(command)

    def write_file(self, path: str, content: str) -> str:
        """Write a file in the working directory.

        Args:
            path: The file's path, relative to the working directory.
            content: The file's whole content.

        Returns:
            How many bytes were written.
        """
        return self._env.write(path, content)

    def read_file(self, path: str) -> str:
        """Read a file of the working directory.

        Args:
            path: The file's path, relative to the working directory.

        Returns:
            The file's content.
        """
        return self._env.read(path)

    def submit(self, path: str) -> str:
        """Submit a program file to be judged on the problem's tests. Call it once, at the end.

        Args:
            path: The program's path, relative to the working directory (e.g. solution.py).

        Returns:
            The judge's outcome.
        """
        return self._env.submit(path=path)


ENVIRONMENTS = {"tool": ToolUseEnvironment, "agentic": AgenticEnvironment}


def environment_factory(setting: str = "tool", client: JudgeClient | None = None, **env_kwargs):
    """What GRPOTrainer's `environment_factory` takes: a no-argument callable making one environment
    of the setting ("tool" or "agentic"); keyword arguments go to `SessionEnv` (k, limits, ...)."""
    if setting not in ENVIRONMENTS:
        raise ValueError(f"unknown setting {setting!r}: one of {', '.join(ENVIRONMENTS)}")
    return partial(ENVIRONMENTS[setting], client, **env_kwargs)
