"""Small checkpoints for the tests and benchmarks, made here without a download: random ones, and
"planted" ones whose weights are set by hand so that sampling writes one given program token by token
(so the judge has real verdicts to return)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

EOS = "<|endoftext|>"


def byte_tokenizer(pieces: Sequence[str] = ()):
    """A byte-level tokenizer made here (no download): the 256 byte symbols, an end-of-text token, and
    `pieces` as whole tokens of their own (what planted checkpoints write)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    alphabet = pre_tokenizers.ByteLevel.alphabet()
    vocab = {symbol: i for i, symbol in enumerate(sorted(alphabet))}
    tok = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    tok.decoder = decoders.ByteLevel()
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token=EOS, pad_token=EOS)
    fast.add_special_tokens({"eos_token": EOS, "pad_token": EOS})
    if pieces:
        from tokenizers import AddedToken

        fast.add_tokens([AddedToken(p, normalized=False, special=False) for p in pieces])
    return fast


def _qwen2_config(vocab_size: int, eos_id: int, hidden: int, layers: int, tie: bool, dtype: str):
    from transformers import Qwen2Config

    return Qwen2Config(
        vocab_size=vocab_size,
        hidden_size=hidden,
        intermediate_size=2 * hidden,
        num_hidden_layers=layers,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=8192,
        tie_word_embeddings=tie,
        bos_token_id=None,
        eos_token_id=eos_id,
        pad_token_id=eos_id,
        dtype=dtype,
    )


def make_tiny_checkpoint(
    path: Path | str,
    *,
    seed: int,
    hidden: int = 64,
    layers: int = 2,
    dtype: str = "float32",
    tie: bool = True,
    tokenizer=None,
    vocab_size: int | None = None,
) -> Path:
    """A random-init Qwen2 causal LM of a few hundred thousand weights, with a byte-level tokenizer
    (`vocab_size` may add rows past the tokenizer's, for tensors larger than the merger's slices)."""
    import torch
    from transformers import Qwen2ForCausalLM

    path = Path(path)
    tokenizer = tokenizer or byte_tokenizer()
    config = _qwen2_config(vocab_size or len(tokenizer), tokenizer.eos_token_id, hidden, layers, tie, dtype)
    torch.manual_seed(seed)
    # a larger init than the default 0.02 so that checkpoints made with different seeds differ clearly
    config.initializer_range = 0.2
    model = Qwen2ForCausalLM(config).to(getattr(torch, dtype))
    model.generation_config.pad_token_id = tokenizer.eos_token_id
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


def program_pieces(program: str) -> list[str]:
    """A fenced code block cut into the tokens a planted checkpoint writes: one per line, with blank
    lines and lines that repeat joined to the line before, so that no piece appears twice (each has
    one successor) and none is mere whitespace (which a prompt could end with)."""
    text = f"```python\n{program.rstrip()}\n```"
    pieces: list[str] = []
    for line in text.splitlines(keepends=True):
        if pieces and (not line.strip() or line in pieces):
            pieces[-1] += line
        else:
            pieces.append(line)
    for i in range(len(pieces) - 1, 0, -1):  # a joined piece may now equal a later one: merge again
        if pieces[i] in pieces[:i]:
            pieces[i - 1] += pieces.pop(i)
    return pieces


def make_planted_checkpoints(
    root: Path | str, programs: dict[str, str], *, hidden: int = 64
) -> dict[str, Path]:
    """One checkpoint per program, sharing one tokenizer, each writing its program as a fenced block
    whatever the prompt. Every layer's output projections are zero, so the model is a bigram table:
    the embedding gives each piece its own direction, and the (untied) output head maps "any other
    token" to the first piece, each piece to the next, and the last to end-of-text. Sampling at any
    temperature below ~5 follows the chain. The checkpoints are ordinary Qwen2 checkpoints: they merge,
    load and sample like any other."""
    import torch

    root = Path(root)
    chains = {name: program_pieces(p) for name, p in programs.items()}
    pieces = list(dict.fromkeys(p for chain in chains.values() for p in chain))
    hidden = max(hidden, -(-(len(pieces) + 1) // 8) * 8)
    tokenizer = byte_tokenizer(pieces)
    ids = {p: tokenizer.convert_tokens_to_ids(p) for p in pieces}
    direction = {p: i + 1 for i, p in enumerate(pieces)}  # 0: every other token
    out: dict[str, Path] = {}
    for seed, (name, chain) in enumerate(chains.items()):
        path = make_tiny_checkpoint(root / name, seed=seed, hidden=hidden, tie=False, tokenizer=tokenizer)
        from transformers import Qwen2ForCausalLM

        model = Qwen2ForCausalLM.from_pretrained(path, dtype=torch.float32)
        # after RMSNorm a one-hot embedding of any size becomes sqrt(hidden) * one-hot
        logit = 40.0 / hidden**0.5
        with torch.no_grad():
            for layer in model.model.layers:
                layer.self_attn.o_proj.weight.zero_()
                layer.mlp.down_proj.weight.zero_()
            model.model.norm.weight.fill_(1.0)
            emb = model.model.embed_tokens.weight
            emb.zero_()
            emb[:, 0] = 1.0
            for p in pieces:
                emb[ids[p]].zero_()
                emb[ids[p], direction[p]] = 1.0
            head = model.lm_head.weight
            head.zero_()
            head[ids[chain[0]], 0] = logit
            for a, b in zip(chain, chain[1:], strict=False):
                head[ids[b], direction[a]] = logit
            head[tokenizer.eos_token_id, direction[chain[-1]]] = logit
        model.save_pretrained(path)
        out[name] = path
    return out
