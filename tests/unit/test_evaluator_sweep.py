"""In-place sweeps (issue 6, item 4): theta_low + a * delta loaded into the live model equals, bit for bit,
the checkpoint the merger writes for the same alpha, for every alpha inside and outside [0, 1]."""

from __future__ import annotations

import pytest
import torch
from safetensors.torch import load_file

from merger.sweep import alpha_dir_name, merge_alphas
from services.evaluator.generate import SampleRequest, Sampling, TransformersGenerator
from services.evaluator.sweep import InPlaceSweep, ResidentSweep, SweepError
from services.problems.prompts import ProblemPrompt
from services.testing.checkpoints import make_tiny_checkpoint

ALPHAS = [-0.5, 0.0, 0.3, 0.5, 1.0, 1.5, 2.0]
_INT_VIEW = {torch.float32: torch.int32, torch.bfloat16: torch.int16, torch.float16: torch.int16}


def _bits(t: torch.Tensor) -> torch.Tensor:
    return t.contiguous().view(_INT_VIEW[t.dtype])


def _pair(tmp_path, dtype="float32", tie=True, vocab_size=None):
    low = make_tiny_checkpoint(tmp_path / "low", seed=1, dtype=dtype, tie=tie, vocab_size=vocab_size)
    high = make_tiny_checkpoint(tmp_path / "high", seed=2, dtype=dtype, tie=tie, vocab_size=vocab_size)
    return low, high


def _assert_model_holds(model: torch.nn.Module, checkpoint_dir, exact: bool = True) -> None:
    written = load_file(str(checkpoint_dir / "model.safetensors"))
    state = model.state_dict()
    assert written, "the merger wrote no tensors"
    for name, tensor in written.items():
        live = state[name]
        if exact:
            assert live.dtype == tensor.dtype, name
            assert torch.equal(_bits(live), _bits(tensor)), f"{name} differs from the merger's"
        else:
            # the live model keeps float32; the merger rounded to its dtype once
            assert torch.equal(live.to(tensor.dtype), tensor), (
                f"{name} differs beyond {tensor.dtype} rounding"
            )


@pytest.mark.parametrize("tie", [True, False], ids=["tied-embeddings", "untied-embeddings"])
def test_in_place_float32_equals_merger_checkpoints_bit_for_bit(tmp_path, tie):
    # a vocabulary of 20000 x 64 makes the embedding span two of the merger's 2^20-element slices
    low, high = _pair(tmp_path, tie=tie, vocab_size=20000)
    merge_alphas(str(low), str(high), ALPHAS, tmp_path / "merged", fsync=False)
    gen = TransformersGenerator(low)
    sweep = InPlaceSweep(gen, low, high)
    for alpha in ALPHAS:
        sweep.load_alpha(alpha)
        _assert_model_holds(gen.model, tmp_path / "merged" / alpha_dir_name(alpha))
    # back to an endpoint after others: exactly theta_low again, nothing accumulated
    sweep.load_alpha(0.0)
    _assert_model_holds(gen.model, tmp_path / "merged" / alpha_dir_name(0.0))


def test_in_place_bfloat16_equals_merger_bf16_bit_for_bit_and_float32_within_rounding(tmp_path):
    low, high = _pair(tmp_path, dtype="bfloat16")
    merge_alphas(str(low), str(high), ALPHAS, tmp_path / "bf16", fsync=False)
    merge_alphas(str(low), str(high), ALPHAS, tmp_path / "f32", dtype="float32", fsync=False)
    live_bf16 = TransformersGenerator(low, dtype="bfloat16")
    live_f32 = TransformersGenerator(low, dtype="float32")
    sweeps = [InPlaceSweep(live_bf16, low, high), InPlaceSweep(live_f32, low, high)]
    for alpha in ALPHAS:
        for s in sweeps:
            s.load_alpha(alpha)
        _assert_model_holds(live_bf16.model, tmp_path / "bf16" / alpha_dir_name(alpha))
        _assert_model_holds(live_f32.model, tmp_path / "f32" / alpha_dir_name(alpha))
        _assert_model_holds(live_f32.model, tmp_path / "bf16" / alpha_dir_name(alpha), exact=False)


def test_a_model_swept_in_place_samples_what_the_merged_checkpoint_samples(tmp_path):
    low, high = _pair(tmp_path)
    merge_alphas(str(low), str(high), [1.5], tmp_path / "merged", fsync=False)
    live = TransformersGenerator(low)
    InPlaceSweep(live, low, high).load_alpha(1.5)
    fresh = TransformersGenerator(tmp_path / "merged" / alpha_dir_name(1.5))
    prompt = live.prompt(ProblemPrompt("p", "Print the sum of two integers."))
    request = [SampleRequest(prompt, count=2, seed=7)]
    sampling = Sampling(temperature=1.0, max_tokens=12)
    assert live.sample(request, sampling) == fresh.sample(request, sampling)


def _raw_checkpoint(path, tensors: dict[str, torch.Tensor]):
    from safetensors.torch import save_file

    path.mkdir()
    (path / "config.json").write_text('{"model_type": "toy", "tie_word_embeddings": false}')
    save_file(tensors, str(path / "model.safetensors"))
    return path


def test_endpoints_are_exact_copies_even_where_float32_rounding_would_miss(tmp_path):
    # low + (high - low) misses high in float32 here: 1e8 + (1 + 2^-20 - 1e8) rounds to 0 or 8
    low = _raw_checkpoint(tmp_path / "low", {"w": torch.tensor([1e8, 2.0, -3.0])})
    high = _raw_checkpoint(tmp_path / "high", {"w": torch.tensor([1 + 2**-20, 2.5, -3.0])})
    assert torch.tensor(1e8) + (torch.tensor(1 + 2**-20) - torch.tensor(1e8)) != 1 + 2**-20
    merge_alphas(str(low), str(high), [0.0, 1.0, 0.5], tmp_path / "merged", fsync=False)
    sweep = ResidentSweep(low, high)
    for alpha in (0.0, 1.0, 0.5):
        written = load_file(str(tmp_path / "merged" / alpha_dir_name(alpha) / "model.safetensors"))["w"]
        assert torch.equal(_bits(sweep.tensor("w", alpha, torch.float32)), _bits(written)), alpha
    assert sweep.tensor("w", 1.0, torch.float32)[0] == 1 + 2**-20


def test_checkpoints_of_different_shapes_are_refused_with_the_merger_message(tmp_path):
    low = make_tiny_checkpoint(tmp_path / "low", seed=1, hidden=64)
    other = make_tiny_checkpoint(tmp_path / "other", seed=2, hidden=32)
    with pytest.raises(SweepError, match="hidden_size"):
        ResidentSweep(low, other)
