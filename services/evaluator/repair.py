"""Repair evaluation: first attempts as the eval samples them, then, for each failed one, up to
`turns - 1` repair attempts, each prompted with the earlier attempts and the judge's feedback on them
(docs/spec.md section 11.1). Per checkpoint: first-attempt pass@1, the repair rate (failed first
attempts fixed within the turns), pass@1 after repair, with bootstrap intervals over problems
(`metrics.repair_summary`).

The first attempts are drawn exactly as `pipeline.evaluate` draws them (the same requests and seeds),
so a checkpoint's first attempts here are its eval samples. Every attempt is judged with
`feedback: true` in `first_failure` mode; an attempt is correct when its outcome is `correct`.

Writes RUN_DIR/repair.jsonl (one line per sample: every attempt's completion, outcome and feedback)
and RUN_DIR/repair.json (the summaries by checkpoint).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from tqdm import tqdm

from services.evaluator.generate import Generator, SampleRequest, Sampling, load_generator, request_seed
from services.evaluator.inputs import EvalError, checkpoints_from_paths, register_problems, resolve_benchmark
from services.evaluator.metrics import RepairChain, repair_summary
from services.evaluator.records import REPAIR_SAMPLES_FILE, REPAIR_SUMMARY_FILE
from services.judge.client import JudgeClient, JudgeResult
from services.problems.prompts import repair_context

LANGUAGE = "python"


def feedback_of(result: JudgeResult, max_chars: int = 1024) -> str:
    """The next user turn for a failed attempt: the judge's `feedback_text`, cut to `max_chars`; a
    judge that sent none (an older server) gives the outcome and the first failing verdict."""
    text = result.feedback_text
    if not text:
        failure = result.first_failure
        text = f"The program failed ({result.outcome}" + (
            f": {failure.verdict} on a test of {failure.input_bytes} bytes)." if failure else ")."
        )
    return text if len(text) <= max_chars else text[: max_chars - 3] + "..."


def _outcome(result: JudgeResult) -> str:
    return result.outcome.value if result.status == "ok" and result.outcome else "judge_error"


def evaluate_repair(
    checkpoints: Sequence[str],
    benchmark: str,
    n_samples: int,
    turns: int,
    temperature: float,
    max_tokens: int,
    run_dir: Path | str,
    *,
    problems: Sequence[str] | None = None,
    seed: int = 0,
    batch_size: int = 8,
    backend: str = "auto",
    judge: JudgeClient | None = None,
    resamples: int = 1000,
    show_progress: bool = True,
    top_p: float = 1.0,
) -> dict[str, dict]:
    """Repair-evaluate each checkpoint (a directory) on the benchmark; returns checkpoint name ->
    `repair_summary`, also written to RUN_DIR/repair.json."""
    if turns < 1 or n_samples < 1:
        raise EvalError("turns and n_samples must be at least 1")
    run_dir = Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    cks = checkpoints_from_paths(list(checkpoints))
    chosen = resolve_benchmark(benchmark, problems)
    own = judge is None
    judge = judge or JudgeClient()
    summaries: dict[str, dict] = {}
    sampling = Sampling(temperature=temperature, max_tokens=max_tokens, top_p=top_p)
    samples_path = run_dir / REPAIR_SAMPLES_FILE
    samples_path.write_text("")
    try:
        register_problems(judge, {p.problem_id: p.path for p in chosen})
        for ck in tqdm(cks, desc="repair eval", unit="checkpoint", disable=not show_progress):
            generator = load_generator(ck.path, backend)
            try:
                lines = _repair_one(generator, chosen, n_samples, turns, sampling, batch_size, seed, judge)
            finally:
                generator.close()
            with samples_path.open("a") as f:
                for line in lines:
                    f.write(json.dumps({"checkpoint": ck.name, **line}) + "\n")
            chains = [
                RepairChain(x["problem_id"], x["sample_index"], tuple(a["outcome"] for a in x["attempts"]))
                for x in lines
                if all(a["outcome"] != "judge_error" for a in x["attempts"])
            ]
            summaries[ck.name] = {
                "checkpoint": ck.path,
                **repair_summary(chains, turns, resamples=resamples, seed=seed),
                "judge_errors": len(lines) - len(chains),
            }
    finally:
        if own:
            judge.close()
    (run_dir / REPAIR_SUMMARY_FILE).write_text(json.dumps(summaries, indent=1))
    return summaries


def _repair_one(
    generator: Generator, chosen, n_samples, turns, sampling, batch_size, seed, judge: JudgeClient
) -> list[dict]:
    prompts = {p.problem_id: generator.prompt(p.prompt) for p in chosen}
    # first attempts: the eval's own requests (pipeline._plan), so they are the eval's samples
    samples: list[dict] = []
    for p in chosen:
        for first in range(0, n_samples, batch_size):
            count = min(batch_size, n_samples - first)
            request = SampleRequest(prompts[p.problem_id], count, request_seed(seed, p.problem_id, first))
            for j, text in enumerate(generator.sample([request], sampling)[0]):
                samples.append({"problem_id": p.problem_id, "sample_index": first + j, "attempts": []})
                samples[-1]["attempts"].append({"completion": text})
    open_ = samples
    for turn in range(1, turns + 1):
        if turn > 1:
            contexts = [
                repair_context(
                    prompts[s["problem_id"]],
                    [(a["completion"], a["feedback"]) for a in s["attempts"]],
                    generator.tokenizer,
                )
                for s in open_
            ]
            texts = _sample_each(generator, contexts, sampling, request_seed(seed, "repair", turn))
            for s, text in zip(open_, texts, strict=True):
                s["attempts"].append({"completion": text})
        results = judge.judge(
            [
                {
                    "id": f"{s['problem_id']}/{s['sample_index']}",
                    "problem_id": s["problem_id"],
                    "language": LANGUAGE,
                    "completion": s["attempts"][-1]["completion"],
                }
                for s in open_
            ],
            feedback=True,
        )
        still = []
        for s, r in zip(open_, results, strict=True):
            attempt = s["attempts"][-1]
            attempt.update(outcome=_outcome(r), rewards=r.rewards)
            if attempt["outcome"] not in ("correct", "judge_error"):
                attempt["feedback"] = feedback_of(r)
                still.append(s)
        open_ = still
        if not open_:
            break
    return samples


def _sample_each(generator: Generator, contexts: list[str], sampling: Sampling, seed: int) -> list[str]:
    """One completion per context: vLLM takes them all at once; transformers in left-padded batches."""
    if generator.backend != "transformers":
        requests = [SampleRequest(c, 1, seed + i) for i, c in enumerate(contexts)]
        return [texts[0] for texts in generator.sample(requests, sampling)]
    import torch

    tok, model = generator.tokenizer, generator.model
    pad = tok.pad_token_id if tok.pad_token_id is not None else tok.eos_token_id
    templated = bool(getattr(tok, "chat_template", None))
    out: list[str] = []
    torch.manual_seed(seed)
    for start in range(0, len(contexts), 16):
        encoded = [tok(c, add_special_tokens=not templated).input_ids for c in contexts[start : start + 16]]
        width = max(len(e) for e in encoded)
        ids = torch.tensor([[pad] * (width - len(e)) + e for e in encoded], device=generator.device)
        mask = torch.tensor([[0] * (width - len(e)) + [1] * len(e) for e in encoded], device=generator.device)
        greedy = sampling.temperature <= 0
        kwargs = (
            {"do_sample": False}
            if greedy
            else {"do_sample": True, "temperature": sampling.temperature, "top_p": sampling.top_p, "top_k": 0}
        )
        with torch.inference_mode():
            gen = model.generate(
                input_ids=ids,
                attention_mask=mask,
                max_new_tokens=sampling.max_tokens,
                pad_token_id=pad,
                **kwargs,
            )
        out += tok.batch_decode(gen[:, width:], skip_special_tokens=True)
    return out
