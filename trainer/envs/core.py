"""The one environment under every trainer adapter: a judge session per rollout (docs/spec.md 13.5).

`SessionEnv` holds one session of the judge (spec 6.6) for one rollout of one problem:

    env = SessionEnv(client, setting="tool", k="inf")
    prompt_tail = env.reset("prefix_range_sums")   # a new session with the problem's files
    step = env.step(model_turn_text)                 # parse one action, run it, observe
    ... until step.done; step.reward is R_k of the submitted program
    env.close()                                      # the session is deleted

Two settings, each with a text format the policy writes (`FORMATS`, parsed by `parse_action`):

- `tool` (a python session): `<python>\ncode\n</python>` runs code in the persistent interpreter
  (variables survive between calls); the answer is a program in a fenced python block outside any
  tool call, submitted to the judge, which ends the rollout.
- `agentic` (a bash session whose working directory holds `statement.md` and the example tests
  `tests/*.in` / `.out`): `<bash>\ncommand\n</bash>` runs a shell command (cwd and exported variables
  survive), `<write path="solution.py">\ncontent\n</write>` writes a file, `<submit path="solution.py"/>`
  submits a file and ends the rollout.

The environment answers each action with an observation in `<output>...</output>` (stdout, then
stderr, then a line for a non-zero exit code or a limit, cut to `max_observation_chars`). The reward
is `R_k` of the final submission as 0.0 / 1.0 (`None` when the judge failed, so trainers can leave
it out), and 0.0 when the rollout ended without one; with `credit` ("discrete", "continuous") the
partial credit of that submission instead (services/judge/core/credit.py). With `retry`, a judged
submission that fails `R_k` does not end the rollout while turns are left: its observation is the
verdict and the judge's feedback on it, and the next submission replaces it (failure-conditioned
repair in a session; the reward is the last submission's). The adapters (TRL, verl, SkyRL-gym, OpenRLHF,
the GRPO rollouts) are thin layers over this class, through the one judge client.
"""

from __future__ import annotations

import base64
import threading
from dataclasses import dataclass, field
from typing import Literal

import re2

from services.judge.client import JudgeClient, JudgeClientError, JudgeResult
from services.judge.core.credit import CREDITS
from services.judge.core.credit import request as credit_request
from services.judge.core.credit import score as credit_score
from services.judge.core.extract import extract_code

Setting = Literal["tool", "agentic"]
SETTINGS: tuple[str, ...] = ("tool", "agentic")
KIND = {"tool": "python", "agentic": "bash"}
DEFAULT_PATH = "solution.py"

FORMATS = {
    "tool": (
        "You may run Python before answering. To run code, write\n"
        "<python>\ncode\n</python>\n"
        "and the output comes back in <output>...</output>; variables survive between runs. "
        "When you are done, give the final program in a ```python code block."
    ),
    "agentic": (
        "You have a shell in a working directory holding statement.md and example tests "
        "(tests/NAME.in, tests/NAME.out). One action per turn:\n"
        "<bash>\ncommand\n</bash> runs a command;\n"
        '<write path="solution.py">\ncontent\n</write> writes a file;\n'
        '<submit path="solution.py"/> submits the file to be judged, which ends the task.\n'
        "Each action's output comes back in <output>...</output>."
    ),
}
# where generation should stop within a turn: after the closing tag of an action
STOP_STRINGS = {"tool": ["</python>"], "agentic": ["</bash>", "</write>", "/>", "</submit>"]}

# a completion is untrusted text: re2 (linear time); Python's re took a second on 32 KB of unclosed tags
_PYTHON = re2.compile(r"(?s)<python>\n?(.*?)</python>")
_BASH = re2.compile(r"(?s)<bash>\n?(.*?)</bash>")
_WRITE = re2.compile(r"(?s)<write\s+path\s*=\s*\"([^\"]+)\"\s*>\n?(.*?)</write>")
_SUBMIT = re2.compile(r"(?s)<submit(?:\s+path\s*=\s*\"([^\"]+)\")?\s*(?:/>|>\s*([^<]*?)\s*</submit>)")


