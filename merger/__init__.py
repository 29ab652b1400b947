"""The merger: alpha-merges and task-arithmetic merges of whole checkpoints, one streaming pass per sweep.

    theta_a = a * theta_high + (1 - a) * theta_low        for every a of a sweep, inside or outside [0, 1]
    theta   = base + sum_i w_i (theta_i - base)           the general form (task arithmetic)

Exports are imported on first use, so that `frontier --help` does not pay for importing torch.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

_EXPORTS = {
    "MergeError": "merger.merge",
    "alpha_merge": "merger.merge",
    "merge_tensor": "merger.merge",
    "normalized_weights": "merger.merge",
    "MergeResult": "merger.stream",
    "Output": "merger.stream",
    "Progress": "merger.stream",
    "alpha_dir_name": "merger.models",
    "check_alphas": "merger.models",
    "merge_alphas": "merger.sweep",
    "merge_models": "merger.sweep",
}

if TYPE_CHECKING:
    from merger.merge import MergeError, alpha_merge, merge_tensor, normalized_weights
    from merger.models import alpha_dir_name, check_alphas
    from merger.stream import MergeResult, Output, Progress
    from merger.sweep import merge_alphas, merge_models


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'merger' has no attribute {name!r}")


__all__ = [
    "MergeError",
    "MergeResult",
    "Output",
    "Progress",
    "alpha_dir_name",
    "alpha_merge",
    "check_alphas",
    "merge_alphas",
    "merge_models",
    "merge_tensor",
    "normalized_weights",
]
