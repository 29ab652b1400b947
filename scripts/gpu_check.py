"""The GPU path end to end, as one run (scripts/gpu_check.sh is the entry point: it checks for a GPU and
installs the `gpu` extra first). Steps, each timed and printed:

  1. two small Qwen2-architecture checkpoints built here (services/testing/checkpoints.py: no hub)
  2. a judge (the one at FRONTIER_JUDGE_URL, else an API and a worker started here, with a Redis of
     their own when none answers at FRONTIER_REDIS_URL)
  3. the evaluator on the vLLM backend: one checkpoint on bundled problems through the judge; tokens/s
     of the generation measured on its own
  4. an in-place alpha sweep: theta_a = a*high + (1-a)*low swapped into the one live engine for each
     alpha (InPlaceSweep), the swap time per alpha and a generation after each, then the evaluator's own
     in-place sweep through the judge
  5. two GRPO steps (TRL) with vLLM generation (colocated), rewarded by the judge
  6. the paper's setting (configs/replicate_gpu.toml) end to end at the smallest size: fixtures of both
     formats imported (CodeContests+ to train on, LiveCodeBench to measure on, through the config's
     release window and its hard subset by difficulty), the split checked, `replicate` with the small
     checkpoint as the base model (GRPO lax and strict, the merger, the evaluator on the held-out set,
     the report), and summary.json's split and hard problems checked

`--dry-run` runs the same steps on the CPU with the transformers backend and TRL's own generation, on
smaller checkpoints: what the test suite runs where no GPU is (tests/e2e/test_deploy.py). Exit 0 when every
step ran; the figures go to stdout and, as JSON, to RUN_DIR/gpu_check.json.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PROBLEMS = ["bracket_depth", "echo_phrase"]
ALPHAS = [0.0, 0.5, 1.0, 1.5]
GPU_CONFIG = ROOT / "configs" / "replicate_gpu.toml"
FIXTURES = {  # (format, fixture file, the config's benchmark directory name under the run dir)
    "train": ("codecontests-plus", ROOT / "tests" / "fixtures" / "ccplus_testlib.jsonl"),
    "eval": ("livecodebench", ROOT / "tests" / "fixtures" / "benchmarks" / "livecodebench.jsonl"),
}


def say(msg: str) -> None:
    print(f"gpu-check: {msg}", flush=True)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _redis_answers(url: str) -> bool:
    import redis

    try:
        return bool(redis.Redis.from_url(url, socket_connect_timeout=1).ping())
    except redis.RedisError:
        return False


class Judge:
    """The judge to use: one that answers at FRONTIER_JUDGE_URL, or one started here (and stopped after)."""

    def __init__(self, work: Path):
        from services.stack import LocalStack

        self.redis: subprocess.Popen | None = None
        self.stack = None
        url = os.environ.get("FRONTIER_JUDGE_URL")
        redis_url = os.environ.get("FRONTIER_REDIS_URL", "redis://127.0.0.1:6379/0")
        self.redis_url = redis_url
        if url and LocalStack(work / "logs", services=()).healthy("judge"):
            self.url = url
            say(f"judge: using {url}")
            return
        if not _redis_answers(redis_url):
            if shutil.which("redis-server") is None:
                sys.exit(
                    "gpu-check: no Redis answers at FRONTIER_REDIS_URL and redis-server is not installed"
                )
            port = _free_port()
            redis_url = f"redis://127.0.0.1:{port}/0"
            self.redis = subprocess.Popen(
                [
                    "redis-server",
                    "--port",
                    str(port),
                    "--bind",
                    "127.0.0.1",
                    "--save",
                    "",
                    "--appendonly",
                    "no",
                ],
                stdout=subprocess.DEVNULL,
            )
            for _ in range(100):
                if _redis_answers(redis_url):
                    break
                time.sleep(0.05)
        self.redis_url = redis_url
        port = _free_port()
        self.url = f"http://127.0.0.1:{port}"
        env = {
            "FRONTIER_REDIS_URL": redis_url,
            "FRONTIER_JUDGE_PORT": str(port),
            "FRONTIER_JUDGE_URL": self.url,
            "FRONTIER_STATE_DIR": str(work / "judge-state"),
        }
        self.stack = LocalStack(work / "logs", env, services=("judge",), judge_slots=2)
        self.stack.start_api("judge")
        self.stack.start_worker("judge")
        self.stack.wait_workers("judge", 1, timeout_s=120, fail_fast=True)
        os.environ["FRONTIER_JUDGE_URL"] = self.url
        say(f"judge: started here at {self.url} (Redis {redis_url})")

    def close(self) -> None:
        if self.stack is not None:
            self.stack.close()
        if self.redis is not None:
            self.redis.terminate()
            self.redis.wait(10)


def step(figures: dict, name: str):
    """A context that times one step into figures[name]['seconds']."""

    class _Step:
        def __enter__(self):
            say(f"== {name}")
            self.t0 = time.monotonic()
            figures[name] = {}
            return figures[name]

        def __exit__(self, *exc):
            figures[name]["seconds"] = round(time.monotonic() - self.t0, 2)
            if exc[0] is None:
                say(f"   {name}: {figures[name]['seconds']} s")
            return False

    return _Step()


def _import_fixture(fmt: str, path: Path, out_dir: Path) -> list[str]:
    """The fixture's records as problem directories in `out_dir` (what `frontier problems import`
    writes); their ids."""
    import tempfile

    from services.problems import importers
    from services.problems.store import TestStore

    out_dir.mkdir(parents=True, exist_ok=True)
    ids = []
    with tempfile.TemporaryDirectory(dir=out_dir.parent) as tmp:
        store = TestStore(Path(tmp))
        records = importers.iter_records(path)
        if fmt == "livecodebench":
            problems = importers.load_livecodebench(records, store)
        else:
            problems = importers.load_codecontests_plus(records, store)
        for problem in problems:
            importers.write_problem_dir(problem, store, out_dir / problem.id)
            ids.append(problem.id)
    return ids


def _paper_setting(work: Path, base: Path, judge: Judge, dry: bool, max_tokens: int) -> dict:
    """configs/replicate_gpu.toml at the smallest size, on the fixtures, through `replicate`: its
    summary, after checking its split (disjoint; the LCB window's problems, and only those, measured)."""
    import tomllib

    from services.settings import get_settings
    from services.stack import free_port
    from trainer.replication.config import ReplicateConfig
    from trainer.replication.replicate import problem_split, replicate

    data = tomllib.loads(GPU_CONFIG.read_text())
    imported = {}
    for side, (fmt, path) in FIXTURES.items():
        directory = work / "data" / Path(data[side]["benchmark"]).name
        imported[side] = _import_fixture(fmt, path, directory)
        data[side]["benchmark"] = str(directory)
    data["name"] = "paper_setting"
    data["policy"]["base_model"] = str(base)
    data["grpo"].update(
        steps=2, num_generations=2, prompts_per_step=1, max_completion_length=max_tokens, use_vllm=not dry
    )
    data["sweep"].update(
        alphas=[0.0, 1.0] if dry else data["sweep"]["alphas"][::3],
        n_samples=2 if dry else 8,
        max_tokens=max_tokens,
        backend="transformers" if dry else "vllm",
        dtype=None if dry else data["sweep"]["dtype"],
    )
    config = ReplicateConfig.model_validate(data)
    split = problem_split(config)
    # the merger and the evaluator started here beside the judge, on the judge's Redis, reading and
    # writing under the run directory, on queues of their own
    env = {"FRONTIER_REDIS_URL": judge.redis_url, "FRONTIER_DATA_ROOTS": str(work)}
    for service, queue in (("merger", "MERGER_QUEUE"), ("evaluator", "EVAL_QUEUE")):
        port = free_port()
        env[f"FRONTIER_{service.upper()}_PORT"] = str(port)
        env[f"FRONTIER_{service.upper()}_URL"] = f"http://127.0.0.1:{port}"
        env[f"FRONTIER_{queue}"] = f"{service}-gpu-check-{os.getpid()}"
    os.environ.update(env)
    get_settings.cache_clear()
    summary = replicate(config, work / "runs")
    got = summary["split"]
    if (
        got["train"] != split.train_ids
        or got["eval"] != split.eval_ids
        or set(got["train"]) & set(got["eval"])
    ):
        sys.exit(f"gpu-check: summary.json's split is not the config's: {got}")
    if set(got["train"]) != set(imported["train"]) or not set(got["eval"]) < set(imported["eval"]):
        sys.exit(f"gpu-check: the split {got} is not CodeContests+ against a LiveCodeBench window")
    return {"summary": summary, "imported": imported}


def _tokens(tokenizer, texts) -> int:
    return sum(len(tokenizer(t, add_special_tokens=False)["input_ids"]) for t in texts)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dry-run", action="store_true", help="the same steps on CPU, transformers, no vLLM")
    parser.add_argument("--run-dir", type=Path, default=ROOT / "runs" / "gpu_check")
    parser.add_argument("--max-tokens", type=int, default=None)
    args = parser.parse_args()
    dry = args.dry_run
    backend = "transformers" if dry else "vllm"
    max_tokens = args.max_tokens or (8 if dry else 256)
    # samples per measurement: enough for a figure on a GPU; the dry run only checks the wiring
    n_eval, n_gen, n_swap = (1, 2, 1) if dry else (4, 16, 8)
    # vLLM's attention kernels want a head size of 64 or more: hidden 256 over 4 heads
    hidden, layers = (64, 2) if dry else (256, 4)
    work = args.run_dir
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    os.environ.setdefault("TQDM_DISABLE", "1")
    figures: dict = {"backend": backend, "dry_run": dry}

    if not dry:
        import torch

        if not torch.cuda.is_available():
            sys.exit("gpu-check: torch sees no CUDA device; this check needs a GPU (or --dry-run)")
        figures["gpu"] = torch.cuda.get_device_name(0)
        from services.evaluator.generate import vllm_unavailable

        why = vllm_unavailable()
        if why:
            sys.exit(f"gpu-check: {why}")

    from services.evaluator.config import EvalConfig
    from services.evaluator.generate import SampleRequest, Sampling, load_generator
    from services.evaluator.pipeline import evaluate, resolve_benchmark, sweep_checkpoints
    from services.evaluator.sweep import InPlaceSweep
    from services.judge.client import JudgeClient
    from services.testing.checkpoints import make_tiny_checkpoint

    with step(figures, "checkpoints") as f:
        low = make_tiny_checkpoint(work / "ckpt" / "low", seed=1, hidden=hidden, layers=layers)
        high = make_tiny_checkpoint(work / "ckpt" / "high", seed=2, hidden=hidden, layers=layers)
        f.update(hidden=hidden, layers=layers, architecture="Qwen2ForCausalLM")

    judge = Judge(work)
    try:
        client = JudgeClient(judge.url, timeout_s=600)
        config = EvalConfig(
            benchmark="bundled",
            problems=PROBLEMS,
            n_samples=n_eval,
            max_tokens=max_tokens,
            backend=backend,
            seed=0,
        )
        sampling = Sampling(temperature=0.8, max_tokens=max_tokens)
        prompt_of = {p.problem_id: p.prompt for p in resolve_benchmark("bundled", PROBLEMS)}

        with step(figures, "evaluator") as f:
            result = evaluate([str(low)], config, work / "eval", judge=client, show_progress=False)
            f.update(
                judged=result.judged, judge_errors=result.judge_errors, generate_s=round(result.generate_s, 2)
            )
            if result.judged != len(PROBLEMS) * config.n_samples or result.judge_errors:
                sys.exit(
                    f"gpu-check: the evaluator judged {result.judged} samples, {result.judge_errors} errors"
                )

        with step(figures, "generation") as f:
            generator = load_generator(str(low), backend)
            prompt = generator.prompt(prompt_of[PROBLEMS[0]])
            generator.sample([SampleRequest(prompt, 2, 0)], Sampling(temperature=0.8, max_tokens=8))  # warm
            t0 = time.monotonic()
            texts = generator.sample([SampleRequest(prompt, n_gen, 1)], sampling)[0]
            seconds = time.monotonic() - t0
            tokens = _tokens(generator.tokenizer, texts)
            f.update(tokens=tokens, tokens_per_s=round(tokens / max(seconds, 1e-9), 1))
            say(
                f"   generation: {tokens} tokens in {seconds:.2f} s = {f['tokens_per_s']} tokens/s ({backend})"
            )

        with step(figures, "alpha_swap") as f:
            sweep = InPlaceSweep(generator, str(low), str(high))
            per_alpha = {}
            try:
                for alpha in ALPHAS:
                    t0 = time.monotonic()
                    sweep.load_alpha(alpha)
                    swap_s = time.monotonic() - t0
                    t0 = time.monotonic()
                    out = generator.sample([SampleRequest(prompt, n_swap, 2)], sampling)[0]
                    gen_s = time.monotonic() - t0
                    tps = _tokens(generator.tokenizer, out) / max(gen_s, 1e-9)
                    per_alpha[str(alpha)] = {"swap_s": round(swap_s, 4), "tokens_per_s": round(tps, 1)}
                    say(f"   alpha {alpha:+.2f}: swap {swap_s * 1000:.1f} ms, then {tps:.1f} tokens/s")
            finally:
                sweep.close()
                generator.close()
            f["per_alpha"] = per_alpha

        with step(figures, "evaluator_sweep") as f:
            swept = evaluate(
                sweep_checkpoints(ALPHAS[:2]),
                config,
                work / "sweep",
                sweep=(str(low), str(high)),
                judge=client,
                show_progress=False,
            )
            f.update(judged=swept.judged, judge_errors=swept.judge_errors)
            if swept.judged != 2 * len(PROBLEMS) * n_eval or swept.judge_errors:
                sys.exit(
                    f"gpu-check: the in-place sweep judged {swept.judged} samples, {swept.judge_errors} errors"
                )

        with step(figures, "grpo") as f:
            from trainer.train import train

            final = train(
                str(low),
                [ROOT / "problems" / "bundled"],
                work / "grpo",
                k="inf",
                max_steps=2,
                num_generations=2,
                max_completion_length=max_tokens,
                judge_url=judge.url,
                problem_ids=PROBLEMS,
                use_vllm=not dry,
            )
            f.update(steps=2, use_vllm=not dry, final=str(final))
            if not any(Path(final).glob("*.safetensors")):
                sys.exit(f"gpu-check: GRPO wrote no checkpoint into {final}")

        with step(figures, "paper_setting") as f:
            out = _paper_setting(work, low, judge, dry, max_tokens)
            summary = out["summary"]
            hard = summary["ensemble"].get("hard") or {}
            f.update(
                split=summary["split"],
                imported=out["imported"],
                hard_problems=hard.get("hard_problems"),
                hard_basis=hard.get("basis"),
                judged={row["name"]: row["judged"] for row in summary["sweep"]},
            )
            say(f"   split: train {summary['split']['train']}, eval {summary['split']['eval']}")
    finally:
        judge.close()

    (work / "gpu_check.json").write_text(json.dumps(figures, indent=2))
    say(
        f"OK ({'dry run: CPU, transformers, no vLLM' if dry else figures.get('gpu')}); figures in {work / 'gpu_check.json'}"
    )
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
