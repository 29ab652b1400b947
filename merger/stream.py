"""One streaming pass over the inputs that writes every output of a sweep.

Theory of operation. The plan (checkpoint.py) fixes every output tensor's name, shape and dtype
before any data is read, so each output shard's safetensors header is written when the shard is
opened. Then, input shard by input shard, tensor by tensor, in slices of `CHUNK_ELEMS` elements:
the main thread reads the slice of the base and of each model (once, whatever the number of
outputs), computes every output's slice (merge.merge_sweep_into) into one of `SLOTS` sets of output
buffers, and hands that set to the writer threads (`WRITER_THREADS` lanes, each owning some of the
outputs, so every file is appended in order), while it reads and computes the next slice into the
next set. Peak memory is a few slices, not a tensor and never a model. Content hashes of the inputs
are taken by one more thread, reading the files through the page cache beside the merge.

Each output is written into a hidden sibling directory `.NAME.partial-TOKEN` and renamed to NAME
only once complete (files fsynced), so a crash leaves no directory that looks like a checkpoint.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import time
import uuid
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import torch

from merger.checkpoint import (
    CONFIG_FILE,
    INDEX_FILE,
    MERGE_CONFIG_FILE,
    Checkpoint,
    MergePlan,
    TensorPlan,
    torch_dtype_name,
)
from merger.merge import MergeError, may_be_nonfinite, merge_sweep_into
from merger.safetensors_io import DTYPES, ShardWriter, read_into

CHUNK_ELEMS = 1 << 20  # elements per slice: float32 work buffers of 4 MiB stay cache-friendly
SLOTS = 3  # sets of output buffers: one being computed, the others being written
WRITER_THREADS = 2  # writing is a memcpy into the page cache: two threads keep up with one computing
MERGE_CONFIG_FORMAT = 1
# files of the base's directory that are not copied into outputs: weights in any format
_WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".msgpack", ".h5", ".ckpt", ".gguf")
_HEX64 = re.compile(r"^[0-9a-f]{64}$")


@dataclass
class Output:
    """One checkpoint to write: model i gets weights[i] in theta = base + sum_i w_i (theta_i - base)."""

    path: Path
    weights: list[float]
    record: dict  # what merge_config.json says about this output's recipe (alpha, or weights)


@dataclass
class Progress:
    tensors_done: int
    tensors_total: int
    bytes_done: int  # input tensor bytes read so far
    bytes_total: int
    outputs_done: int
    outputs_total: int


@dataclass
class OutputResult:
    path: Path
    record: dict
    warnings: list[dict] = field(default_factory=list)  # [{"tensor", "nan", "inf"}]


@dataclass
class MergeResult:
    outputs: list[OutputResult]
    bytes_read: int
    bytes_written: int
    seconds: float
    notes: list[str]


def check_outputs(plan: MergePlan, outputs: list[Output], overwrite: bool) -> None:
    """Refuse outputs that exist (unless overwrite), repeat, or would replace an input."""
    inputs = [c.path for c in (plan.base, *plan.models)]
    seen: set[Path] = set()
    for out in outputs:
        path = out.path.resolve()
        if path in seen:
            raise MergeError(f"output {path} is asked for twice")
        seen.add(path)
        for src in inputs:
            if path == src or path in src.parents or src in path.parents:
                raise MergeError(f"output {path} overlaps the input checkpoint {src}")
        if path.exists() and not overwrite:
            raise MergeError(f"output {path} already exists (ask for overwrite to replace it)")
        if path.exists() and not path.is_dir():
            raise MergeError(f"output {path} exists and is not a directory")


def run_merge(
    plan: MergePlan,
    outputs: list[Output],
    *,
    overwrite: bool = False,
    fsync: bool = True,
    token: str | None = None,
    progress: Callable[[Progress], None] | None = None,
    method: str = "task_arithmetic",
    extra_record: dict | None = None,
) -> MergeResult:
    """Write every output in one pass over the inputs. `token` names the partial directories."""
    check_outputs(plan, outputs, overwrite)
    t0 = time.perf_counter()
    token = token or uuid.uuid4().hex[:12]
    temps = [o.path.parent / f".{o.path.name}.partial-{token}" for o in outputs]
    hasher = ThreadPoolExecutor(max_workers=1, thread_name_prefix="merge-hash")
    try:
        for tmp in temps:
            if tmp.exists():  # left by an earlier, killed attempt of the same job
                shutil.rmtree(tmp)
            tmp.mkdir(parents=True)
        hashes = {
            p: hasher.submit(_content_hash, p) for c in (plan.base, *plan.models) for p in c.files_read()
        }
        warnings, bytes_read, bytes_written = _stream(plan, outputs, temps, fsync, progress)
        inputs = _input_records(plan, hashes)
        results = []
        for out, tmp, warn in zip(outputs, temps, warnings, strict=True):
            _finish_directory(plan, out, tmp, warn, inputs, method, extra_record or {})
            if fsync:  # the shards were fsynced as they were closed; now the small files
                for f in tmp.iterdir():
                    if not f.name.endswith(".safetensors"):
                        _fsync_path(f)
            results.append(OutputResult(out.path, out.record, warn))
        for out, tmp in zip(outputs, temps, strict=True):
            _publish(tmp, out.path, overwrite, token, fsync)
        if progress:
            n = len(plan.tensors)
            total = sum(_input_bytes(t) for t in plan.tensors)
            progress(Progress(n, n, total, total, len(outputs), len(outputs)))
        return MergeResult(results, bytes_read, bytes_written, time.perf_counter() - t0, plan.notes)
    finally:
        hasher.shutdown(wait=True, cancel_futures=True)
        for tmp in temps:
            shutil.rmtree(tmp, ignore_errors=True)


def _stream(plan, outputs, temps, fsync, progress):
    """The pass itself. Returns per-output NaN/Inf warnings, input bytes read, output bytes written."""
    n_models = len(plan.models)
    recipes = [o.weights for o in outputs]
    tensors = plan.tensors
    bytes_total = sum(_input_bytes(t) for t in tensors)
    out_itemsize = max(DTYPES[t.out_dtype].itemsize for t in tensors)
    in_itemsize = max(e.torch_dtype.itemsize for t in tensors for e in (t.base, *(t.models or ())))
    in_bufs = [torch.empty(CHUNK_ELEMS * in_itemsize, dtype=torch.uint8) for _ in range(1 + n_models)]
    out_bufs = [
        [torch.empty(CHUNK_ELEMS * out_itemsize, dtype=torch.uint8) for _ in outputs] for _ in range(SLOTS)
    ]
    work = torch.empty((n_models + 2, CHUNK_ELEMS), dtype=torch.float32)
    pending: list[list[Future]] = [[] for _ in range(SLOTS)]
    warnings: list[dict[str, dict]] = [{} for _ in outputs]
    fds: dict[Path, int] = {}
    # each lane is one thread that owns some of the outputs, so each file is written in order
    n_lanes = max(1, min(len(outputs), WRITER_THREADS))
    lanes = [list(range(i, len(outputs), n_lanes)) for i in range(n_lanes)]
    writers = [ThreadPoolExecutor(max_workers=1, thread_name_prefix="merge-write") for _ in lanes]
    # finished shards are fsynced here, so that no lane waits on the disk before its next shard
    syncer = ThreadPoolExecutor(max_workers=n_lanes, thread_name_prefix="merge-fsync")
    closes: list[Future] = []
    shard_writers: list[ShardWriter] = []
    bytes_read = 0
    done_tensors = 0
    chunk_no = 0
    # One compute thread: the writers and the kernel's writeback need the other cores, and an
    # OpenMP team waiting on a core busy writing stalls every op (measured: 6x slower on 2 cores).
    torch_threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        for shard in plan.shards:
            layout = [(t.name, t.out_dtype, t.shape) for t in shard.tensors]
            shard_writers = [ShardWriter(tmp / shard.file, layout, shard.metadata) for tmp in temps]
            for t in shard.tensors:
                inputs = (t.base, *(t.models or ()))
                for e in inputs:
                    if e.path not in fds:
                        fds[e.path] = os.open(e.path, os.O_RDONLY)
                out_dtype = DTYPES[t.out_dtype]
                for first in range(0, max(t.numel, 1), CHUNK_ELEMS):
                    count = min(CHUNK_ELEMS, t.numel - first)
                    views = [
                        read_into(fds[e.path], e, first, count, b)
                        for e, b in zip(inputs, in_bufs, strict=False)
                    ]
                    bytes_read += sum(v.numel() * v.element_size() for v in views)
                    slot = chunk_no % SLOTS
                    chunk_no += 1
                    for f in pending[slot]:
                        f.result()
                    outs = [b[: count * out_dtype.itemsize].view(out_dtype) for b in out_bufs[slot]]
                    _compute(t, views, recipes, outs, work, warnings)
                    raw = [o.view(torch.uint8) for o in outs]
                    pending[slot] = [
                        w.submit(_write_all, [shard_writers[i] for i in lane], [raw[i] for i in lane])
                        for w, lane in zip(writers, lanes, strict=True)
                    ]
                done_tensors += 1
                if progress:
                    progress(Progress(done_tensors, len(tensors), bytes_read, bytes_total, 0, len(outputs)))
            closing, shard_writers = shard_writers, []
            for w, lane in zip(writers, lanes, strict=True):  # after the lane's last write of the shard
                closes.append(w.submit(syncer.submit, _close_all, [closing[i] for i in lane], fsync))
        for slot in pending:
            for f in slot:
                f.result()
        for f in closes:
            f.result().result()
    finally:
        torch.set_num_threads(torch_threads)
        for w in writers:
            w.shutdown(wait=True)
        syncer.shutdown(wait=True)
        for w in shard_writers:
            w.abort()
        for fd in fds.values():
            os.close(fd)
    bytes_written = sum(w.stat().st_size for tmp in temps for w in tmp.iterdir())
    per_output = [[{"tensor": k, **v} for k, v in w.items()] for w in warnings]
    return per_output, bytes_read, bytes_written


def _input_bytes(t: TensorPlan) -> int:
    return sum(e.nbytes for e in (t.base, *(t.models or ())))


def _compute(t: TensorPlan, views, recipes, outs, work, warnings) -> None:
    if t.models is None:  # non-float: copied from the base, never averaged
        for out in outs:
            out.copy_(views[0])
        return
    base, models = views[0], views[1:]
    bounds = merge_sweep_into(base, models, recipes, outs, work)
    for r, (bound, out) in enumerate(zip(bounds, outs, strict=True)):
        if may_be_nonfinite(bound, out.dtype):
            nan, inf = int(torch.isnan(out).sum()), int(torch.isinf(out).sum())
            if nan or inf:
                w = warnings[r].setdefault(t.name, {"nan": 0, "inf": 0})
                w["nan"] += nan
                w["inf"] += inf


def _write_all(writers: list[ShardWriter], chunks: list[torch.Tensor]) -> None:
    for w, c in zip(writers, chunks, strict=True):
        w.write(c)


def _close_all(writers: list[ShardWriter], fsync: bool) -> None:
    for w in writers:
        w.close(fsync)


# ---- what goes around the weights: index, config, tokenizer, merge_config.json ----


def _finish_directory(plan, out: Output, tmp: Path, warnings, inputs, method, extra_record) -> None:
    base = plan.base
    for src in base.path.iterdir():
        if src.is_file() and not src.name.startswith(".") and not _is_weights_file(src.name):
            if src.name not in (INDEX_FILE, MERGE_CONFIG_FILE):
                shutil.copyfile(src, tmp / src.name)
    if plan.dtype:
        _set_config_dtype(tmp / CONFIG_FILE, plan.dtype)
    if base.sharded:
        weight_map = {t.name: s.file for s in plan.shards for t in s.tensors}
        total = sum(DTYPES[t.out_dtype].itemsize * t.numel for t in plan.tensors)
        index = {"metadata": {"total_size": total}, "weight_map": dict(sorted(weight_map.items()))}
        (tmp / INDEX_FILE).write_text(json.dumps(index, indent=2) + "\n")
    out_dtypes = sorted({torch_dtype_name(t.out_dtype) for t in plan.tensors if t.models is not None})
    record = {
        "merger": "codefrontier",
        "version": _version(),
        "format": MERGE_CONFIG_FORMAT,
        "method": method,
        "formula": "theta = base + sum_i w_i (theta_i - base)",
        **extra_record,
        **out.record,
        "base": inputs[0],
        "models": [{**rec, "weight": w} for rec, w in zip(inputs[1:], out.weights, strict=True)],
        "dtype": plan.dtype or (out_dtypes[0] if len(out_dtypes) == 1 else out_dtypes),
        "warnings": warnings,
        "notes": plan.notes,
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    (tmp / MERGE_CONFIG_FILE).write_text(json.dumps(record, indent=2) + "\n")


def _set_config_dtype(path: Path, dtype: str) -> None:
    if not path.is_file():
        return
    config = json.loads(path.read_text())
    keys = [k for k in ("dtype", "torch_dtype") if k in config] or ["dtype"]
    for k in keys:
        config[k] = dtype
    path.write_text(json.dumps(config, indent=2) + "\n")


def _publish(tmp: Path, final: Path, overwrite: bool, token: str, fsync: bool) -> None:
    """Move a complete output into place; an existing one is replaced only with overwrite."""
    if fsync:
        _fsync_path(tmp)
    old = None
    if final.exists():
        if not overwrite:
            raise MergeError(f"output {final} appeared while merging; refusing to replace it")
        old = final.parent / f".{final.name}.old-{token}"
        os.rename(final, old)
    os.rename(tmp, final)
    if fsync:
        _fsync_path(final.parent)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _fsync_path(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _is_weights_file(name: str) -> bool:
    return name.endswith(_WEIGHT_SUFFIXES) or name.endswith(".index.json")


def _content_hash(path: Path) -> str:
    """sha256 of a file; for a hub snapshot, the blob's own name already is it."""
    if path.is_symlink():
        blob = path.resolve().name
        if _HEX64.match(blob):
            return f"sha256:{blob}"
    with open(path, "rb") as f:
        return f"sha256:{hashlib.file_digest(f, 'sha256').hexdigest()}"


def _input_records(plan: MergePlan, hashes: dict[Path, Future]) -> list[dict]:
    def record(c: Checkpoint) -> dict:
        return {
            "source": c.source,
            "path": str(c.path),
            "from_hub": c.from_hub,
            "files": {p.name: hashes[p].result() for p in c.files_read()},
        }

    return [record(c) for c in (plan.base, *plan.models)]


def _version() -> str:
    """The installed package's version, or the checkout's pyproject.toml when run from a source tree."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("codefrontier")
    except PackageNotFoundError:
        import tomllib

        pyproject = Path(__file__).resolve().parents[1] / "pyproject.toml"
        try:
            return tomllib.loads(pyproject.read_text())["project"]["version"]
        except (OSError, KeyError, tomllib.TOMLDecodeError):
            return "0+unknown"
