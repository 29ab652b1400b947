"""Rewards of one judged result as floats (docs/spec.md sections 13, 13.1): `R_k`, and the two partial
credits, discrete and continuous. Pure: shared by the TRL reward functions (trainer/rewards.py), the
reward service (services/reward/api.py) and the verl adapter.

Each rule reads one result object of status `ok`; a judge error has no credit (the callers mask or
mark it). `request` says how to ask the judge so that the result holds what the rule reads.
"""

from __future__ import annotations

from typing import Literal

from services.judge.core.models import JudgeResult

Credit = Literal["r_k", "discrete", "continuous"]
CREDITS: tuple[str, ...] = ("r_k", "discrete", "continuous")


def r_k_credit(result: JudgeResult, key: str) -> float:
    """`R_k` as a float: 1.0 when every test of its scope passed, else 0.0."""
    return float(result.rewards[key])


def discrete_credit(result: JudgeResult) -> float:
    """The fraction of the reported rewards `R_1..R_inf` that are 1.

    Every reported `R_k` counts once, a borrowed empty scope (spec 4.4) too; the scopes are nested,
    so this is the largest passed scope's rank. A format error has every reward 0: 0.0."""
    rewards = result.rewards or {}
    return sum(rewards.values()) / len(rewards) if rewards else 0.0


def continuous_credit(result: JudgeResult) -> float:
    """The fraction of tests passed; meaningful in `full` mode, where every test runs. An `AC` counts 1,
    a testlib points verdict its fraction (`points`, spec 2.4), anything else 0. A format error has no
    tests: 0.0."""
    if not result.tests:
        return 0.0
    earned = (1.0 if t.verdict == "AC" else (t.points or 0.0) for t in result.tests)
    return sum(earned) / len(result.tests)


def request(credit: str, k: int | str = "inf") -> tuple[str, list[int] | None]:
    """(mode, ks) to ask the judge for: `R_k` needs only k's scope, discrete credit the judge's default
    ks, continuous credit every test run (`full`)."""
    if credit == "r_k":
        return "first_failure", None if k == "inf" else [int(k)]
    if credit == "discrete":
        return "first_failure", None
    if credit == "continuous":
        return "full", None
    raise ValueError(f"unknown credit {credit!r}; known: {', '.join(CREDITS)}")


def score(result: JudgeResult, credit: str, k: int | str = "inf") -> float:
    """The credit of one result of status `ok`."""
    if credit == "r_k":
        return r_k_credit(result, f"R_{k}")
    if credit == "discrete":
        return discrete_credit(result)
    if credit == "continuous":
        return continuous_credit(result)
    raise ValueError(f"unknown credit {credit!r}; known: {', '.join(CREDITS)}")