@dataclass(frozen=True)
class Action:
    """One parsed action: `run` (python code or a bash command), `write`, `submit` (a path or code),
    or `none` (nothing the format knows)."""

    kind: Literal["run", "write", "submit", "none"]
    text: str = ""
    path: str | None = None


def parse_action(setting: str, turn: str) -> Action:
    """The first action of a turn in the setting's format (pure). Tool use: a `<python>` call, else
    the program of a fenced python block (the judge's extraction rules) as the answer. Agentic:
    the earliest `<bash>`, `<write>` or `<submit>`."""
    if setting == "tool":
        call = _PYTHON.search(turn)
        if call:
            return Action("run", call.group(1))
        code = extract_code(turn, "python")
        return Action("submit", code) if code is not None else Action("none")
    if setting != "agentic":
        raise ValueError(f"unknown setting {setting!r}: one of {', '.join(SETTINGS)}")
    found = []
    for pattern, make in (
        (_BASH, lambda m: Action("run", m.group(1))),
        (_WRITE, lambda m: Action("write", m.group(2), m.group(1))),
        (_SUBMIT, lambda m: Action("submit", path=(m.group(1) or m.group(2) or DEFAULT_PATH).strip())),
    ):
        m = pattern.search(turn)
        if m:
            found.append((m.start(), make(m)))
    return min(found, key=lambda f: f[0])[1] if found else Action("none")


def _stream(result: dict, name: str) -> str:
    """An exec result's stdout or stderr as text (output that is not UTF-8 arrives in base64)."""
    data = result.get(name) or ""
    if result.get(f"{name}_encoding") == "base64":
        return base64.b64decode(data).decode("utf-8", "replace")
    return data


