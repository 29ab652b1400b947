"""Alpha sweeps without a disk round trip: theta_low and delta = theta_high - theta_low stay resident in
float32, and theta_a = theta_low + a * delta is written into the live model's own tensors for each alpha.

The arithmetic is the merger's (merger/merge.py), so a model swept in place holds, bit for bit, the
weights of the checkpoint the merger writes for the same alpha and dtype:

- the pair of checkpoints is checked and laid out by the merger's own plan (`plan_merge`): same
  architecture, tied embeddings reconciled, non-float tensors copied from theta_low;
- delta is formed as the merger forms it (theta_high in its own dtype minus theta_low in float32), and
  theta_low + a * delta is computed in float32 in the merger's slices (`CHUNK_ELEMS`), then cast to
  the live tensor's dtype once;
- a = 0 and a = 1 are exact copies of theta_low and theta_high, as in the merger. Where
  theta_low + delta does not give theta_high back exactly in float32 (rounding of the difference),
  those few elements of theta_high are kept beside delta.

Memory: 8 bytes per weight (theta_low and delta in float32), on the CPU. Transformers: `load_alpha`
copies into the module's parameters under no_grad. vLLM: the resident tensors live in each vLLM
worker (built there through `LLM.apply_model`), each alpha goes through the model's `load_weights`,
and the prefix cache is reset, since cached KV blocks belong to the old weights.
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from safetensors import safe_open

from merger.checkpoint import load_checkpoint, plan_merge
from merger.merge import MergeError, alpha_recipe, endpoint
from merger.stream import CHUNK_ELEMS


class SweepError(ValueError):
    """A sweep that cannot be done in place, with a message in terms of the user's inputs."""


@dataclass
class _Resident:
    low: torch.Tensor  # float32 for averaged tensors; the stored dtype for tensors copied from low
    delta: torch.Tensor | None  # float32; None: not averaged (copied from low, as the merger does)
    # elements where low + delta in float32 is not exactly high: (flat indices, high's values)
    high_fix: tuple[torch.Tensor, torch.Tensor] | None = None


class ResidentSweep:
    """theta_low and delta of a pair of checkpoints, in memory; theta_a of any tensor on demand."""

    def __init__(self, low: str | Path, high: str | Path):
        try:
            # dtype float32: the plan then accepts low and high stored in different float dtypes
            plan = plan_merge(load_checkpoint(str(low)), [load_checkpoint(str(high))], "float32")
        except MergeError as err:
            raise SweepError(str(err)) from None
        self.low, self.high = str(low), str(high)
        self.notes = list(plan.notes)
        self.tensors: dict[str, _Resident] = {}
        with _Reader() as read:
            for t in plan.tensors:
                low_t = read(t.base)
                if t.models is None:
                    self.tensors[t.name] = _Resident(low_t, None)
                    continue
                high_t = read(t.models[0])
                low32 = low_t.to(torch.float32)
                delta = torch.sub(high_t, low32)
                exact = torch.add(low32, delta) == high_t.to(torch.float32)
                fix = None
                if not bool(exact.all()):
                    idx = torch.nonzero(~exact.view(-1)).view(-1)
                    fix = (idx, high_t.reshape(-1)[idx].to(torch.float32))
                self.tensors[t.name] = _Resident(low32, delta, fix)

    def write_into(self, name: str, alpha: float, out: torch.Tensor) -> None:
        """theta_a of tensor `name`, written into `out` (its shape, any float dtype), slice by slice."""
        r = self.tensors[name]
        if tuple(out.shape) != tuple(r.low.shape):
            raise SweepError(
                f"tensor {name!r}: the live model has shape {list(out.shape)}, "
                f"the checkpoint {list(r.low.shape)}"
            )
        which = endpoint(alpha_recipe(alpha))
        if r.delta is None or which == -1:
            out.copy_(r.low)
            return
        flat = out.view(-1)
        low, delta = r.low.view(-1), r.delta.view(-1)
        weight = 1.0 if which == 0 else float(alpha)
        # straight into `out` where it is float32 on the CPU; else through a float32 slice, cast and
        # moved once (the arithmetic always runs here, in float32, as the merger's does)
        direct = out.dtype == torch.float32 and out.device.type == "cpu"
        scratch = None if direct else torch.empty(min(CHUNK_ELEMS, low.numel()))
        for start in range(0, low.numel(), CHUNK_ELEMS):
            end = min(start + CHUNK_ELEMS, low.numel())
            if scratch is None:
                torch.add(low[start:end], delta[start:end], alpha=weight, out=flat[start:end])
            else:
                part = torch.add(low[start:end], delta[start:end], alpha=weight, out=scratch[: end - start])
                flat[start:end].copy_(part)
        if which == 0 and r.high_fix is not None:
            idx, values = r.high_fix
            flat[idx.to(out.device)] = values.to(out.device, out.dtype)

    def tensor(self, name: str, alpha: float, dtype: torch.dtype) -> torch.Tensor:
        r = self.tensors[name]
        out = torch.empty(r.low.shape, dtype=dtype if r.delta is not None else r.low.dtype)
        self.write_into(name, alpha, out)
        return out

    def iter_tensors(self, alpha: float, dtype: torch.dtype) -> Iterator[tuple[str, torch.Tensor]]:
        """(name, theta_a) per checkpoint tensor, one at a time: what a weight loader consumes."""
        for name in self.tensors:
            yield name, self.tensor(name, alpha, dtype)

    def load_into_module(self, model: torch.nn.Module, alpha: float) -> None:
        """Write theta_a into a transformers model's parameters in place. Every parameter must be
        covered by a checkpoint tensor (tied weights share storage and count once)."""
        targets = _module_targets(model, self.tensors)
        with torch.no_grad():
            for name, target in targets.items():
                self.write_into(name, alpha, target)


