"""Benchmark of the merger: a 9-alpha sweep of a ~1 GB bf16 checkpoint pair, side by side with
(a) mergekit's linear merge run once per alpha and (b) the raw I/O floor: read the inputs once and
write the same number of output bytes, cat-style (one thread, 8 MiB blocks), fsynced at the end.

    .venv/bin/python bench/merge_bench.py [--workdir DIR] [--layers 8] [--mergekit-venv /tmp/mergekit-venv]

mergekit is never a dependency of the project: it is looked for in its own virtual environment
(created beforehand with `python -m venv /tmp/mergekit-venv` and, in that venv, the CPU torch
2.13.0 first, then mergekit), and skipped with a message if absent. Each variant runs in its own
process, started after `sync` with the inputs warm in the page cache; its peak RSS is the child's
ru_maxrss. The floor and the merger run --repeat times, alternated, and the best run of each counts
(a shared machine's disk is noisy); mergekit's 9 runs are summed once. Outputs are deleted after
each run, so the disk needs room for one sweep (about 10 GB).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ALPHAS = [-1.0, -0.5, -0.25, 0.25, 0.5, 0.75, 1.25, 1.5, 2.0]  # no endpoint: nothing is a plain copy
HIDDEN, INTERMEDIATE, VOCAB, HEADS = 2048, 5632, 32000, 16
SHARD_BYTES = 256 << 20
FLOOR, OURS = "I/O floor (read 1x, write 9x)", "codefrontier merger (1 pass)"
MERGEKIT = f"mergekit linear ({len(ALPHAS)} runs)"


# ---- the checkpoints: Llama layout, random bf16 weights, written with safetensors directly ----


def _tensor_shapes(layers: int) -> list[tuple[str, tuple[int, ...]]]:
    shapes = [("model.embed_tokens.weight", (VOCAB, HIDDEN))]
    for i in range(layers):
        p = f"model.layers.{i}."
        shapes += [
            (p + "input_layernorm.weight", (HIDDEN,)),
            (p + "self_attn.q_proj.weight", (HIDDEN, HIDDEN)),
            (p + "self_attn.k_proj.weight", (HIDDEN, HIDDEN)),
            (p + "self_attn.v_proj.weight", (HIDDEN, HIDDEN)),
            (p + "self_attn.o_proj.weight", (HIDDEN, HIDDEN)),
            (p + "post_attention_layernorm.weight", (HIDDEN,)),
            (p + "mlp.gate_proj.weight", (INTERMEDIATE, HIDDEN)),
            (p + "mlp.up_proj.weight", (INTERMEDIATE, HIDDEN)),
            (p + "mlp.down_proj.weight", (HIDDEN, INTERMEDIATE)),
        ]
    return shapes + [("model.norm.weight", (HIDDEN,)), ("lm_head.weight", (VOCAB, HIDDEN))]


def make_checkpoint(path: Path, layers: int, seed: int) -> None:
    """Run in a child process: the parent stays small, since a child's ru_maxrss starts at its parent's."""
    import torch
    from safetensors.torch import save_file

    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    gen = torch.Generator().manual_seed(seed)
    shards: list[dict[str, torch.Tensor]] = [{}]
    size = 0
    for name, shape in _tensor_shapes(layers):
        t = (torch.randn(shape, generator=gen) * 0.02).to(torch.bfloat16)
        if size and size + t.nbytes > SHARD_BYTES:
            shards.append({})
            size = 0
        shards[-1][name] = t
        size += t.nbytes
    weight_map, total = {}, 0
    for i, tensors in enumerate(shards):
        file = f"model-{i + 1:05d}-of-{len(shards):05d}.safetensors"
        save_file(tensors, path / file, metadata={"format": "pt"})
        weight_map.update(dict.fromkeys(tensors, file))
        total += sum(t.nbytes for t in tensors.values())
    index = {"metadata": {"total_size": total}, "weight_map": weight_map}
    (path / "model.safetensors.index.json").write_text(json.dumps(index, indent=2))
    config = {
        "architectures": ["LlamaForCausalLM"],
        "model_type": "llama",
        "hidden_size": HIDDEN,
        "intermediate_size": INTERMEDIATE,
        "num_hidden_layers": layers,
        "num_attention_heads": HEADS,
        "num_key_value_heads": HEADS,
        "vocab_size": VOCAB,
        "max_position_embeddings": 4096,
        "rms_norm_eps": 1e-5,
        "tie_word_embeddings": False,
        "dtype": "bfloat16",
    }
    (path / "config.json").write_text(json.dumps(config, indent=2))
    (path / ".complete").touch()


def _ensure_checkpoint(path: Path, layers: int, seed: int) -> None:
    if (
        not (path / ".complete").exists()
        or json.loads((path / "config.json").read_text())["num_hidden_layers"] != layers
    ):
        cmd = [sys.executable, __file__, "--make-checkpoint", str(path), str(layers), str(seed)]
        subprocess.run(cmd, check=True)


def _weights_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.glob("*.safetensors"))


# ---- the variants, each run as a child process ----

_OURS = """
import sys
from merger import merge_alphas
merge_alphas(sys.argv[1], sys.argv[2], [float(a) for a in sys.argv[3].split(",")], sys.argv[4])
"""

_FLOOR = """
import os, sys
from pathlib import Path
low, high, n, out = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]), Path(sys.argv[4])
buf = bytearray(8 << 20)
mv = memoryview(buf)
dirs = [out / f"out{i}" for i in range(n)]
for d in dirs:
    d.mkdir(parents=True)