def render_output(result: dict, max_chars: int) -> str:
    """An exec result as the policy reads it: stdout, stderr, and a line for anything unusual."""
    text = _stream(result, "stdout") + _stream(result, "stderr")
    status = result.get("status", "ok")
    if status != "ok":
        text += f"[{status}]\n"
    elif result.get("exit_code") not in (0, None):
        text += f"[exit code {result['exit_code']}]\n"
    if result.get("restarted"):
        text += "[the interpreter was restarted]\n"
    if len(text) > max_chars:
        text = text[: max_chars // 2] + "\n...[cut]...\n" + text[-(max_chars // 2) :]
    return f"<output>\n{text}</output>\n"


@dataclass
class Step:
    """What one `step` gives back (the fields every step-style trainer asks for)."""

    observation: str
    reward: float | None
    done: bool
    info: dict = field(default_factory=dict)


class SessionEnv:
    """One rollout's environment: one judge session, the actions of the setting, the reward of the
    final submission. `reset` starts a new session (deleting the previous one); `close` deletes it."""

    def __init__(
        self,
        client: JudgeClient | None = None,
        setting: Setting = "tool",
        *,
        k: int | str = "inf",
        max_turns: int = 4,
        exec_timeout_s: float = 10.0,
        max_observation_chars: int = 1024,
        limits: dict | None = None,
        credit: str = "r_k",
        retry: bool = False,
    ):
        if setting not in SETTINGS:
            raise ValueError(f"unknown setting {setting!r}: one of {', '.join(SETTINGS)}")
        if credit not in CREDITS:
            raise ValueError(f"unknown credit {credit!r}: one of {', '.join(CREDITS)}")
        self.client = client or JudgeClient()
        self.credit = credit
        self.retry = retry
        self.submissions = 0  # judged submissions of this rollout (more than one only with `retry`)
        self.setting = setting
        self.kind = KIND[setting]
        self.k = k
        self.max_turns = max_turns
        self.exec_timeout_s = exec_timeout_s
        self.max_observation_chars = max_observation_chars
        self.limits = limits
        self.session_id: str | None = None
        self.problem_id: str | None = None
        self.files: list[str] = []
        self.turns = 0
        self.actions: list[str] = []  # each turn's action kind (run, write, submit, none)
        self.result: JudgeResult | None = None  # the final submission's result
        self.done = False
        # the judge runs one call of a session at a time (409 otherwise): calls made concurrently on
        # one rollout (verl runs a turn's tool calls in parallel) wait for each other here
        self._calls = threading.Lock()

    # -- lifecycle ----------------------------------------------------------------------------------
    def reset(self, problem_id: str) -> str:
        """A fresh session for `problem_id`; returns the setting's instructions (what to append to the
        problem's prompt), naming the files the session starts with."""
        self.close()
        created = self.client.create_session(self.kind, problem_id, self.limits)
        self.session_id, self.problem_id = created["id"], problem_id
        self.files = list(created.get("files", []))
        self.turns, self.result, self.done, self.actions = 0, None, False, []
        self.submissions = 0
        return self.instructions()

    def instructions(self) -> str:
        files = f"\nFiles: {', '.join(self.files)}." if self.setting == "agentic" and self.files else ""
        return f"\n\n{FORMATS[self.setting]}{files}\n\n"

    def close(self) -> None:
        """Delete the session (nothing of it is left on the judge). Safe to call twice."""
        sid, self.session_id = self.session_id, None
        if sid is not None:
            self.client.delete_session(sid)

    def __enter__(self) -> SessionEnv:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- actions (also the TRL tools) ----------------------------------------------------------------
    def _live(self) -> str:
        if self.session_id is None:
            raise RuntimeError("no session: call reset(problem_id) first")
        return self.session_id

    def _lost(self, why: str) -> str:
        """The session is gone under the rollout (its worker died, or it expired): the rollout is done
        with no reward to learn from (a judge error), not a crash of the trainer."""
        self.result = JudgeResult.model_validate(
            {
                "id": self.session_id or "",
                "problem_id": self.problem_id or "",
                "status": "judge_error",
                "message": why,
            }
        )
        self.done = True
        return "<output>\n[dead]\n</output>\n"

    @staticmethod
    def _gone(err: JudgeClientError) -> bool:
        return err.status_code == 410 or (err.status_code == 404 and "unknown session" in str(err))

    def run(self, text: str) -> str:
        """Run python code (tool setting) or a bash command (agentic setting); the observation."""
        field = "code" if self.kind == "python" else "command"
        try:
            with self._calls:
                result = self.client.session_exec(
                    self._live(), timeout_s=self.exec_timeout_s, **{field: text}
                )
        except JudgeClientError as err:
            if self._gone(err):
                return self._lost(str(err))
            raise
        if result.get("status") == "dead":
            return self._lost("the judge worker holding the session is gone")
        return render_output(result, self.max_observation_chars)

    def write(self, path: str, content: str) -> str:
        try:
            with self._calls:
                written = self.client.put_session_file(self._live(), path, content)
        except JudgeClientError as err:
            if self._gone(err):
                return self._lost(str(err))
            if err.status_code in (404, 413, 422):  # the policy's bad path or size: tell it, go on
                return f"<output>\ncannot write {path}: {err}\n</output>\n"
            raise
        return f"<output>\nwrote {written['bytes']} bytes to {written['path']}\n</output>\n"

    def read(self, path: str) -> str:
        try:
            with self._calls:
                data = self.client.get_session_file(self._live(), path)
        except JudgeClientError as err:
            if self._gone(err):
                return self._lost(str(err))
            if err.status_code in (404, 413, 422):
                return f"<output>\ncannot read {path}: {err}\n</output>\n"
            raise
        return render_output({"stdout": data.decode(errors="replace")}, self.max_observation_chars)

    def submit(self, *, code: str | None = None, path: str | None = None) -> str:
        """Judge a program (text, or a file of the session) on the session's problem; the rollout is
        done and its reward is this result's `R_k` (or credit). With `retry`, a judged result that fails
        `R_k` leaves the rollout open (while turns are left): the observation adds the judge's feedback."""
        mode, ks = credit_request(self.credit, self.k)
        fields = {"feedback": True} if self.retry else {}
        try:
            with self._calls:
                self.result = self.client.submit_session(
                    self._live(), code=code, path=path, ks=ks, mode=mode, **fields
                )
            self.submissions += 1
        except JudgeClientError as err:
            if self._gone(err):
                return self._lost(str(err))
            if err.status_code not in (404, 413, 422):
                raise
            # no such file, or not a program: judged as no program at all
            self._no_program(str(err))
        self.done = True
        verdict = self.verdict()
        if (
            self.retry
            and self.result.status == "ok"
            and self._passed() is False
            and self.turns < self.max_turns
        ):
            self.done = False  # failure-conditioned repair: the feedback, then another try
            feedback = self.result.feedback_text or ""
            room = max(0, self.max_observation_chars - len(verdict) - 40)
            feedback = feedback if len(feedback) <= room else feedback[: max(0, room - 3)] + "..."
            verdict += f"\n{feedback}".rstrip() + "\nfix the program and submit again"
        return f"<output>\n{verdict}\n</output>\n"

    def _passed(self) -> bool | None:
        """Whether the result passes `R_k`; None without a judged result."""
        if self.result is None or self.result.status != "ok":
            return None
        return bool((self.result.rewards or {}).get(f"R_{self.k}", 0))

    def _no_program(self, message: str) -> None:
        """The result /judge gives a completion without a program: a format error, every R_k 0."""
        self.result = JudgeResult.model_validate(
            {
                "id": self.session_id,
                "problem_id": self.problem_id,
                "status": "ok",
                "outcome": "format_error",
                "rewards": {f"R_{self.k}": 0},
                "message": message,
            }
        )
        self.done = True

    def verdict(self) -> str:
        r = self.result
        if r is None:
            return "not submitted"
        if r.status != "ok":
            return f"judge error: {r.message or ''}".strip()
        return f"outcome: {r.outcome.value if hasattr(r.outcome, 'value') else r.outcome}; R_{self.k} = {self.reward}"

    # -- the reward ----------------------------------------------------------------------------------
    @property
    def reward(self) -> float | None:
        """R_k of the final submission; 0.0 without one; None when the judge failed on it."""
        if self.result is None:
            return 0.0
        if self.result.status != "ok":
            return None
        if self.credit != "r_k":
            return credit_score(self.result, self.credit, self.k)
        return float((self.result.rewards or {}).get(f"R_{self.k}", 0))

    @property
    def outcome(self) -> str:
        if self.result is None:
            return "no_submission"
        if self.result.status != "ok":
            return "judge_error"
        o = self.result.outcome
        return o.value if hasattr(o, "value") else str(o)

    # -- step style ----------------------------------------------------------------------------------
    def step(self, turn: str) -> Step:
        """One policy turn: its first action is run and observed. The rollout is done after a
        submission, or after `max_turns` turns (then without one: reward 0.0)."""
        if self.done:
            raise RuntimeError("the rollout is done: reset() for the next one")
        self.turns += 1
        action = parse_action(self.setting, turn)
        self.actions.append(action.kind)
        if action.kind == "run":
            observation = self.run(action.text)
        elif action.kind == "write":
            observation = self.write(action.path or DEFAULT_PATH, action.text)
        elif action.kind == "submit":
            observation = (
                self.submit(code=action.text) if self.setting == "tool" else self.submit(path=action.path)
            )
        elif self.setting == "tool":
            # no tool call and no program: an answer without a program (the judge's format error)
            self._no_program("no program in the answer")
            observation = f"<output>\n{self.verdict()}\n</output>\n"
        else:
            observation = (
                "<output>\nno action: use <bash>, <write path=...> or <submit path=.../>\n</output>\n"
            )
        if not self.done and self.turns >= self.max_turns:
            self.done = True
        info = {"action": action.kind, "turn": self.turns, "outcome": self.outcome}
        return Step(observation, self.reward if self.done else 0.0, self.done, info)
