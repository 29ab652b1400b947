"""The SFT training-fit rule (docs/spec.md 12.10): SFT runs until the policy's samples on the TRAINING
prompts parse (the judge's extractor finds a program and it compiles) in at least `parse_share` of
cases, checked every `check_every` epochs, and stops at `max_epochs` whatever the share. The rule reads
the training set only: no held-out problem, tier or evaluation takes part in it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class FitRule:
    parse_share: float = 0.9
    check_every: float = 4.0
    max_epochs: float = 40.0
    samples: int = 2  # per training prompt, at each check
    temperature: float = 0.8
    max_tokens: int = 160


def check_epochs(check_every: float, max_epochs: float) -> list[float]:
    """The epochs after which the share is measured: every `check_every`, and the cap itself."""
    n = math.floor(max_epochs / check_every + 1e-9)
    epochs = [round(check_every * i, 6) for i in range(1, n + 1)]
    if not epochs or epochs[-1] < max_epochs - 1e-6:
        epochs.append(float(max_epochs))
    return epochs


def fit_decision(shares: Sequence[float], rule: FitRule) -> dict:
    """`shares`: the parse share measured at each check so far, in order. Returns `{"stop": bool,
    "reached": bool, "epochs": epochs trained when it stops (or so far)}`: stop at the first check
    whose share is at least the target, or at the cap."""
    epochs = check_epochs(rule.check_every, rule.max_epochs)
    for i, share in enumerate(shares[: len(epochs)]):
        if share >= rule.parse_share:
            return {"stop": True, "reached": True, "epochs": epochs[i]}
    done = min(len(shares), len(epochs))
    at_cap = done == len(epochs)
    return {"stop": at_cap, "reached": False, "epochs": epochs[done - 1] if done else 0.0}


def parses(completion: str) -> bool:
    """The judge's extractor finds a python program in the completion and it compiles."""
    from services.judge.core.extract import extract_code

    code = extract_code(completion, "python")
    if code is None or not code.strip():
        return False
    try:
        compile(code, "<sample>", "exec")
    except (SyntaxError, ValueError):
        return False
    return True


def parse_share(model, tokenizer, prompts: Sequence[str], rule: FitRule, seed: int) -> float:
    """Samples `rule.samples` completions per prompt (at the rule's temperature, left-padded batches)
    and returns the share that parse."""
    import torch

    was_training = model.training
    model.eval()
    side = tokenizer.padding_side
    tokenizer.padding_side = "left"
    ok = total = 0
    try:
        torch.manual_seed(seed)
        for start in range(0, len(prompts), 16):
            batch = list(prompts[start : start + 16])
            enc = tokenizer(batch, return_tensors="pt", padding=True).to(model.device)
            with torch.inference_mode():
                out = model.generate(
                    **enc,
                    do_sample=True,
                    temperature=rule.temperature,
                    top_k=0,
                    num_return_sequences=rule.samples,
                    max_new_tokens=rule.max_tokens,
                    pad_token_id=tokenizer.eos_token_id,
                )
            texts = tokenizer.batch_decode(out[:, enc["input_ids"].shape[1] :], skip_special_tokens=True)
            ok += sum(parses(t) for t in texts)
            total += len(texts)
    finally:
        tokenizer.padding_side = side
        if was_training:
            model.train()
    return ok / total if total else 0.0


def fit_callback(tokenizer, prompts: Sequence[str], rule: FitRule, seed: int, log):
    """A transformers TrainerCallback applying the rule: at each check epoch, the parse share on the
    training prompts; training stops at the first share at least the target (or at the cap).
    `log(entry)` receives `{"epoch", "parse_share"}` per check."""
    from transformers import TrainerCallback

    epochs = check_epochs(rule.check_every, rule.max_epochs)

    class _Fit(TrainerCallback):
        def __init__(self):
            self.shares: list[float] = []

        def on_epoch_end(self, args, state, control, model=None, **kwargs):
            if len(self.shares) >= len(epochs) or state.epoch + 1e-6 < epochs[len(self.shares)]:
                return control
            share = parse_share(model, tokenizer, prompts, rule, seed + len(self.shares))
            self.shares.append(share)
            log({"epoch": round(state.epoch, 3), "parse_share": share})
            if fit_decision(self.shares, rule)["stop"]:
                control.should_training_stop = True
            return control

    return _Fit()