written = []
for shard in sorted(low.glob("*.safetensors")):
    with open(high / shard.name, "rb", buffering=0) as f:  # the second input, read once
        while f.readinto(buf):
            pass
    outs = [open(d / shard.name, "wb", buffering=0) for d in dirs]
    with open(shard, "rb", buffering=0) as f:  # the first input, read once and written n times
        while k := f.readinto(buf):
            for o in outs:
                o.write(mv[:k])
    written += outs
for o in written:  # as durable as the merger's outputs, with all of writeback's freedom until here
    os.fsync(o.fileno())
    o.close()
"""

_MERGEKIT_CONFIG = """merge_method: linear
parameters:
  normalize: false
dtype: bfloat16
models:
  - model: {low}
    parameters:
      weight: {w_low}
  - model: {high}
    parameters:
      weight: {w_high}
"""


def _run(cmd: list[str], env: dict | None = None) -> tuple[float, int]:
    """Wall seconds and peak RSS in bytes of one child process."""
    with tempfile.TemporaryFile() as err:  # a file, not a pipe: a chatty child never blocks on it
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        if os.waitstatus_to_exitcode(status) != 0:
            err.seek(0)
            raise RuntimeError(f"{cmd[:3]} failed:\n{err.read().decode(errors='replace')[-3000:]}")
    return wall, usage.ru_maxrss * 1024


def _settle(low: Path, high: Path) -> None:
    """Same start for every variant: dirty pages written back, inputs (only) warm in the page cache."""
    subprocess.run(["sync"], check=True)
    try:
        Path("/proc/sys/vm/drop_caches").write_text("3\n")
    except OSError:
        pass  # not permitted here: the inputs are warm anyway, the outputs were deleted
    for p in (*low.glob("*.safetensors"), *high.glob("*.safetensors")):
        with open(p, "rb", buffering=0) as f:
            while f.read(8 << 20):
                pass


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/merge-bench"))
    ap.add_argument("--layers", type=int, default=8, help="8 layers: about 1.1 GB per checkpoint in bf16")
    ap.add_argument("--mergekit-venv", type=Path, default=Path("/tmp/mergekit-venv"))
    ap.add_argument("--skip-mergekit", action="store_true")
    ap.add_argument("--repeat", type=int, default=3, help="runs of the floor and the merger (best counts)")
    args = ap.parse_args()

    work: Path = args.workdir
    low, high, out = work / "low", work / "high", work / "out"
    t0 = time.perf_counter()
    _ensure_checkpoint(low, args.layers, seed=1)
    _ensure_checkpoint(high, args.layers, seed=2)
    ckpt_bytes = _weights_bytes(low)
    n = len(ALPHAS)
    print(
        f"checkpoints: 2 x {ckpt_bytes / 1e9:.2f} GB bf16, {len(list(low.glob('*.safetensors')))} shards "
        f"each (ready in {time.perf_counter() - t0:.0f} s); sweep of {n} alphas {ALPHAS}"
    )
    print(
        f"free disk under {work}: {shutil.disk_usage(work).free / 1e9:.0f} GB; needs about "
        f"{n * ckpt_bytes / 1e9:.0f} GB for one variant's outputs"
    )
    out_bytes = n * ckpt_bytes
    rows: dict[str, tuple[float, int]] = {}
    py = sys.executable
    env = {**os.environ, "PYTHONPATH": str(REPO)}

    def variant(name: str, fn) -> tuple[float, int]:
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir(parents=True)
        _settle(low, high)
        wall, rss = fn()
        print(
            f"  {name:<30} {wall:7.1f} s   peak RSS {rss / 2**20:6.0f} MiB   {out_bytes / wall / 1e9:5.2f} GB/s out"
        )
        shutil.rmtree(out, ignore_errors=True)
        return wall, rss

    alphas = ",".join(repr(a) for a in ALPHAS)
    floor_cmd = [py, "-c", _FLOOR, str(low), str(high), str(n), str(out)]
    ours_cmd = [py, "-c", _OURS, str(low), str(high), alphas, str(out)]
    runs: dict[str, list[tuple[float, int]]] = {FLOOR: [], OURS: []}
    for _ in range(args.repeat):  # alternated, so that a slow spell of the disk hits both alike
        runs[FLOOR].append(variant(FLOOR, lambda: _run(floor_cmd)))
        runs[OURS].append(variant(OURS, lambda: _run(ours_cmd, env)))
    for name, got in runs.items():
        rows[name] = min(got)
        print(f"  {name:<30} best of {len(got)}: {rows[name][0]:.1f} s, {rows[name][1] / 2**20:.0f} MiB")

    mergekit = args.mergekit_venv / "bin" / "mergekit-yaml"
    if args.skip_mergekit:
        print("  mergekit: skipped (--skip-mergekit)")
    elif not mergekit.exists():
        print(f"  mergekit: not found at {mergekit}; create that venv (see this file's docstring) to compare")
    else:

        def run_mergekit() -> tuple[float, int]:
            wall, peak = 0.0, 0
            for a in ALPHAS:
                cfg = out / f"mergekit-{a}.yml"
                cfg.write_text(_MERGEKIT_CONFIG.format(low=low, high=high, w_low=1 - a, w_high=a))
                w, r = _run([str(mergekit), str(cfg), str(out / f"alpha_{a}")])
                wall, peak = wall + w, max(peak, r)
                shutil.rmtree(out / f"alpha_{a}")  # disk: one output at a time
            return wall, peak

        rows[MERGEKIT] = variant(MERGEKIT, run_mergekit)

    ours_wall, ours_rss = rows[OURS]
    floor_wall, _ = rows[FLOOR]
    print("ratios:")
    print(f"  merger time / I/O floor time:   {ours_wall / floor_wall:5.2f}x   (target <= 1.5x)")
    if MERGEKIT in rows:
        mk_wall, mk_rss = rows[MERGEKIT]
        print(f"  mergekit time / merger time:    {mk_wall / ours_wall:5.2f}x   (target >= 3x)")
        print(f"  merger RSS / mergekit RSS:      {ours_rss / mk_rss:5.2f}    (target <= 0.25)")
    print(f"(this process: peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB)")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--make-checkpoint"]:
        make_checkpoint(Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
    else:
        main()
