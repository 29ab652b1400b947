"""The merger against its formula: pure arithmetic first, then real tiny Qwen2 and Llama checkpoints
made by transformers and saved as sharded safetensors, then every refusal with its message."""

from __future__ import annotations

import hashlib
import json
import math
import shutil
from pathlib import Path

import pytest
import torch
from safetensors import safe_open
from safetensors.torch import load_file, save_file
from typer.testing import CliRunner

from merger import MergeError, alpha_merge, merge_alphas, merge_models, merge_tensor, normalized_weights
from merger.merge import may_be_nonfinite, merge_sweep_into
from services.merger.cli import parse_alphas
from tests.support.models import save_tiny, tensors_of

ALPHAS = [-1.0, -0.5, 0.0, 0.3, 1.0, 1.5, 2.0]

# ---- the arithmetic, per tensor ----


def _reference(base: torch.Tensor, models: list[torch.Tensor], weights: list[float]) -> torch.Tensor:
    b = base.double()
    return b + sum(w * (m.double() - b) for w, m in zip(weights, models, strict=True))


def _terms(base: torch.Tensor, models: list[torch.Tensor], weights: list[float]) -> torch.Tensor:
    """|base| + sum |w_i| |theta_i - base|: the scale of float32 rounding in the sum."""
    b = base.double()
    return b.abs() + sum(abs(w) * (m.double() - b).abs() for w, m in zip(weights, models, strict=True))


@pytest.mark.parametrize("alpha", [-1.0, -0.7, 0.1, 0.5, 2.3])
def test_alpha_merge_is_the_spec_formula_in_float32(alpha):
    torch.manual_seed(0)
    low, high = torch.randn(4096), torch.randn(4096)
    out = alpha_merge(low, high, alpha, torch.float32)
    spec = alpha * high.double() + (1 - alpha) * low.double()  # SPEC: a*high + (1-a)*low
    # float32 rounding only: an alpha rounded to bf16 (0.1 -> 0.10009765625) is off by 1e-4 |delta|
    assert ((out.double() - spec).abs() <= 2**-22 * _terms(low, [high], [alpha])).all()


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16, torch.float32])
def test_alpha_endpoints_are_exact_even_where_float32_arithmetic_is_not(dtype):
    low = torch.tensor([3.0e4, -1.5e4, 2.0e-3, 0.0], dtype=dtype)
    high = torch.tensor([0.1, 7.0, -3.0e4, 1.0], dtype=dtype)
    naive = (low.float() + 1.0 * (high.float() - low.float())).to(dtype)
    assert not torch.equal(naive, high), "the short-circuit would not be tested"
    assert torch.equal(alpha_merge(low, high, 1.0, dtype), high)
    assert torch.equal(alpha_merge(low, high, 0.0, dtype), low)


def test_task_arithmetic_with_several_models_matches_the_formula():
    torch.manual_seed(1)
    base, a, b = torch.randn(1000), torch.randn(1000), torch.randn(1000)
    weights = [0.7, -0.35]
    out = merge_tensor(base, [a, b], weights, torch.float32)
    ref = _reference(base, [a, b], weights)
    assert ((out.double() - ref).abs() <= 2**-21 * _terms(base, [a, b], weights)).all()
    assert torch.equal(merge_tensor(base, [a, b], [0.0, 1.0], torch.float32), b)
    assert torch.equal(merge_tensor(base, [a, b], [0.0, 0.0], torch.float32), base)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32])
def test_sweep_kernel_equals_the_per_recipe_function_bit_for_bit(dtype):
    torch.manual_seed(2)
    base, a, b = (torch.randn(5000).to(dtype) for _ in range(3))
    recipes = [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.5, 0.5], [-1.0, 2.0], [0.3, 0.0]]
    outs = [torch.empty(5000, dtype=dtype) for _ in recipes]
    merge_sweep_into(base, [a, b], recipes, outs)
    for recipe, out in zip(recipes, outs, strict=True):
        assert torch.equal(out, merge_tensor(base, [a, b], recipe, dtype)), recipe