class _Reader:
    """Whole tensors out of safetensors files, keeping each file open once."""

    def __init__(self):
        self._files: dict[Path, Any] = {}

    def __call__(self, entry) -> torch.Tensor:
        f = self._files.get(entry.path)
        if f is None:
            f = self._files[entry.path] = safe_open(str(entry.path), framework="pt", device="cpu")
        return f.get_tensor(entry.name)

    def __enter__(self) -> _Reader:
        return self

    def __exit__(self, *exc) -> None:
        self._files.clear()


def _module_targets(model: torch.nn.Module, tensors: dict[str, _Resident]) -> dict[str, torch.Tensor]:
    state = model.state_dict(keep_vars=True)
    missing = [name for name in tensors if name not in state]
    if missing:
        raise SweepError(
            f"the live model has no tensor named {missing[0]!r}"
            + (f" (and {len(missing) - 1} more)" if len(missing) > 1 else "")
            + "; in-place sweeps need the checkpoint's names to match the model's state_dict"
        )
    targets = {name: state[name].data for name in tensors}
    written = {t.untyped_storage().data_ptr() for t in targets.values()}
    for pname, param in model.named_parameters():
        if param.untyped_storage().data_ptr() not in written:
            raise SweepError(f"parameter {pname!r} of the live model is in neither checkpoint")
    return targets


# -- the live model of a sweep ----------------------------------------------------------------------
class InPlaceSweep:
    """Loads theta_a into a generator's live model for each alpha: no checkpoint written, no reload."""

    def __init__(self, generator: Any, low: str | Path, high: str | Path):
        self.generator = generator
        self.alpha: float | None = None
        if generator.backend == "transformers":
            self.resident = ResidentSweep(low, high)
            self._key = None
        elif generator.backend == "vllm":
            self.resident = None
            self._key = uuid.uuid4().hex
            generator.llm.apply_model(
                functools.partial(_vllm_hold, key=self._key, low=str(low), high=str(high))
            )
        else:
            raise SweepError(f"backend {generator.backend!r} has no in-place weight loading")

    def load_alpha(self, alpha: float) -> None:
        if self.resident is not None:
            self.resident.load_into_module(self.generator.model, alpha)
        else:
            llm = self.generator.llm
            llm.apply_model(functools.partial(_vllm_load_alpha, key=self._key, alpha=float(alpha)))
            llm.reset_prefix_cache()
        self.alpha = float(alpha)

    def close(self) -> None:
        if self._key is not None and self.generator.llm is not None:
            self.generator.llm.apply_model(functools.partial(_vllm_drop, key=self._key))
        self.resident = None


# These run inside each vLLM worker process (LLM.apply_model pickles them by reference), so the
# resident tensors are built where the model lives and only an alpha crosses the process boundary.
_WORKER_SWEEPS: dict[str, ResidentSweep] = {}


def _vllm_hold(model: torch.nn.Module, *, key: str, low: str, high: str) -> int:
    _WORKER_SWEEPS[key] = ResidentSweep(low, high)
    return len(_WORKER_SWEEPS[key].tensors)


def _vllm_load_alpha(model: torch.nn.Module, *, key: str, alpha: float) -> int:
    sweep = _WORKER_SWEEPS[key]
    dtype = next(model.parameters()).dtype
    # load_weights takes checkpoint names and handles the model's fused and sharded layouts
    model.load_weights(sweep.iter_tensors(alpha, dtype))
    return len(sweep.tensors)


def _vllm_drop(model: torch.nn.Module, *, key: str) -> None:
    _WORKER_SWEEPS.pop(key, None)
