"""Small checkpoints built here, for the tests only (no hub): random tiny causal LMs saved by
transformers, big bf16 safetensors for slow merges, and a planted model that repairs its own program.
The planted checkpoints that the demo and benchmarks use too live in services/testing/checkpoints.py."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support import BUNDLED

SMALL = {"vocab_size": 256, "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
         "num_attention_heads": 4, "num_key_value_heads": 2, "max_position_embeddings": 128}  # fmt: skip


def save_tiny(path: Path, arch: str, seed: int, dtype, shard: str | None = "60KB", **config) -> Path:
    """A random tiny causal LM saved by transformers, with a small tokenizer, as (sharded) safetensors."""
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import AutoModelForCausalLM, LlamaConfig, PreTrainedTokenizerFast, Qwen2Config

    cls = {"qwen2": Qwen2Config, "llama": LlamaConfig}[arch]
    cfg = cls(**{**SMALL, "tie_word_embeddings": arch == "qwen2", **config})
    torch.manual_seed(seed)
    model = AutoModelForCausalLM.from_config(cfg).to(dtype)
    model.save_pretrained(path, max_shard_size=shard or "1GB")
    vocab = {"[UNK]": 0, **{f"t{i}": i + 1 for i in range(cfg.vocab_size - 1)}}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]").save_pretrained(path)
    return path


def tensors_of(path: Path) -> dict:
    from safetensors.torch import load_file

    out: dict = {}
    for f in sorted(path.glob("*.safetensors")):
        out |= load_file(f)
    return out


def big_checkpoint(path: Path, seed: int) -> Path:
    """About 128 MB of bf16: a sweep of it takes seconds, long enough to kill a worker inside it."""
    import torch
    from safetensors.torch import save_file

    path.mkdir(parents=True)
    gen = torch.Generator().manual_seed(seed)
    tensors = {
        f"model.layers.{i}.mlp.up_proj.weight": torch.randn(2048, 2048, generator=gen).bfloat16()
        for i in range(16)
    }
    save_file(tensors, path / "model.safetensors", metadata={"format": "pt"})
    (path / "config.json").write_text(
        json.dumps({"model_type": "llama", "architectures": ["LlamaForCausalLM"]})
    )
    return path


REPAIR_PROBLEM = "prefix_range_sums"
WRONG = "```python\nprint(0)\n```"  # one token: the first attempt


def bigram_checkpoint(path: Path, chain: dict[str | None, str | None], extra: list[str] = ()) -> Path:
    """A Qwen2 checkpoint that is a bigram table over whole-piece tokens: `chain[a]` follows token a
    (None as a key: any other token; None as a value: end-of-text). Every layer's output is zeroed, the
    embedding gives each piece its own direction and the output head maps each piece to the next, so
    the next token depends on the last one only. `extra`: pieces the tokenizer knows beyond the chain."""
    import torch
    from transformers import Qwen2ForCausalLM

    from services.testing.checkpoints import byte_tokenizer, make_tiny_checkpoint

    pieces = list(dict.fromkeys([p for p in [*chain, *chain.values(), *extra] if p is not None]))
    tokenizer = byte_tokenizer(pieces)
    ids = {p: tokenizer.convert_tokens_to_ids(p) for p in pieces}
    hidden = max(64, -(-(len(pieces) + 1) // 8) * 8)
    make_tiny_checkpoint(path, seed=0, hidden=hidden, tie=False, tokenizer=tokenizer)
    model = Qwen2ForCausalLM.from_pretrained(path, dtype=torch.float32)
    logit = 40.0 / model.config.hidden_size**0.5
    direction = {p: i + 1 for i, p in enumerate(pieces)}  # 0: any other token
    with torch.no_grad():
        for layer in model.model.layers:
            layer.self_attn.o_proj.weight.zero_()
            layer.mlp.down_proj.weight.zero_()
        model.model.norm.weight.fill_(1.0)
        emb, head = model.model.embed_tokens.weight, model.lm_head.weight
        emb.zero_()
        emb[:, 0] = 1.0
        head.zero_()
        for p in pieces:
            emb[ids[p]].zero_()
            emb[ids[p], direction[p]] = 1.0
        for a, b in chain.items():
            head[ids[b] if b is not None else tokenizer.eos_token_id, direction.get(a, 0)] = logit
    model.save_pretrained(path)
    return path


def repairing_checkpoint(path: Path) -> Path:
    """A checkpoint that writes WRONG after any prompt, and the reference program after the repair
    turn's closing line (REPAIR_ANSWER, one token), a line a token (`bigram_checkpoint`)."""
    from services.problems.prompts import REPAIR_ANSWER
    from services.testing.checkpoints import program_pieces

    ref = program_pieces((BUNDLED / REPAIR_PROBLEM / "ref.py").read_text())
    assert len(set(ref)) == len(ref), "a bigram table needs the reference's lines distinct"
    chain = {
        None: WRONG,
        WRONG: None,
        REPAIR_ANSWER: ref[0],
        **dict(zip(ref, ref[1:], strict=False)),
        ref[-1]: None,
    }
    return bigram_checkpoint(path, chain)
