"""`make demo`: the stack's main job end to end on a CPU, offline: the judge comes up, the bundled problems
are registered, the solution zoo is judged, a checkpoint pair is swept over alphas and the report and
plots are written.

The checkpoints are real ones where MODEL_LOW and MODEL_HIGH name them; otherwise two tiny Qwen2-shaped
checkpoints made here from random weights with a byte-level tokenizer. Those are a PIPELINE CHECK: they
write noise, so nearly every sample is a format error; the point is that every stage runs.

This module also makes the small checkpoints the evaluator's tests and benchmark use: random ones, and
"planted" ones whose weights are set by hand so that sampling writes one given program token by token.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from services.stack import LocalStack, free_port  # noqa: F401 - the tests and benchmarks import them here

ROOT = Path(__file__).resolve().parent.parent
BUNDLED = ROOT / "problems" / "bundled"
EOS = "<|endoftext|>"

DEMO_ALPHAS = (-0.5, 0.0, 0.5, 1.0, 1.5)
DEMO_PROBLEMS = ("prefix_range_sums", "bracket_depth", "best_average_window")
DEMO_N_SAMPLES = 4
DEMO_MAX_TOKENS = 32


# -- tiny checkpoints -------------------------------------------------------------------------------
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


# -- the demo ---------------------------------------------------------------------------------------
def _ready_problems(console) -> list[Path]:
    """Bundled problems with tests on disk, building those whose tests are missing or stale."""
    from services.judge import bundled

    dirs = bundled.problem_dirs(BUNDLED)
    stale = [d for d in dirs if not bundled.is_up_to_date(d)]
    if stale:
        console.print(f"building the tests of {len(stale)} bundled problems ...")
        for r in bundled.build_all(BUNDLED, progress=False, index=False):
            if r.error:
                console.print(
                    f"[yellow]skipped[/yellow] {r.problem_id}: its tests do not build ({r.error.splitlines()[0]})"
                )
    return [d for d in dirs if any((d / "tests").glob("*.in"))]


def _bring_up(console, log_dir: Path) -> LocalStack:
    """The stack: what already answers is used; otherwise scripts/up.sh (`make up`) is run where it
    exists, and whatever still does not answer is started here as child processes."""
    from services.settings import get_settings

    settings = get_settings()
    probe = LocalStack(log_dir, services=())
    missing = [s for s in ("judge", "evaluator") if not probe.healthy(s)]
    script = ROOT / "scripts" / "up.sh"
    if missing and script.is_file():
        console.print(f"running {script.relative_to(ROOT)} (`make up`; `make down` stops what it starts) ...")
        subprocess.run(["bash", str(script)], cwd=ROOT, check=True)
        missing = [s for s in missing if not probe.healthy(s)]
    for s in ("judge", "evaluator"):
        if s not in missing:
            console.print(f"{s}: answering at {getattr(probe, s + '_url')}")
    stack = LocalStack(log_dir, judge_slots=settings.slots, services=missing)
    if missing:
        console.print(f"starting {' and '.join(missing)} (API + worker each) here; logs in {log_dir}")
        stack.start()
    return stack


def _judge_zoo(console, judge, dirs: list[Path]) -> bool:
    from rich.table import Table

    from services.judge.bundled import load_zoo
    from services.judge.models import Submission
    from services.judge.zoo import ZooRow

    variants = [v for d in dirs if (d / "zoo" / "zoo.json").is_file() for v in load_zoo(d)]
    subs = [
        Submission(id=f"{v.problem_id}/{v.file}", problem_id=v.problem_id, language=v.language, code=v.code)
        for v in variants
    ]
    start = time.monotonic()
    results = judge.judge(subs)
    rows = [ZooRow(v, r) for v, r in zip(variants, results, strict=True)]
    # one row per problem, one column per label: the first failing verdict (AC: every test passed)
    labels = list(dict.fromkeys(r.variant.label for r in rows))
    table = Table(
        title=f"solution zoo: {len(rows)} variants of {len(dirs)} problems, {time.monotonic() - start:.0f} s"
    )
    table.add_column("problem")
    for label in labels:
        table.add_column(label, justify="center")
    cells: dict[str, dict[str, str]] = {}
    for r in rows:
        verdict = r.first_verdict or ("AC" if r.result.status == "ok" else "judge error")
        cell = f"[green]{verdict}[/green]" if r.as_expected else f"[red]{verdict}![/red]"
        cells.setdefault(r.variant.problem_id, {})[r.variant.label] = cell
    for problem, by_label in cells.items():
        table.add_row(problem, *(by_label.get(label, "") for label in labels))
    console.print(table)
    console.print(
        "cells: the first failing test's verdict (AC: every test passed); green as the zoo labels it, "
        "[red]red![/red] otherwise"
    )
    for r in rows:
        if not r.as_expected:
            exp = r.variant.expected_first_verdict
            console.print(
                f"[red]mismatch[/red] {r.variant.problem_id}/{r.variant.file}: judged "
                f"{r.result.outcome.value if r.result.outcome else r.result.status} / {r.first_verdict or '-'}, "
                f"labelled {r.variant.expected_outcome.value} / {exp.value if exp else '-'}"
            )
    bad = sum(not r.as_expected for r in rows)
    console.print(f"{len(rows) - bad}/{len(rows)} variants judged as their labels say")
    return bad == 0


def _outcome_table(console, state: dict, title: str) -> None:
    from rich.table import Table

    report = state["report"]
    table = Table(title=title)
    for col in (
        "checkpoint",
        "alpha",
        "judged",
        "correct",
        "optimization failure",
        "correctness failure",
        "format error",
    ):
        table.add_column(col, justify="left" if col == "checkpoint" else "right")
    for ck in report["checkpoints"]:
        fr = report["outcome_fractions"][ck["name"]]["overall"]
        f = fr["fractions"]
        table.add_row(
            ck["label"],
            "-" if ck["alpha"] is None else f"{ck['alpha']:g}",
            str(fr["judged"]),
            *(
                f"{100 * f[o]:.0f}%"
                for o in ("correct", "optimization_failure", "correctness_failure", "format_error")
            ),
        )
    console.print(table)


def _sweep(console, evaluator_url: str, body: dict) -> dict:
    from services.evaluator.cli import submit_and_follow

    shutil.rmtree(body["run_dir"], ignore_errors=True)  # a fresh run, not a resumed one
    state = submit_and_follow(evaluator_url, "/sweep", body)
    if state["status"] != "finished":
        raise RuntimeError(f"the sweep job {state['status']}: {state.get('error')}")
    return state


def main() -> int:
    from rich.console import Console
    from rich.panel import Panel
    from transformers.utils import logging as hf_logging

    from services.judge.client import JudgeClient

    hf_logging.disable_progress_bar()
    console = Console()
    out = ROOT / "runs" / "demo"
    start = time.monotonic()
    console.rule("[bold]codefrontier demo")

    console.rule("1. the bundled problems")
    dirs = _ready_problems(console)
    console.print(f"{len(dirs)} bundled problems with tests")

    console.rule("2. the stack")
    stack = _bring_up(console, out / "logs")
    judge_url, evaluator_url = stack.judge_url, stack.evaluator_url
    try:
        with JudgeClient(judge_url) as judge:
            console.rule("3. problems registered with the judge")
            for d in dirs:
                judge.put_problem_dir(d)
            console.print(f"{len(judge.problems())} problems on the judge (PUT /problems/{{id}}, idempotent)")

            console.rule("4. the solution zoo, judged through the judge service")
            zoo_ok = _judge_zoo(console, judge, dirs)

        console.rule("5. an alpha sweep, evaluated through the evaluator service")
        low, high = os.environ.get("MODEL_LOW"), os.environ.get("MODEL_HIGH")
        real = bool(low and high)
        names = {d.name for d in dirs}
        problems = [p for p in DEMO_PROBLEMS if p in names] or sorted(names)[:4]
        if real:
            console.print(f"checkpoints: MODEL_LOW={low}, MODEL_HIGH={high}")
            n, max_tokens = (
                int(os.environ.get("DEMO_N_SAMPLES", 4)),
                int(os.environ.get("DEMO_MAX_TOKENS", 1024)),
            )
        else:
            low = str(make_tiny_checkpoint(out / "checkpoints" / "tiny_low", seed=1))
            high = str(make_tiny_checkpoint(out / "checkpoints" / "tiny_high", seed=2))
            n, max_tokens = (
                int(os.environ.get("DEMO_N_SAMPLES", DEMO_N_SAMPLES)),
                int(os.environ.get("DEMO_MAX_TOKENS", DEMO_MAX_TOKENS)),
            )
            console.print(
                Panel(
                    "PIPELINE CHECK, not a result: MODEL_LOW/MODEL_HIGH are not set, so the sweep runs over two "
                    "tiny Qwen2-shaped checkpoints made here from random weights (a byte-level tokenizer, a few "
                    "hundred thousand weights). They write noise: expect nearly every sample to be a format "
                    "error. What this shows is that every stage runs: in-place alpha loading, generation, the "
                    "judge, outcome classes, pass@k, the report and its plots. Set MODEL_LOW and MODEL_HIGH to "
                    "two checkpoint directories of one architecture for a real sweep.",
                    title="tiny random checkpoints",
                    style="yellow",
                )
            )
        body = {
            "low": low,
            "high": high,
            "alphas": list(DEMO_ALPHAS),
            "mode": "in_place",
            "benchmark": "bundled",
            "problems": problems,
            "n_samples": n,
            "temperature": 0.8,
            "max_tokens": max_tokens,
            "run_dir": str(out / "sweep"),
        }
        console.print(
            f"alphas {list(DEMO_ALPHAS)} on {', '.join(problems)}, {n} samples each, {max_tokens} tokens"
        )
        state = _sweep(console, evaluator_url, body)
        _outcome_table(console, state, "outcome fractions per alpha" + ("" if real else " (pipeline check)"))
        reports = [("sweep", state)]

        if not real and "prefix_range_sums" in names and os.environ.get("DEMO_PLANTED", "1") != "0":
            console.rule("6. a planted sweep: hand-set weights that write known programs")
            planted = make_planted_checkpoints(
                out / "checkpoints" / "planted",
                {
                    "quadratic": (BUNDLED / "prefix_range_sums" / "zoo" / "naive.py").read_text(),
                    "linear": (BUNDLED / "prefix_range_sums" / "ref.py").read_text(),
                },
            )
            console.print(
                Panel(
                    "SYNTHETIC, not a result: two checkpoints whose weights are set by hand so that sampling "
                    "writes one fixed program whatever the prompt: theta_low a quadratic solution of "
                    "prefix_range_sums (too slow on its large tests), theta_high the linear one. Sweeping alpha "
                    "shows the live model really changing between alphas, and the report's frontier moving "
                    "from optimization failures to correct programs.",
                    title="planted checkpoints",
                    style="yellow",
                )
            )
            planted_state = _sweep(
                console,
                evaluator_url,
                {
                    **body,
                    "low": str(planted["quadratic"]),
                    "high": str(planted["linear"]),
                    "problems": ["prefix_range_sums"],
                    "max_tokens": 64,
                    "run_dir": str(out / "planted_sweep"),
                },
            )
            _outcome_table(console, planted_state, "outcome fractions per alpha (planted, synthetic)")
            reports.append(("planted sweep", planted_state))
    finally:
        stack.close()

    console.rule("the reports")
    for name, st in reports:
        console.print(f"[bold]{name}[/bold]: {st['report_md']}")
        for plot in st["plots"].values():
            console.print(f"  {plot}")
    note = "" if zoo_ok else "; some zoo variants were not judged as labelled (see above)"
    console.print(f"demo finished in {time.monotonic() - start:.0f} s{note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