def test_normalised_weights_and_their_refusals():
    assert normalized_weights([1.0, 3.0]) == [0.25, 0.75]
    with pytest.raises(MergeError, match="sum to zero"):
        normalized_weights([1.0, -1.0])
    with pytest.raises(MergeError, match="not a finite number"):
        merge_tensor(torch.zeros(2), [torch.ones(2)], [math.nan], torch.float32)


def test_nonfinite_bound_rule():
    assert not may_be_nonfinite(60000.0, torch.float16)
    assert may_be_nonfinite(70000.0, torch.float16)
    assert not may_be_nonfinite(1e30, torch.bfloat16)
    assert may_be_nonfinite(math.nan, torch.float32)
    assert may_be_nonfinite(math.inf, torch.float32)


def test_alpha_ranges_on_the_command_line():
    assert parse_alphas("-1:2:0.5") == [-1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0]
    assert parse_alphas("-1,-0.5,0.25") == [-1.0, -0.5, 0.25]
    assert parse_alphas("0:0.3:0.1") == [0.0, 0.1, 0.2, 0.3]


# ---- real checkpoints ----


@pytest.fixture(scope="module")
def ckpts(tmp_path_factory):
    root = tmp_path_factory.mktemp("ckpts")
    return {
        "qwen_bf16_low": save_tiny(root / "qwen_bf16_low", "qwen2", 0, torch.bfloat16),
        "qwen_bf16_high": save_tiny(root / "qwen_bf16_high", "qwen2", 1, torch.bfloat16),
        "llama_fp32_low": save_tiny(root / "llama_fp32_low", "llama", 2, torch.float32),
        "llama_fp32_high": save_tiny(root / "llama_fp32_high", "llama", 3, torch.float32),
        "llama_bf16_high": save_tiny(root / "llama_bf16_high", "llama", 3, torch.bfloat16),
        "qwen_single": save_tiny(root / "qwen_single", "qwen2", 4, torch.bfloat16, shard=None),
        "qwen_single_high": save_tiny(root / "qwen_single_high", "qwen2", 5, torch.bfloat16, shard=None),
    }


