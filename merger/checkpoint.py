"""Hugging Face checkpoint directories: reading, checking one against another, and planning a merge.

A checkpoint is a directory with `config.json` and either `model.safetensors` or shards listed in
`model.safetensors.index.json`. Sources may be local directories or hub ids (downloaded when the
machine is online). Everything here reads only headers and configs, never tensor data.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from merger.merge import MERGEABLE_DTYPES, MergeError
from merger.safetensors_io import CODES, DTYPES, SafetensorsFormatError, TensorEntry, read_header

SINGLE_FILE = "model.safetensors"
INDEX_FILE = "model.safetensors.index.json"
CONFIG_FILE = "config.json"
MERGE_CONFIG_FILE = "merge_config.json"
# config.json fields that must agree for a tensor-by-tensor average to mean anything
ARCHITECTURE_FIELDS = (
    "model_type",
    "architectures",
    "vocab_size",
    "hidden_size",
    "intermediate_size",
    "num_hidden_layers",
    "num_attention_heads",
    "num_key_value_heads",
    "head_dim",
)
# names of the input embedding that a tied output embedding (lm_head) shares
_INPUT_EMBEDDING_SUFFIXES = ("embed_tokens.weight", "wte.weight", "word_embeddings.weight", "embed_in.weight")
_OUTPUT_EMBEDDING = "lm_head.weight"
_HUB_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*(/[A-Za-z0-9][A-Za-z0-9_.\-]*)?$")
# what a hub download fetches: weights, configs, tokenizer files
_HUB_PATTERNS = ["*.safetensors", "*.json", "*.txt", "*.model", "*.tiktoken", "*.jinja", "*.py", "*.md"]
DTYPE_NAMES = {"bfloat16": "BF16", "float16": "F16", "float32": "F32"}


@dataclass
class Checkpoint:
    source: str  # as the user gave it
    path: Path
    from_hub: bool
    config: dict
    shard_files: list[str]  # in index order (a single file: [model.safetensors])
    tensors: dict[str, TensorEntry]
    metadata: dict[str, dict[str, str]]  # per shard file, its safetensors __metadata__
    sharded: bool

    @property
    def label(self) -> str:
        return f"{self.source!r}" if self.source == str(self.path) else f"{self.source!r} ({self.path})"

    @property
    def tied_embeddings(self) -> bool:
        return bool(self.config.get("tie_word_embeddings", True))  # transformers' default

    def files_read(self) -> list[Path]:
        names = [CONFIG_FILE, *([INDEX_FILE] if self.sharded else []), *self.shard_files]
        return [self.path / n for n in names]


def resolve_source(source: str, *, relative_local: bool = True) -> tuple[Path, bool]:
    """A local directory as it is; otherwise a hub id, downloaded. Returns (directory, from_hub).

    With relative_local=False (the merger service's jobs), only an absolute path is local: anything
    else is a hub id, never a directory that happens to exist in this process's current directory.
    """
    if relative_local or source.startswith("/"):
        local = Path(source).expanduser()
        if local.is_dir():
            return local.resolve(), False
        if local.exists():
            raise MergeError(f"{source!r} is a file, not a checkpoint directory")
    if source.startswith((".", "/", "~")) or not _HUB_ID_RE.match(source) or ".." in source:
        raise MergeError(f"{source!r}: no such checkpoint directory")
    import huggingface_hub

    try:
        path = huggingface_hub.snapshot_download(repo_id=source, allow_patterns=_HUB_PATTERNS)
    except Exception as e:  # offline, unknown repo, gated: all say the same thing to the user
        raise MergeError(
            f"{source!r} is not a local directory, and downloading it from the hub failed: "
            f"{type(e).__name__}: {e}"
        ) from None
    return Path(path), True


def load_checkpoint(source: str, *, relative_local: bool = True) -> Checkpoint:
    """Resolve a source and read its config and every shard's header (relative_local: see
    resolve_source)."""
    path, from_hub = resolve_source(str(source), relative_local=relative_local)
    config_path = path / CONFIG_FILE
    if not config_path.is_file():
        raise MergeError(f"{source!r}: no {CONFIG_FILE} in {path}")
    config = _read_json(config_path)
    if (path / INDEX_FILE).is_file():
        index = _read_json(path / INDEX_FILE)
        weight_map = index.get("weight_map")
        if not isinstance(weight_map, dict) or not weight_map:
            raise MergeError(f"{path / INDEX_FILE}: no weight_map")
        shard_files = list(dict.fromkeys(weight_map.values()))
        sharded = True
    elif (path / SINGLE_FILE).is_file():
        weight_map, shard_files, sharded = None, [SINGLE_FILE], False
    else:
        found = sorted(p.name for p in path.iterdir() if p.suffix in (".bin", ".pt", ".pth", ".safetensors"))
        hint = f" (found {', '.join(found)}; only safetensors checkpoints are merged)" if found else ""
        raise MergeError(f"{source!r}: no {SINGLE_FILE} or {INDEX_FILE} in {path}{hint}")
    tensors: dict[str, TensorEntry] = {}
    metadata: dict[str, dict[str, str]] = {}
    for name in shard_files:
        shard = path / name
        if not shard.is_file():
            raise MergeError(f"{source!r}: shard {name} listed in {INDEX_FILE} is missing")
        try:
            header = read_header(shard)
        except SafetensorsFormatError as e:
            raise MergeError(str(e)) from None
        metadata[name] = header.metadata
        for tname, entry in header.entries.items():
            if tname in tensors:
                raise MergeError(f"{source!r}: tensor {tname!r} appears in two shards")
            if weight_map is not None and weight_map.get(tname) != name:
                raise MergeError(f"{source!r}: tensor {tname!r} is in {name} but the index says otherwise")
            tensors[tname] = entry
    if weight_map is not None and len(tensors) != len(weight_map):
        missing = sorted(set(weight_map) - set(tensors))[:3]
        raise MergeError(f"{source!r}: tensors listed in {INDEX_FILE} are missing from the shards: {missing}")
    return Checkpoint(str(source), path, from_hub, config, shard_files, tensors, metadata, sharded)


# ---- the plan: what each output tensor is made of, checked before any data is read ----


@dataclass(frozen=True)
class TensorPlan:
    name: str
    shape: tuple[int, ...]
    out_dtype: str  # safetensors dtype code of the output
    base: TensorEntry
    models: tuple[TensorEntry, ...] | None  # None: copied from the base, never averaged

    @property
    def numel(self) -> int:
        return self.base.numel


@dataclass(frozen=True)
class ShardPlan:
    file: str
    tensors: tuple[TensorPlan, ...]
    metadata: dict[str, str]


@dataclass
class MergePlan:
    base: Checkpoint
    models: list[Checkpoint]
    shards: list[ShardPlan]
    dtype: str | None  # the requested output dtype name, or None for the inputs' own
    notes: list[str] = field(default_factory=list)

    @property
    def tensors(self) -> list[TensorPlan]:
        return [t for s in self.shards for t in s.tensors]


def plan_merge(base: Checkpoint, models: list[Checkpoint], dtype: str | None = None) -> MergePlan:
    """Check that the checkpoints can be merged tensor by tensor and lay out the output like the base."""
    if dtype is not None and dtype not in DTYPE_NAMES:
        raise MergeError(f"dtype {dtype!r} is not one of {sorted(DTYPE_NAMES)}")
    for m in models:
        _check_configs(base, m)
    notes: list[str] = []
    lookups = [_tensor_lookup(base, m, notes) for m in models]
    problems: list[str] = []
    shards = []
    for file in base.shard_files:
        planned = []
        for entry in (e for e in base.tensors.values() if e.path.name == file):
            others = [lookup.get(entry.name) for lookup in lookups]
            for m, other in zip(models, others, strict=True):
                if other is None:
                    problems.append(f"tensor {entry.name!r} is in {base.label} but not in {m.label}")
                elif other.shape != entry.shape:
                    problems.append(
                        f"tensor {entry.name!r} has shape {list(entry.shape)} in {base.label} "
                        f"but {list(other.shape)} in {m.label}"
                    )
                elif other.dtype != entry.dtype and (
                    dtype is None or not _mergeable(entry.dtype) or not _mergeable(other.dtype)
                ):
                    problems.append(
                        f"tensor {entry.name!r} is {entry.dtype} in {base.label} but {other.dtype} in "
                        f"{m.label}" + (" (set dtype to choose the output dtype)" if dtype is None else "")
                    )
            if _mergeable(entry.dtype):
                out_dtype = DTYPE_NAMES[dtype] if dtype else entry.dtype
                planned.append(TensorPlan(entry.name, entry.shape, out_dtype, entry, tuple(others)))
            elif entry.torch_dtype.is_floating_point:
                problems.append(
                    f"tensor {entry.name!r} is {entry.dtype}, which is not averaged (quantised "
                    f"checkpoints are not supported)"
                )
            else:
                planned.append(TensorPlan(entry.name, entry.shape, entry.dtype, entry, None))
        shards.append(ShardPlan(file, tuple(planned), {**base.metadata.get(file, {}), "format": "pt"}))
    for m, lookup in zip(models, lookups, strict=True):
        extra = sorted(set(lookup) - set(base.tensors))
        for name in extra:
            problems.append(f"tensor {name!r} is in {m.label} but not in {base.label}")
    if problems:
        more = f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""
        raise MergeError("; ".join(problems[:5]) + more)
    non_float = sum(1 for s in shards for t in s.tensors if t.models is None)
    if non_float:
        notes.append(f"{non_float} non-float tensors copied from the base, not averaged")
    return MergePlan(base, models, shards, dtype, notes)


def _mergeable(code: str) -> bool:
    return DTYPES[code] in MERGEABLE_DTYPES


def _check_configs(a: Checkpoint, b: Checkpoint) -> None:
    for key in ARCHITECTURE_FIELDS:
        va, vb = a.config.get(key), b.config.get(key)
        if va != vb:
            raise MergeError(f"config.json differs: {key} is {va!r} in {a.label} but {vb!r} in {b.label}")
    if a.tied_embeddings != b.tied_embeddings:
        raise MergeError(
            f"config.json differs: tie_word_embeddings is {a.tied_embeddings} in {a.label} but "
            f"{b.tied_embeddings} in {b.label}; tied and untied embeddings have no common layout"
        )


def _tensor_lookup(base: Checkpoint, model: Checkpoint, notes: list[str]) -> dict[str, TensorEntry]:
    """The model's tensors by name, with tied embeddings reconciled with the base's layout.

    With tied embeddings a checkpoint may or may not store lm_head.weight; where the base stores it
    and the model does not, the model's lm_head is its input embedding; where only the model stores
    it, it is a copy of that embedding and the output (laid out like the base) does not have it.
    """
    lookup = dict(model.tensors)
    if not base.tied_embeddings:
        return lookup
    in_base, in_model = _OUTPUT_EMBEDDING in base.tensors, _OUTPUT_EMBEDDING in lookup
    if in_base and not in_model:
        embedding = _input_embedding(model)
        if embedding is not None:
            lookup[_OUTPUT_EMBEDDING] = lookup[embedding]
            notes.append(f"{_OUTPUT_EMBEDDING} of {model.label} is its tied {embedding}")
    elif in_model and not in_base:
        del lookup[_OUTPUT_EMBEDDING]
        notes.append(f"{_OUTPUT_EMBEDDING} of {model.label} dropped: the base ties it to the input embedding")
    return lookup


def _input_embedding(ckpt: Checkpoint) -> str | None:
    for name in ckpt.tensors:
        if name.endswith(_INPUT_EMBEDDING_SUFFIXES):
            return name
    return None


def _read_json(path: Path) -> dict:
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError, UnicodeDecodeError) as e:
        raise MergeError(f"{path}: cannot be read as JSON ({e})") from None
    if not isinstance(data, dict):
        raise MergeError(f"{path}: not a JSON object")
    return data


def torch_dtype_name(code: str) -> str:
    return str(DTYPES[code]).removeprefix("torch.")


__all__ = ["CODES", "Checkpoint", "MergePlan", "ShardPlan", "TensorPlan", "load_checkpoint", "plan_merge"]
