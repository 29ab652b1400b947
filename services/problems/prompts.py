"""Prompts of the product: a problem as the LiveCodeBench-style messages every model sees, for
stdin programs or starter code to complete, and their rendering for a tokenizer (pure functions).

The evaluator samples with them, the trainer trains on them: one home, so both always agree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import re2

SYSTEM_PROMPT = (
    "You are an expert Python programmer. You will be given a programming problem and will write a "
    "correct and efficient Python program that passes all of its tests, including the largest ones."
)
_STDIN_FORMAT = (
    "### Format: Read the input from standard input, solve the problem and write the answer to standard "
    "output (do not test on the sample inputs directly). Enclose your code in one block, as follows:\n"
    "```python\n# YOUR CODE HERE\n```"
)
_FUNCTIONAL_FORMAT = (
    "### Format: Complete the following starter code and enclose your whole solution in one block:\n"
    "```python\n{starter}\n```"
)
_ANSWER = "### Answer: (use the format above, with the backticks)\n\n"
# `maxDepth(self, s: str) -> int` as a bundled statement writes it
_SIGNATURE_RE = r"`({name}\(self[^`]*\)(?:\s*->\s*[^`]+)?)`"


@dataclass(frozen=True)
class ProblemPrompt:
    """What a prompt is made of: the statement, and for a functional problem its method."""

    problem_id: str
    statement: str
    function: str | None = None
    starter_code: str | None = None


def starter_code(function: str, statement: str = "") -> str:
    """`class Solution` with the method's signature, as the statement states it where it does."""
    match = re2.search(_SIGNATURE_RE.format(name=re2.escape(function)), statement)
    signature = match.group(1) if match else f"{function}(self, *args)"
    return f"class Solution:\n    def {signature}:\n        "


def prompt_messages(problem: ProblemPrompt) -> list[dict[str, str]]:
    """System and user messages in the LiveCodeBench style: stdin programs, or starter code to complete."""
    if problem.function or problem.starter_code:
        starter = problem.starter_code or starter_code(problem.function or "solve", problem.statement)
        fmt = _FUNCTIONAL_FORMAT.format(starter=starter.rstrip())
    else:
        fmt = _STDIN_FORMAT
    user = f"### Question:\n{problem.statement.strip()}\n\n{fmt}\n\n{_ANSWER}"
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


def render_prompt(messages: list[dict[str, str]], tokenizer: Any) -> str:
    """The tokenizer's chat template where it has one; else the messages as plain text."""
    if getattr(tokenizer, "chat_template", None):
        return tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    return "\n\n".join(m["content"] for m in messages)


# -- repair turns: the judge's feedback on an attempt, and a request for a fixed program -------------
REPAIR_ANSWER = "### Answer: (fix the program; use the format above, with the backticks)\n\n"


def repair_message(feedback_text: str) -> dict[str, str]:
    """The user turn after a failed attempt: the judge's `feedback_text` and the request to fix it."""
    return {"role": "user", "content": f"### Feedback:\n{feedback_text.strip()}\n\n{REPAIR_ANSWER}"}


def render_repair_turn(feedback_text: str, tokenizer: Any = None, end_of_attempt: str = "") -> str:
    """The text that follows an attempt (its completion, as generated) to ask for the next one.

    Plain text (no chat template): `end_of_attempt` (the end-of-text token, where the attempt as given
    does not end with it), a blank line, then the repair message; so a repair context is
    `prompt + attempt + turn`, the prompt and every attempt tokenized as on their own. With a chat
    template: what the template adds after an assistant turn for one more user turn and the
    generation prompt."""
    message = repair_message(feedback_text)
    if getattr(tokenizer, "chat_template", None):
        base = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}]
        before = tokenizer.apply_chat_template(base, tokenize=False)
        after = tokenizer.apply_chat_template([*base, message], tokenize=False, add_generation_prompt=True)
        if not after.startswith(before):
            raise ValueError("this chat template renders earlier turns differently once a turn follows")
        return after[len(before) :]
    return f"{end_of_attempt}\n\n{message['content']}"


def repair_context(
    prompt: str, attempts: list[tuple[str, str]], tokenizer: Any = None, end_of_text: str | None = None
) -> str:
    """A repair prompt as text: the problem's prompt, then each (attempt as decoded, its feedback) in
    turn. Decoded attempts carry no end-of-text token, so the turn after each adds `end_of_text` (the
    tokenizer's by default)."""
    eos = end_of_text if end_of_text is not None else (getattr(tokenizer, "eos_token", None) or "")
    text = prompt
    for completion, feedback in attempts:
        text += completion + render_repair_turn(feedback, tokenizer, eos)
    return text