def _clone(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


def _rewrite(ckpt: Path, edit) -> None:
    """Apply edit(tensors: dict) to every shard of a checkpoint, keeping the index in step."""
    index_path = ckpt / "model.safetensors.index.json"
    index = json.loads(index_path.read_text()) if index_path.exists() else None
    for shard in sorted(ckpt.glob("*.safetensors")):
        tensors = load_file(shard)
        edit(tensors, shard.name)
        save_file(tensors, shard, metadata={"format": "pt"})
        if index is not None:
            index["weight_map"] = {k: v for k, v in index["weight_map"].items() if v != shard.name}
            index["weight_map"].update(dict.fromkeys(tensors, shard.name))
    if index is not None:
        index_path.write_text(json.dumps(index))


def _tolerance(out_dtype: torch.dtype) -> tuple[float, float]:
    """(relative rounding of the output dtype, float32 rounding of the terms)."""
    return {
        torch.bfloat16: (2**-8, 2**-21),
        torch.float16: (2**-11, 2**-21),
        torch.float32: (2**-23, 2**-21),
    }[out_dtype]


@pytest.mark.parametrize(
    "low,high,dtype",
    [
        ("qwen_bf16_low", "qwen_bf16_high", torch.bfloat16),
        ("llama_fp32_low", "llama_fp32_high", torch.float32),
    ],
)
def test_sweep_reproduces_endpoints_and_the_formula_everywhere(ckpts, tmp_path, low, high, dtype):
    result = merge_alphas(str(ckpts[low]), str(ckpts[high]), ALPHAS, tmp_path / "out")
    lo, hi = tensors_of(ckpts[low]), tensors_of(ckpts[high])
    rel, terms = _tolerance(dtype)
    for alpha in ALPHAS:
        out = tensors_of(tmp_path / "out" / f"alpha_{alpha!r}")
        assert set(out) == set(lo)
        for name, t in out.items():
            assert t.dtype == dtype
            if alpha == 0.0:
                assert torch.equal(t, lo[name]), name
            elif alpha == 1.0:
                assert torch.equal(t, hi[name]), name
            else:
                ref = _reference(lo[name], [hi[name]], [alpha])
                bound = rel * ref.abs() + terms * _terms(lo[name], [hi[name]], [alpha]) + 1e-30
                assert ((t.double() - ref).abs() <= bound).all(), (alpha, name)
    # one pass: every input tensor byte was read once, whatever the number of alphas
    input_bytes = sum(t.numel() * t.element_size() for t in (*lo.values(), *hi.values()))
    assert result.bytes_read == input_bytes
    assert result.bytes_written == sum(
        f.stat().st_size for o in result.outputs for f in o.path.glob("*.safetensors")
    )


def test_output_keeps_the_sharding_index_config_and_tokenizer(ckpts, tmp_path):
    low, high = ckpts["qwen_bf16_low"], ckpts["qwen_bf16_high"]
    merge_alphas(str(low), str(high), [0.5, 1.5], tmp_path / "out")
    out = tmp_path / "out" / "alpha_1.5"
    shards = sorted(p.name for p in low.glob("*.safetensors"))
    assert len(shards) >= 3 and sorted(p.name for p in out.glob("*.safetensors")) == shards
    index_in = json.loads((low / "model.safetensors.index.json").read_text())
    index_out = json.loads((out / "model.safetensors.index.json").read_text())
    assert index_out["weight_map"] == index_in["weight_map"]
    assert index_out["metadata"]["total_size"] == sum(t.nbytes for t in tensors_of(out).values())
    for name in ("config.json", "generation_config.json", "tokenizer.json", "tokenizer_config.json"):
        assert (out / name).read_bytes() == (low / name).read_bytes(), name
    for shard in shards:  # every file is valid for the safetensors library itself, with its metadata
        with safe_open(out / shard, "pt") as f:
            assert f.metadata() == {"format": "pt"}
            assert set(f.keys()) == {k for k, v in index_in["weight_map"].items() if v == shard}


def test_merge_config_records_inputs_hashes_alpha_dtype_and_version(ckpts, tmp_path):
    low, high = ckpts["llama_fp32_low"], ckpts["llama_fp32_high"]
    merge_alphas(str(low), str(high), [-0.5], tmp_path / "out")
    record = json.loads((tmp_path / "out" / "alpha_-0.5" / "merge_config.json").read_text())
    assert record["method"] == "alpha" and record["alpha"] == -0.5 and record["dtype"] == "float32"
    assert record["version"] == "0.1.0"
    assert record["base"]["path"] == str(low) and record["models"][0]["path"] == str(high)
    assert record["models"][0]["weight"] == -0.5
    for side, ckpt in (("base", low), ("models", high)):
        files = record[side]["files"] if side == "base" else record[side][0]["files"]
        assert set(files) >= {p.name for p in ckpt.glob("*.safetensors")} | {"config.json"}
        for name, digest in files.items():
            assert digest == "sha256:" + hashlib.sha256((ckpt / name).read_bytes()).hexdigest()
    assert record["warnings"] == []


@pytest.mark.parametrize(
    "low,high", [("qwen_bf16_low", "qwen_bf16_high"), ("llama_fp32_low", "llama_fp32_high")]
)
def test_extrapolated_checkpoint_loads_and_generates(ckpts, tmp_path, low, high):
    from tokenizers import Tokenizer
    from transformers import AutoModelForCausalLM

    merge_alphas(str(ckpts[low]), str(ckpts[high]), [1.5], tmp_path / "out")
    out = tmp_path / "out" / "alpha_1.5"
    model, info = AutoModelForCausalLM.from_pretrained(out, output_loading_info=True)
    assert not info["missing_keys"] and not info["unexpected_keys"]
    written = tensors_of(out)
    for name, param in model.state_dict().items():  # tied lm_head included
        key = name if name in written else "model.embed_tokens.weight"
        assert torch.equal(param, written[key]), name
    ids = torch.tensor([Tokenizer.from_file(str(out / "tokenizer.json")).encode("t1 t2 t3").ids])
    assert ids.tolist() == [[2, 3, 4]]
    gen = model.generate(ids, max_new_tokens=4, do_sample=False, pad_token_id=0)
    assert gen.shape == (1, 7) and torch.equal(gen[:, :3], ids)


def test_single_file_checkpoint_stays_single_file(ckpts, tmp_path):
    merge_alphas(str(ckpts["qwen_single"]), str(ckpts["qwen_single_high"]), [0.0, 2.0], tmp_path / "out")
    out = tmp_path / "out" / "alpha_0.0"
    assert sorted(p.name for p in out.glob("*.safetensors")) == ["model.safetensors"]
    assert not (out / "model.safetensors.index.json").exists()
    assert (out / "model.safetensors").read_bytes() == (
        ckpts["qwen_single"] / "model.safetensors"
    ).read_bytes()


def test_output_dtype_casts_once_and_updates_config(ckpts, tmp_path):
    low, high = ckpts["qwen_bf16_low"], ckpts["qwen_bf16_high"]
    merge_alphas(str(low), str(high), [0.0, 0.3], tmp_path / "out", dtype="float32")
    lo, hi = tensors_of(low), tensors_of(high)
    a0, a3 = tensors_of(tmp_path / "out" / "alpha_0.0"), tensors_of(tmp_path / "out" / "alpha_0.3")
    for name in lo:
        assert torch.equal(a0[name], lo[name].float())
        ref = _reference(lo[name], [hi[name]], [0.3])
        assert ((a3[name].double() - ref).abs() <= 2**-21 * _terms(lo[name], [hi[name]], [0.3]) + 1e-30).all()
    assert json.loads((tmp_path / "out" / "alpha_0.3" / "config.json").read_text())["dtype"] == "float32"


def test_general_form_is_task_arithmetic(ckpts, tmp_path):
    base, a, b = ckpts["llama_fp32_low"], ckpts["llama_fp32_high"], ckpts["llama_fp32_high"]
    result = merge_models(str(base), [(str(a), 0.7), (str(b), -0.2)], tmp_path / "m")
    assert result.outputs[0].path == tmp_path / "m"
    tb, ta = tensors_of(base), tensors_of(a)
    out = tensors_of(tmp_path / "m")
    for name in tb:
        ref = _reference(tb[name], [ta[name], ta[name]], [0.7, -0.2])
        assert (
            (out[name].double() - ref).abs() <= 2**-21 * _terms(tb[name], [ta[name]] * 2, [0.7, 0.2])
        ).all()
    record = json.loads((tmp_path / "m" / "merge_config.json").read_text())
    assert record["method"] == "task_arithmetic" and record["weights"] == [0.7, -0.2]
    merge_models(str(base), [(str(a), 1.0), (str(b), 3.0)], tmp_path / "n", normalize=True)
    assert json.loads((tmp_path / "n" / "merge_config.json").read_text())["weights"] == [0.25, 0.75]
    with pytest.raises(MergeError, match="sum to zero"):
        merge_models(str(base), [(str(a), 1.0), (str(b), -1.0)], tmp_path / "z", normalize=True)
    assert not (tmp_path / "z").exists()


def test_mixed_input_dtypes_need_an_output_dtype(ckpts, tmp_path):
    low, high = ckpts["llama_fp32_low"], ckpts["llama_bf16_high"]
    with pytest.raises(MergeError, match="is F32 in .* but BF16 in .*set dtype"):
        merge_alphas(str(low), str(high), [0.5], tmp_path / "a")
    merge_alphas(str(low), str(high), [1.0], tmp_path / "b", dtype="bfloat16")
    assert all(t.dtype == torch.bfloat16 for t in tensors_of(tmp_path / "b" / "alpha_1.0").values())
    assert torch.equal(
        tensors_of(tmp_path / "b" / "alpha_1.0")["lm_head.weight"], tensors_of(high)["lm_head.weight"]
    )


def test_non_float_tensors_are_copied_from_the_base(ckpts, tmp_path):
    low, high = (
        _clone(ckpts["llama_fp32_low"], tmp_path / "low"),
        _clone(ckpts["llama_fp32_high"], tmp_path / "high"),
    )

    def add_ids(value):
        def edit(tensors, shard):
            if shard.startswith("model-00001"):
                tensors["model.position_ids"] = torch.arange(8, dtype=torch.int64) * value

        return edit

    _rewrite(low, add_ids(1))
    _rewrite(high, add_ids(100))
    result = merge_alphas(str(low), str(high), [0.5, 2.0], tmp_path / "out")
    for o in result.outputs:
        assert torch.equal(tensors_of(o.path)["model.position_ids"], torch.arange(8, dtype=torch.int64))
    assert any("non-float tensors copied from the base" in n for n in result.notes)


def test_nan_and_inf_are_reported_per_tensor(ckpts, tmp_path):
    low = _clone(ckpts["llama_fp32_low"], tmp_path / "low")
    high = ckpts["llama_fp32_high"]

    def poison(tensors, shard):
        if "model.norm.weight" in tensors:
            tensors["model.norm.weight"][:3] = math.nan

    _rewrite(low, poison)
    result = merge_alphas(str(low), str(high), [0.5, 1.0, 1e7], tmp_path / "out", dtype="float16")
    by_alpha = {o.record["alpha"]: o.warnings for o in result.outputs}
    assert {"tensor": "model.norm.weight", "nan": 3, "inf": 0} in by_alpha[0.5]
    assert by_alpha[1.0] == []  # alpha 1 is high, untouched by low's NaN
    overflow = {w["tensor"]: w for w in by_alpha[1e7]}
    assert overflow["model.layers.0.mlp.up_proj.weight"]["inf"] > 0
    record = json.loads((tmp_path / "out" / "alpha_10000000.0" / "merge_config.json").read_text())
    assert record["warnings"] == by_alpha[1e7]


def test_tied_embeddings_with_and_without_a_stored_lm_head(ckpts, tmp_path):
    low, high = ckpts["qwen_bf16_low"], _clone(ckpts["qwen_bf16_high"], tmp_path / "high_lm")
    embed_high = tensors_of(high)["model.embed_tokens.weight"]

    def store_lm_head(tensors, shard):
        if "model.embed_tokens.weight" in tensors:
            tensors["lm_head.weight"] = tensors["model.embed_tokens.weight"].clone()

    _rewrite(high, store_lm_head)
    # base without lm_head: the output follows the base, the model's stored copy is dropped
    r = merge_alphas(str(low), str(high), [1.0], tmp_path / "a")
    assert "lm_head.weight" not in tensors_of(tmp_path / "a" / "alpha_1.0")
    assert any("dropped" in n for n in r.notes)
    # base with lm_head: the model's lm_head is its input embedding
    r = merge_alphas(str(high), str(low), [0.0, 1.0], tmp_path / "b")
    out = tensors_of(tmp_path / "b" / "alpha_1.0")
    assert torch.equal(out["lm_head.weight"], tensors_of(low)["model.embed_tokens.weight"])
    assert torch.equal(tensors_of(tmp_path / "b" / "alpha_0.0")["lm_head.weight"], embed_high)


def test_hub_ids_are_downloaded(ckpts, tmp_path, monkeypatch):
    import huggingface_hub

    asked = []

    def fake_snapshot_download(repo_id, **kwargs):
        asked.append(repo_id)
        return str(ckpts["qwen_bf16_low"] if repo_id == "org/low" else ckpts["qwen_bf16_high"])

    monkeypatch.setattr(huggingface_hub, "snapshot_download", fake_snapshot_download)
    merge_alphas("org/low", "org/high", [0.5], tmp_path / "out")
    assert asked == ["org/low", "org/high"]
    record = json.loads((tmp_path / "out" / "alpha_0.5" / "merge_config.json").read_text())
    assert record["base"]["source"] == "org/low" and record["base"]["from_hub"] is True

    def offline(repo_id, **kwargs):
        raise OSError("network is unreachable")

    monkeypatch.setattr(huggingface_hub, "snapshot_download", offline)
    with pytest.raises(MergeError, match="'org/nothing' is not a local directory, and downloading it"):
        merge_alphas("org/nothing", "org/high", [0.5], tmp_path / "out2")


def test_relative_names_are_local_for_the_cli_and_hub_ids_for_the_service(ckpts, tmp_path, monkeypatch):
    """A name like org/low that is also a directory in the current directory: the library (and the
    CLI) read that directory; with relative_local=False (the merger service's jobs) it is a hub id."""
    import huggingface_hub

    (tmp_path / "org").mkdir()
    (tmp_path / "org" / "low").symlink_to(ckpts["qwen_bf16_low"])
    (tmp_path / "org" / "high").symlink_to(ckpts["qwen_bf16_high"])
    monkeypatch.chdir(tmp_path)
    asked = []

    def fake_snapshot_download(repo_id, **kwargs):
        asked.append(repo_id)
        return str(ckpts["qwen_bf16_low"] if repo_id == "org/low" else ckpts["qwen_bf16_high"])

    monkeypatch.setattr(huggingface_hub, "snapshot_download", fake_snapshot_download)
    merge_alphas("org/low", "org/high", [0.5], tmp_path / "cli", fsync=False)
    assert asked == []
    record = json.loads((tmp_path / "cli" / "alpha_0.5" / "merge_config.json").read_text())
    assert record["base"]["from_hub"] is False

    merge_alphas("org/low", "org/high", [0.5], tmp_path / "svc", fsync=False, relative_local=False)
    assert asked == ["org/low", "org/high"]
    record = json.loads((tmp_path / "svc" / "alpha_0.5" / "merge_config.json").read_text())
    assert record["base"]["from_hub"] is True
    with pytest.raises(MergeError, match="no such checkpoint directory"):
        merge_alphas("./org/low", "org/high", [0.5], tmp_path / "dot", relative_local=False)
    assert asked == ["org/low", "org/high"]


def test_a_crash_leaves_nothing_that_looks_complete(ckpts, tmp_path):
    def crash(p):
        if p.tensors_done == 5:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        merge_alphas(str(ckpts["qwen_bf16_low"]), str(ckpts["qwen_bf16_high"]), [0.5, 2.0], tmp_path / "out",
                     progress=crash)  # fmt: skip
    assert list((tmp_path / "out").iterdir()) == []


def test_existing_output_is_refused_unless_overwrite(ckpts, tmp_path):
    low, high = str(ckpts["qwen_bf16_low"]), str(ckpts["qwen_bf16_high"])
    merge_alphas(low, high, [0.5], tmp_path / "out")
    stale = tmp_path / "out" / "alpha_0.5" / "stale.txt"
    stale.write_text("from an earlier run")
    with pytest.raises(MergeError, match="alpha_0.5 already exists"):
        merge_alphas(low, high, [0.5], tmp_path / "out")
    merge_alphas(low, high, [0.5], tmp_path / "out", overwrite=True)
    assert not stale.exists() and (tmp_path / "out" / "alpha_0.5" / "merge_config.json").exists()
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["alpha_0.5"]


def _drop_tensor(tensors, shard):
    tensors.pop("model.layers.1.mlp.up_proj.weight", None)


def _add_tensor(tensors, shard):
    if shard.startswith("model-00001"):
        tensors["model.extra.weight"] = torch.zeros(4)


def _reshape_tensor(tensors, shard):
    if "model.norm.weight" in tensors:
        tensors["model.norm.weight"] = torch.zeros(3)


def _corrupt(ckpt: Path) -> None:
    shard = sorted(ckpt.glob("*.safetensors"))[0]
    shard.write_bytes(shard.read_bytes()[:100])


@pytest.mark.parametrize(
    "case,break_high,message",
    [
        ("tensor missing on one side", lambda p: _rewrite(p, _drop_tensor),
         r"'model.layers.1.mlp.up_proj.weight' is in .* but not in"),
        ("tensor only on the other side", lambda p: _rewrite(p, _add_tensor),
         r"'model.extra.weight' is in .* but not in"),
        ("shape mismatch", lambda p: _rewrite(p, _reshape_tensor),
         r"'model.norm.weight' has shape \[64\] in .* but \[3\] in"),
        ("different vocabulary", lambda p: _edit_config(p, vocab_size=300), r"vocab_size is 256 in .* but 300"),
        ("different architecture", lambda p: _edit_config(p, model_type="qwen2"), r"model_type is 'llama'"),
        ("tied against untied", lambda p: _edit_config(p, tie_word_embeddings=True), r"tie_word_embeddings"),
        ("no config", lambda p: (p / "config.json").unlink(), r"no config.json"),
        ("no weights", lambda p: [f.unlink() for f in p.glob("*.safetensors*")], r"no model.safetensors"),
        ("corrupt shard", _corrupt, r"not plausible|too short|ends at byte"),
    ],
)  # fmt: skip
def test_refusals_name_the_problem(ckpts, tmp_path, case, break_high, message):
    high = _clone(ckpts["llama_fp32_high"], tmp_path / "high")
    break_high(high)
    with pytest.raises(MergeError, match=message):
        merge_alphas(str(ckpts["llama_fp32_low"]), str(high), [0.5], tmp_path / "out")
    assert not (tmp_path / "out").exists() or list((tmp_path / "out").iterdir()) == []


def _edit_config(ckpt: Path, **changes) -> None:
    path = ckpt / "config.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), **changes}))


@pytest.mark.parametrize(
    "alphas,output,message",
    [
        ([0.5, 0.5], "out", "alphas repeat"),
        ([math.nan], "out", "not a finite number"),
        ([], "out", "no alphas"),
        ([0.5], "LOW", "overlaps the input checkpoint"),
    ],
)
def test_bad_requests_are_refused(ckpts, tmp_path, alphas, output, message):
    low = ckpts["qwen_bf16_low"]
    out = low if output == "LOW" else tmp_path / output
    with pytest.raises(MergeError, match=message):
        merge_alphas(str(low), str(ckpts["qwen_bf16_high"]), alphas, out)
    with pytest.raises(MergeError, match="no such checkpoint directory"):
        merge_alphas(str(tmp_path / "missing"), str(low), [0.5], tmp_path / "x")


def test_cli_sweep_and_general_form(ckpts, tmp_path):
    from services.cli import app

    low, high = str(ckpts["qwen_bf16_low"]), str(ckpts["qwen_bf16_high"])
    runner = CliRunner()
    r = runner.invoke(
        app, ["merge", "--low", low, "--high", high, "--alphas", "-1,0,1.5", "--out", str(tmp_path / "o")]
    )
    assert r.exit_code == 0, r.output
    assert sorted(p.name for p in (tmp_path / "o").iterdir()) == ["alpha_-1.0", "alpha_0.0", "alpha_1.5"]
    assert torch.equal(
        tensors_of(tmp_path / "o" / "alpha_0.0")["model.norm.weight"],
        tensors_of(Path(low))["model.norm.weight"],
    )
    r = runner.invoke(
        app, ["merge", "run", "--base", low, "--model", f"{high}:0.25", "--out", str(tmp_path / "g")]
    )
    assert r.exit_code == 0, r.output
    assert json.loads((tmp_path / "g" / "merge_config.json").read_text())["weights"] == [0.25]
    r = runner.invoke(
        app, ["merge", "--low", low, "--high", high, "--alphas", "-1", "--out", str(tmp_path / "o")]
    )
    assert r.exit_code == 2 and "already exists" in r.output
    r = runner.invoke(app, ["merge", "--low", low, "--alphas", "0.5", "--out", str(tmp_path / "p")])
    assert r.exit_code == 2 and "needs all of low, high and alphas" in r.output
