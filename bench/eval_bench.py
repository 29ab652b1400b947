"""The evaluator's overlap of generation and judging, measured: one evaluation run twice, once with samples
streamed to the judge as they are generated and once strictly in sequence (generate everything, then
judge everything), side by side.

    python bench/eval_bench.py [--n-samples 4] [--threads 1] [--slots 1] [--rounds 1]

It starts its own judge (API and one worker, `--slots` sandbox slots) as child processes on the
configured Redis under names of its own. Generation runs here on `--threads` torch threads, so with the
defaults one core generates while the other judges. Two tiny checkpoints (services.testing.checkpoints): a planted one,
whose weights are set by hand to write a real program, so that the judge has real tests to run (the
linear solution of prefix_range_sums: correct there, wrong on the other problems), and a random one,
which writes `--max-tokens` tokens of noise: generation work for the judge to overlap with. Each
sample is its own generation request and its own judge batch (batch size 1), so no two samples are
deduplicated by the judge.

The stages are timed from the sequential run: generation = time spent loading the model and generating,
judging = first submission to last result. The runs are compared on their generate-and-judge phase
(first model load to last result); uploading the problems to the judge comes before it and is the same
in both. Target: overlapped <= max(stages) + 10%.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

PROBLEMS = ["prefix_range_sums", "best_average_window", "pair_sum_count", "bracket_depth", "window_maximums"]


def _run_rounds(
    args, tmp: Path, env: dict, checkpoints: list[str], problems: list[str], total: int, best: dict
) -> None:
    from services.evaluator.config import EvalConfig
    from services.evaluator.pipeline import evaluate
    from services.judge.client import JudgeClient
    from services.stack import LocalStack

    config = EvalConfig(
        n_samples=args.n_samples, temperature=0.8, max_tokens=args.max_tokens, problems=problems, batch_size=1
    )

    with LocalStack(tmp / "logs", env, judge_slots=args.slots, services=("judge",)) as stack:
        with JudgeClient(stack.judge_url) as judge:
            for round_ in range(args.rounds):
                for mode, overlap in (("sequential", False), ("overlapped", True)):
                    start = time.monotonic()
                    result = evaluate(
                        checkpoints,
                        config,
                        tmp / f"run-{mode}-{round_}",
                        judge=judge,
                        overlap=overlap,
                        show_progress=False,
                        build=False,
                    )
                    wall = time.monotonic() - start
                    assert result.judged == total, result
                    row = {
                        "wall": wall,
                        "phase": result.phase_s,
                        "generate": result.generate_s,
                        "judge": result.judge_s,
                    }
                    print(
                        f"  round {round_ + 1} {mode:>10}: {wall:6.1f} s in all, "
                        f"{result.phase_s:6.1f} s generating and judging "
                        f"(of which generating {result.generate_s:.1f} s, judging {result.judge_s:.1f} s)"
                    )
                    if mode not in best or result.phase_s < best[mode]["phase"]:
                        best[mode] = row


def _clean_up(tmp: Path, prefix: str) -> None:
    """The bench's run directories and its keys in Redis (test data and batches under its own prefix)."""
    import redis

    from services.settings import get_settings

    shutil.rmtree(tmp, ignore_errors=True)
    conn = redis.Redis.from_url(get_settings().redis_url)
    keys = list(conn.scan_iter(match=f"{prefix}:*", count=1000))
    for i in range(0, len(keys), 1000):
        conn.delete(*keys[i : i + 1000])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n-samples", type=int, default=8)
    ap.add_argument("--max-tokens", type=int, default=64)
    ap.add_argument("--threads", type=int, default=1, help="torch threads for generation")
    ap.add_argument("--slots", type=int, default=1, help="sandbox slots of the judge worker")
    ap.add_argument("--rounds", type=int, default=2, help="runs of each mode; the fastest of each is kept")
    ap.add_argument("--problems", nargs="*", default=PROBLEMS)
    args = ap.parse_args()

    import torch
    from transformers.utils import logging as hf_logging

    from services.problems.discovery import BUNDLED_DIR as BUNDLED
    from services.stack import free_port
    from services.testing.checkpoints import make_planted_checkpoints, make_tiny_checkpoint

    torch.set_num_threads(args.threads)
    hf_logging.disable_progress_bar()
    problems = [p for p in args.problems if any((BUNDLED / p / "tests").glob("*.in"))]
    tmp = Path(tempfile.mkdtemp(prefix="eval-bench-"))
    port = free_port()
    env = {
        "FRONTIER_STATE_DIR": str(tmp / "state"),
        "FRONTIER_JUDGE_PORT": str(port),
        "FRONTIER_JUDGE_URL": f"http://127.0.0.1:{port}",
        "FRONTIER_REDIS_PREFIX": f"evalbench{os.getpid()}",
        "FRONTIER_JUDGE_QUEUE": f"judge-evalbench{os.getpid()}",
    }
    planted = make_planted_checkpoints(
        tmp / "ckpt", {"linear": (BUNDLED / "prefix_range_sums" / "ref.py").read_text()}
    )["linear"]
    noise = make_tiny_checkpoint(tmp / "ckpt" / "random", seed=1)
    checkpoints = [str(planted), str(noise)]
    total = len(checkpoints) * args.n_samples * len(problems)
    print(
        f"workload: 2 checkpoints (planted, random) x {len(problems)} problems x {args.n_samples} samples = "
        f"{total} samples, up to {args.max_tokens} tokens each; generation on {args.threads} torch "
        f"thread(s), a judge worker with {args.slots} slot(s)"
    )
    best: dict[str, dict] = {}
    try:
        _run_rounds(args, tmp, env, checkpoints, problems, total, best)
    finally:
        _clean_up(tmp, env["FRONTIER_REDIS_PREFIX"])
    seq, ovl = best["sequential"], best["overlapped"]
    gen_s, judge_s = seq["generate"], seq["judge"]
    slower = max(gen_s, judge_s)
    ratio = ovl["phase"] / slower
    print()
    print(f"{'':<36}{'generate+judge':>15}{'whole run':>11}")
    print(f"{'generation alone':<36}{gen_s:>14.1f}s")
    print(f"{'judging alone':<36}{judge_s:>14.1f}s")
    print(f"{'sequential: generate, then judge':<36}{seq['phase']:>14.1f}s{seq['wall']:>10.1f}s")
    print(f"{'overlapped: judged as generated':<36}{ovl['phase']:>14.1f}s{ovl['wall']:>10.1f}s")
    print("(whole run: also uploading the problems to the judge)")
    print()
    print(f"overlapped / sequential     = {ovl['phase'] / seq['phase']:.2f}")
    verdict = "met" if ratio <= 1.10 else "NOT met"
    print(f"overlapped / slower stage   = {ratio:.2f}   (target <= 1.10: {verdict})")
    print(
        f"while overlapped, generation took {ovl['generate']:.1f} s (alone {gen_s:.1f} s): the stages share "
        f"{os.cpu_count()} cores, and the machine's load average was {os.getloadavg()[0]:.1f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
