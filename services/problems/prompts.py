"""Prompts of the product: a problem as the LiveCodeBench-style messages every model sees, for
stdin programs or starter code to complete, and their rendering for a tokenizer (pure functions).

The evaluator samples with them, the trainer trains on them: one home, so both always agree.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

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
    match = re.search(_SIGNATURE_RE.format(name=re.escape(function)), statement)
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
