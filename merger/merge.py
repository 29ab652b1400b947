"""The merge arithmetic, per tensor: task arithmetic, of which the alpha merge is the two-point case.

    theta = base + sum_i w_i (theta_i - base)            (task arithmetic)
    theta_a = low + a (high - low) = a high + (1 - a) low  (alpha merge: base = low, w_high = a)

Weights stay Python floats (never rounded to the tensors' dtype), every sum is taken in float32 and
the result is cast to the output dtype once. A recipe whose weights are all 0 is the base and one
whose only non-zero weight is a 1 is that model: both are returned as exact copies, because
`low + 1.0 * (high - low)` in float32 is not always `high` bit for bit.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch

# dtypes whose tensors are averaged; any other tensor (integer, bool) is copied from the base
MERGEABLE_DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)


class MergeError(ValueError):
    """A merge that cannot be done as asked: the message says why, in terms of the user's inputs."""


def check_weights(weights: Sequence[float]) -> list[float]:
    """The weights as Python floats; a NaN or infinite weight is refused."""
    out = [float(w) for w in weights]
    for w in out:
        if not math.isfinite(w):
            raise MergeError(f"weight {w!r} is not a finite number")
    return out


def normalized_weights(weights: Sequence[float]) -> list[float]:
    """w_i / sum(w): for forms that promise an average. A zero sum is refused, never divided by."""
    ws = check_weights(weights)
    total = math.fsum(ws)
    if total == 0.0:
        raise MergeError(f"weights {ws} sum to zero and cannot be normalised")
    return [w / total for w in ws]


def alpha_recipe(alpha: float) -> list[float]:
    """The alpha merge as task-arithmetic weights over [high] with base = low."""
    return check_weights([alpha])


def endpoint(weights: Sequence[float]) -> int | None:
    """-1 if the recipe is the base itself, i if it is exactly model i, None if arithmetic is needed."""
    nonzero = [i for i, w in enumerate(weights) if w != 0.0]
    if not nonzero:
        return -1
    if len(nonzero) == 1 and weights[nonzero[0]] == 1.0:
        return nonzero[0]
    return None


def merge_tensor(
    base: torch.Tensor, models: Sequence[torch.Tensor], weights: Sequence[float], out_dtype: torch.dtype
) -> torch.Tensor:
    """theta = base + sum_i w_i (theta_i - base), in float32, cast to out_dtype once."""
    ws = check_weights(weights)
    if len(ws) != len(models):
        raise MergeError(f"{len(ws)} weights for {len(models)} models")
    which = endpoint(ws)
    if which is not None:
        return (base if which < 0 else models[which]).to(out_dtype, copy=True)
    base32 = base.to(torch.float32)
    acc = base32.clone()
    for w, model in zip(ws, models, strict=True):
        if w != 0.0:
            acc.add_(model.to(torch.float32) - base32, alpha=w)
    return acc.to(out_dtype)


def alpha_merge(low: torch.Tensor, high: torch.Tensor, alpha: float, out_dtype: torch.dtype) -> torch.Tensor:
    """theta_a = a * high + (1 - a) * low, computed as low + a (high - low)."""
    return merge_tensor(low, [high], alpha_recipe(alpha), out_dtype)


def merge_sweep_into(
    base: torch.Tensor,
    models: Sequence[torch.Tensor],
    recipes: Sequence[Sequence[float]],
    outs: Sequence[torch.Tensor],
    work: torch.Tensor | None = None,
) -> list[float]:
    """merge_tensor for many recipes at once, writing recipe r into outs[r] (1-D tensors).

    The float32 deltas theta_i - base are formed once and shared by every recipe: this is what
    lets a sweep of many alphas read each input tensor once. `work` is float32 scratch of shape
    (len(models) + 2, >= base.numel()), passed in so that a stream of slices allocates nothing.
    Returns, per recipe, an upper bound on |theta| (NaN if an input is not finite), from which the
    caller decides whether the output can hold a NaN or Inf at all without scanning it.
    """
    n = base.numel()
    if work is None:
        work = torch.empty((len(models) + 2, n), dtype=torch.float32)
    base32, acc, deltas = work[0, :n], work[1, :n], [work[2 + i, :n] for i in range(len(models))]
    base32.copy_(base)
    for model, delta in zip(models, deltas, strict=True):
        torch.sub(model, base32, out=delta)
    base_abs = _max_abs(base32)
    delta_abs = [_max_abs(d) for d in deltas]
    bounds = []
    for weights, out in zip(recipes, outs, strict=True):
        which = endpoint(weights)
        if which is not None:
            out.copy_(base if which < 0 else models[which])
            bounds.append(base_abs if which < 0 else _max_abs(models[which]))
            continue
        partial = base32
        for w, d in zip(weights, deltas, strict=True):
            if w != 0.0:
                partial = torch.add(partial, d, alpha=w, out=acc)
        out.copy_(partial)
        bounds.append(base_abs + sum(abs(w) * a for w, a in zip(weights, delta_abs, strict=True)))
    return bounds


def may_be_nonfinite(bound: float, dtype: torch.dtype) -> bool:
    """Whether a tensor whose exact values are bounded by `bound` can hold NaN or Inf in `dtype`.

    The sum is taken in float32, so float32's range counts too; the margin covers its rounding.
    A NaN bound (an input that is not finite) is always suspect.
    """
    limit = min(torch.finfo(dtype).max, torch.finfo(torch.float32).max)
    return not (bound * (1 + 1e-5) < limit)


def _max_abs(t: torch.Tensor) -> float:
    """max |t| as a Python float; NaN if t holds a NaN (aminmax propagates it)."""
    if t.numel() == 0:
        return 0.0
    lo, hi = (v.item() for v in torch.aminmax(t))
    return math.nan if math.isnan(lo) or math.isnan(hi) else max(-lo, hi)
