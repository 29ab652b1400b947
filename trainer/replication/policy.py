"""The miniature replication's policy: a byte-level BPE tokenizer trained on the corpus (so prompts and
programs are short in tokens) and a Qwen2-architecture causal LM initialised from scratch, then
supervised fine-tuning with TRL's SFTTrainer on the corpus (loss on the completions only).
"""

from __future__ import annotations

import json
import math
import random
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from trainer.replication.corpus import CorpusExample

EOS = "<|endoftext|>"
FENCE_OPEN = "```python\n"


@dataclass(frozen=True)
class PolicyShape:
    """The numbers that decide the model's size (and so its speed on a CPU)."""

    vocab_size: int = 4096
    hidden_size: int = 128
    num_layers: int = 4
    num_heads: int = 4
    num_kv_heads: int = 2
    intermediate_size: int = 384
    max_positions: int = 2048
    line_tokens: bool = True
    # "templates": the composing tokenizer (`template_pieces`): program lines as templates with their
    # integer literals and identifiers as tokens of their own; "numbers": the same with only integer
    # literals as holes (identifiers stay in the templates); "lines" (line_tokens): every line a token
    tokens: str = "lines"


@dataclass(frozen=True)
class SFTSettings:
    epochs: float = 6.0
    learning_rate: float = 2e-3
    batch_size: int = 8
    warmup_ratio: float = 0.05
    seed: int = 0


def train_tokenizer(
    texts: Sequence[str],
    vocab_size: int,
    *,
    line_tokens: bool = True,
    identifiers: Sequence[str] | None = None,
):
    """Byte-level BPE trained on `texts` (every byte stays representable), with one end-of-text token,
    and with `line_tokens` every distinct line of `texts` as one token of its own: a statement's lines
    and a program's lines are then a token each (a prompt of ~50 tokens, a program of ~20), which is what
    lets SFT and GRPO run in minutes on a CPU; lines the corpus never had fall back to the BPE.

    With `identifiers` (the composing tokenizer, docs/spec.md 12.9) lines are not tokens: every
    identifier is a token of its own, every digit is one (Qwen2's pre-tokenizer isolates digits, so no
    merge makes a multi-digit token), and the text of each line between its holes (`template_pieces`)
    is a token, so a program for an unseen instance, whose lines are known templates with other numbers
    and names in their holes, is a sequence of known tokens, and a statement's parameters are the same
    digit tokens as the program's.
    transformers loads any checkpoint of model type qwen2 with its Qwen2Tokenizer, which imposes
    Qwen2's pre-tokenizer (its split pattern, then byte-level) and NFC normalisation on whatever
    tokenizer.json says; the BPE is trained under exactly those, so it tokenizes the same once loaded."""
    from tokenizers import (
        AddedToken,
        Regex,
        Tokenizer,
        decoders,
        models,
        normalizers,
        pre_tokenizers,
        trainers,
    )
    from transformers import PreTrainedTokenizerFast
    from transformers.models.qwen2.tokenization_qwen2 import PRETOKENIZE_REGEX

    tok = Tokenizer(models.BPE())
    tok.normalizer = normalizers.NFC()
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(PRETOKENIZE_REGEX), behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=[EOS],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(texts, trainer=trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token=EOS, pad_token=EOS)
    # the opening fence is a token of its own: every completion starts with it, and no merge crosses
    # the prompt/completion boundary, so a prompt tokenizes the same alone as in front of its completion;
    # then every distinct line of the corpus (matched before BPE, longest first) when asked
    if identifiers is not None:
        names = sorted(set(identifiers))
        pieces = [FENCE_OPEN, *template_pieces(texts, names)]
        fast.add_tokens([AddedToken(p, normalized=False, special=False) for p in pieces])
        # a name is a token only as a whole word: never the `i` of `if` or the `a` of `max`
        fast.add_tokens([AddedToken(n, normalized=False, special=False, single_word=True) for n in names])
        return fast
    pieces = [FENCE_OPEN, *(corpus_lines(texts) if line_tokens else ())]
    fast.add_tokens([AddedToken(p, normalized=False, special=False) for p in pieces])
    return fast


_WORD_OR_NUMBER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+")


