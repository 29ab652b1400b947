"""The judge as a verl custom reward function.

    custom_reward_function.path=trainer/adapters/verl.py custom_reward_function.name=compute_score
    # or, with reward_model.reward_manager=batch (one judge request per batch):
    custom_reward_function.path=trainer/adapters/verl.py custom_reward_function.name=compute_score_batch

`ground_truth` is the problem id; `extra_info` may carry `k` (1, 2, ... or "inf", the default),
`credit` ("r_k", the default; "discrete" or "continuous": the partial credits of docs/spec.md 13.1)
and `isolation` ("test" or "submission", docs/spec.md 4.8; default the judge's). The score is `R_k`,
or the credit asked for. Every returned dict has the same keys, so verl can gather them as reward extra info:
`score`, `outcome` (the class of spec 4.5, or "judge_error"), `judge_error` (bool) and `message`.
A judge error, in a result or as a failed request, scores 0.0 but is never silent: it is logged and
marked `judge_error: True`, so it can be filtered out of the batch.

The judge's URL and token come from the settings (FRONTIER_JUDGE_URL, FRONTIER_API_TOKEN).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from functools import lru_cache

from services.judge.client import JudgeClient, JudgeClientError, JudgeResult
from services.judge.core import credit as credits
from services.judge.core.models import check_isolation

log = logging.getLogger("codefrontier.verl")


@lru_cache(maxsize=1)
def _client() -> JudgeClient:
    return JudgeClient()  # FRONTIER_JUDGE_URL, and FRONTIER_API_TOKEN where one is set


def _k(extra_info: dict | None) -> int | str:
    k = (extra_info or {}).get("k", "inf")
    if k == "inf" or k is None:
        return "inf"
    k = int(k)
    if k < 1:
        raise ValueError("extra_info['k'] must be a positive integer or 'inf'")
    return k


def _ask(extra_info: dict | None) -> tuple[int | str, str, str | None]:
    """(k, credit, isolation) of one sample; a ValueError names what is wrong."""
    info = extra_info or {}
    credit = info.get("credit") or "r_k"
    if credit not in credits.CREDITS:
        raise ValueError(f"extra_info['credit'] must be one of {', '.join(credits.CREDITS)}, got {credit!r}")
    return _k(info), credit, check_isolation(info.get("isolation"))


def score_of(result: JudgeResult, k: int | str, credit: str = "r_k") -> dict:
    """The dict verl gets for one judged result (pure)."""
    if result.status != "ok":
        return _judge_error(result.message or "judge error")
    return {
        "score": credits.score(result, credit, k),
        "outcome": result.outcome,
        "judge_error": False,
        "message": result.message or "",
    }


def _judge_error(message: str) -> dict:
    return {"score": 0.0, "outcome": "judge_error", "judge_error": True, "message": message}


def compute_score_batch(
    data_sources: Sequence[str],
    solution_strs: Sequence[str],
    ground_truths: Sequence[str],
    extra_infos: Sequence[dict | None] | None = None,
    **kwargs,
) -> list[dict]:
    """verl's batch reward manager: one dict per sample, the samples that ask the same (k, credit,
    isolation) judged in one request."""
    extra_infos = list(extra_infos) if extra_infos is not None else [None] * len(solution_strs)
    asks = [_ask(e) for e in extra_infos]
    scores: list[dict | None] = [None] * len(solution_strs)
    for ask in dict.fromkeys(asks):
        k, credit, isolation = ask
        mode, ks = credits.request(credit, k)
        idx = [i for i, a in enumerate(asks) if a == ask]
        subs = [
            {
                "id": str(i),
                "problem_id": str(ground_truths[i]),
                "language": "python",
                "completion": solution_strs[i],
            }
            for i in idx
        ]
        try:
            results = _client().judge(subs, mode, ks=ks, isolation=isolation)
        except JudgeClientError as err:
            log.error(
                "judge request failed for %d samples (scored 0.0, marked judge_error): %s", len(idx), err
            )
            for i in idx:
                scores[i] = _judge_error(str(err))
            continue
        for i, result in zip(idx, results, strict=True):
            scores[i] = score_of(result, k, credit)
            if result.status != "ok":
                log.error(
                    "judge error on problem %s (scored 0.0, marked): %s", result.problem_id, result.message
                )
    return scores  # type: ignore[return-value]


def compute_score(
    data_source: str, solution_str: str, ground_truth: str, extra_info: dict | None = None, **kwargs
) -> dict:
    """verl's per-sample reward function: `R_k` (or the credit `extra_info` asks for) of
    `solution_str` on problem `ground_truth` (other keyword arguments a verl version passes along are
    ignored)."""
    return compute_score_batch([data_source], [solution_str], [ground_truth], [extra_info])[0]
