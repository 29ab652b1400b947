"""Entry points: an alpha sweep of two checkpoints, or a task-arithmetic merge of several."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from merger.checkpoint import load_checkpoint, plan_merge
from merger.merge import MergeError, alpha_recipe, check_weights, normalized_weights
from merger.models import alpha_dir_name, check_alphas
from merger.stream import MergeResult, Output, Progress, run_merge


def alpha_outputs(alphas: Sequence[float], output_dir: str | Path) -> list[Output]:
    try:
        values = check_alphas(list(alphas))
    except ValueError as e:
        raise MergeError(str(e)) from None
    root = Path(output_dir)
    return [Output(root / alpha_dir_name(a), alpha_recipe(a), {"alpha": a}) for a in values]


def merge_alphas(
    low: str,
    high: str,
    alphas: Sequence[float],
    output_dir: str | Path,
    *,
    dtype: str | None = None,
    overwrite: bool = False,
    progress: Callable[[Progress], None] | None = None,
    token: str | None = None,
    fsync: bool = True,
    relative_local: bool = True,
) -> MergeResult:
    """theta_a = a*high + (1-a)*low for every alpha, written to output_dir/alpha_<a>/ in one pass.
    relative_local=False: a source that is not an absolute path is a hub id (the merger service)."""
    outputs = alpha_outputs(alphas, output_dir)
    plan = plan_merge(
        load_checkpoint(low, relative_local=relative_local),
        [load_checkpoint(high, relative_local=relative_local)],
        dtype,
    )
    return run_merge(
        plan,
        outputs,
        overwrite=overwrite,
        progress=progress,
        token=token,
        fsync=fsync,
        method="alpha",
        extra_record={"formula": "theta_a = low + alpha * (high - low)", "low": low, "high": high},
    )


def merge_models(
    base: str,
    models: Sequence[tuple[str, float]],
    output_dir: str | Path,
    *,
    dtype: str | None = None,
    normalize: bool = False,
    overwrite: bool = False,
    progress: Callable[[Progress], None] | None = None,
    token: str | None = None,
    fsync: bool = True,
    relative_local: bool = True,
) -> MergeResult:
    """theta = base + sum_i w_i (theta_i - base), written to output_dir (with normalize: w_i / sum w)."""
    if not models:
        raise MergeError("no models given")
    raw = check_weights([w for _, w in models])
    weights = normalized_weights(raw) if normalize else raw
    plan = plan_merge(
        load_checkpoint(base, relative_local=relative_local),
        [load_checkpoint(p, relative_local=relative_local) for p, _ in models],
        dtype,
    )
    record = {"weights": weights, **({"weights_given": raw} if normalize else {})}
    return run_merge(
        plan,
        [Output(Path(output_dir), weights, record)],
        overwrite=overwrite,
        progress=progress,
        token=token,
        fsync=fsync,
        extra_record={"normalize": normalize},
    )