def template_of(line: str, identifiers: Sequence[str] | frozenset[str]) -> tuple[list[str], list[str]]:
    """A line as its template: (the texts between its holes, the holes), where a hole is an integer
    literal (a run of digits) or one of `identifiers` as a whole word; `pieces[0] + holes[0] +
    pieces[1] + ...` is the line."""
    names = identifiers if isinstance(identifiers, frozenset) else frozenset(identifiers)
    pieces, holes, last = [], [], 0
    for m in _WORD_OR_NUMBER.finditer(line):
        word = m.group()
        if word[0].isdigit() or word in names:
            pieces.append(line[last : m.start()])
            holes.append(word)
            last = m.end()
    pieces.append(line[last:])
    return pieces, holes


def template_pieces(texts: Sequence[str], identifiers: Sequence[str], min_texts: int = 2) -> list[str]:
    """The template vocabulary: every non-empty text between holes (`template_of`) of every line of
    `texts` found in at least `min_texts` distinct texts (a piece only one statement has is left to the
    BPE), longest first."""
    names = frozenset(identifiers)
    counts: Counter[str] = Counter()
    for text in set(texts):
        seen: set[str] = set()
        for line in text.splitlines(keepends=True):
            seen.update(p for p in template_of(line, names)[0] if p)
        counts.update(seen)
    return sorted((p for p, c in counts.items() if c >= min_texts), key=lambda p: (-len(p), p))


def program_identifiers(examples: Sequence[CorpusExample]) -> list[str]:
    """The names the corpus's programs bind, and every name a renaming draws from (corpus.NAME_POOL):
    the identifier tokens of the composing tokenizer."""
    import ast

    from trainer.replication.corpus import NAME_POOL, bound_names

    names = set(NAME_POOL)
    for e in examples:
        code = e.completion.removeprefix(FENCE_OPEN).removesuffix("```").strip()
        try:
            names.update(bound_names(ast.parse(code)))
        except SyntaxError:
            continue
    return sorted(names)


def corpus_lines(texts: Sequence[str], min_chars: int = 4) -> list[str]:
    """Every distinct line of `texts` (with its newline) of at least `min_chars` non-blank characters,
    in first-seen order: the line-level part of the vocabulary."""
    lines: dict[str, None] = {}
    for text in texts:
        for line in text.splitlines(keepends=True):
            if len(line.strip()) >= min_chars and line.endswith("\n"):
                lines.setdefault(line)
    return list(lines)


def init_policy(
    path: Path,
    examples: Sequence[CorpusExample],
    shape: PolicyShape,
    seed: int,
    extra_texts: Sequence[str] = (),
) -> Path:
    """Tokenizer trained on the corpus (and `extra_texts`: e.g. the session arm's action turns, so its
    tags are tokens as the programs' lines are) and a from-scratch Qwen2 model, saved at `path`."""
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    # every example's prompt and completion, repeats included: frequency is what BPE merges by
    texts = [t for e in examples for t in (e.prompt, e.completion)] + list(extra_texts)
    if shape.tokens not in ("lines", "templates", "numbers"):
        raise ValueError(f"policy tokens {shape.tokens!r}: 'lines', 'templates' or 'numbers'")
    # "numbers" (docs/spec.md 12.11): templates whose only holes are integer literals
    identifiers = {"templates": program_identifiers(examples), "numbers": []}.get(shape.tokens)
    tokenizer = train_tokenizer(
        texts, shape.vocab_size, line_tokens=shape.line_tokens, identifiers=identifiers
    )
    config = Qwen2Config(
        vocab_size=len(tokenizer),
        hidden_size=shape.hidden_size,
        intermediate_size=shape.intermediate_size,
        num_hidden_layers=shape.num_layers,
        num_attention_heads=shape.num_heads,
        num_key_value_heads=shape.num_kv_heads,
        max_position_embeddings=shape.max_positions,
        tie_word_embeddings=True,
        bos_token_id=None,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.eos_token_id,
    )
    torch.manual_seed(seed)
    model = Qwen2ForCausalLM(config)
    model.generation_config.pad_token_id = tokenizer.eos_token_id
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


def token_lengths(path: Path, examples: Sequence[CorpusExample]) -> dict[str, float]:
    """Mean prompt and completion lengths in tokens (what sets the cost of every later stage)."""
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(path)
    prompts = {e.prompt for e in examples}
    return {
        "prompt_tokens": sum(len(tok(p).input_ids) for p in prompts) / max(1, len(prompts)),
        "completion_tokens": sum(len(tok(e.completion).input_ids) for e in examples) / max(1, len(examples)),
    }


def sft(
    init: Path,
    examples: Sequence[CorpusExample],
    out_dir: Path,
    settings: SFTSettings,
    callbacks=(),
    fit=None,
) -> Path:
    """TRL SFTTrainer over prompt/completion pairs (loss on the completion and its end-of-text). With
    `fit` (trainer/replication/fit.py's FitRule), the epochs are the rule's: up to `fit.max_epochs`,
    stopping at the first check whose parse share on the training prompts reaches the target; the
    checks are written to final/fit.json."""
    from datasets import Dataset
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import SFTConfig, SFTTrainer

    tokenizer = AutoTokenizer.from_pretrained(init)
    rows = [{"prompt": e.prompt, "completion": e.completion + EOS} for e in examples]
    dataset = Dataset.from_list(rows).shuffle(seed=settings.seed)
    steps_per_epoch = math.ceil(len(rows) / settings.batch_size)
    epochs = fit.max_epochs if fit is not None else settings.epochs
    checks: list[dict] = []
    callbacks = list(callbacks)
    if fit is not None:
        from trainer.replication.fit import fit_callback

        prompts = sorted({e.prompt for e in examples})  # the training prompts, each once
        callbacks.append(fit_callback(tokenizer, prompts, fit, settings.seed, checks.append))
    args = SFTConfig(
        output_dir=str(out_dir / "trainer"),
        num_train_epochs=epochs,
        per_device_train_batch_size=settings.batch_size,
        learning_rate=settings.learning_rate,
        lr_scheduler_type="cosine",
        warmup_steps=max(1, int(settings.warmup_ratio * steps_per_epoch * epochs)),
        weight_decay=0.0,
        logging_steps=max(1, steps_per_epoch // 2),
        save_strategy="no",
        report_to=[],
        seed=settings.seed,
        use_cpu=True,
        # TRL turns on bf16 autocast and activation checkpointing by default; on a CPU without bf16
        # units the first makes every matmul several times slower, and the second only costs time
        bf16=False,
        gradient_checkpointing=False,
        completion_only_loss=True,
        max_length=None,
        dataloader_num_workers=0,
        disable_tqdm=False,
    )
    trainer = SFTTrainer(
        model=AutoModelForCausalLM.from_pretrained(init),
        args=args,
        train_dataset=dataset,
        processing_class=tokenizer,
        callbacks=callbacks,
    )
    trainer.train()
    final = out_dir / "final"
    trainer.save_model(str(final))
    tokenizer.save_pretrained(final)
    (final / "log_history.json").write_text(json.dumps(trainer.state.log_history, indent=1))
    if fit is not None:
        from trainer.replication.fit import fit_decision

        decision = fit_decision([c["parse_share"] for c in checks], fit)
        (final / "fit.json").write_text(
            json.dumps(
                {"rule": fit.__dict__, "checks": checks, **decision, "epoch": trainer.state.epoch}, indent=1
            )
        )
    return final


# -- SFT examples of the repair shape, from the corpus ----------------------------------------------
def repair_examples(
    examples: Sequence[CorpusExample], client, settings, seed: int = 0
) -> list[CorpusExample]:
    """The repair arm's warm-up (a tiny from-scratch policy has never seen a feedback turn): for every
    failing program of the corpus (slow, wrong, crash, mutant kinds), judged with feedback by `client`
    (a JudgeClient) under `settings` (trainer.repair.RepairSettings), an example whose prompt is its
    problem's prompt, the program and the judge's feedback, and whose completion is one of the
    problem's efficient programs. Programs that pass are skipped."""
    from services.evaluator.repair import feedback_of
    from services.problems.prompts import repair_context
    from trainer.repair import LANGUAGE, passed

    efficient: dict[str, list[str]] = defaultdict(list)
    for e in examples:
        if e.kind == "efficient":
            efficient[e.problem_id].append(e.completion)
    bad = [e for e in examples if e.kind != "efficient" and efficient.get(e.problem_id)]
    if not bad:
        return []
    results = client.judge(
        [
            {"id": str(i), "problem_id": e.problem_id, "language": LANGUAGE, "completion": e.completion}
            for i, e in enumerate(bad)
        ],
        ks=settings.ks(),
        feedback=True,
    )
    rng = random.Random(seed)
    out = []
    for e, r in zip(bad, results, strict=True):
        if r.status != "ok" or passed(r, settings.key):
            continue
        feedback = feedback_of(r, settings.max_feedback_chars)
        prompt = repair_context(e.prompt, [(e.completion, feedback)], end_of_text=EOS)
        out.append(
            CorpusExample(
                e.problem_id, "repair", f"{e.source}+feedback", prompt, rng.choice(efficient[e.problem_id])
            )
        )
    return out
