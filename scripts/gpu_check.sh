#!/usr/bin/env bash
# `make gpu-check`: the GPU path run for real, on a machine with an NVIDIA GPU (scripts/gpu_check.py
# has the steps): the evaluator on vLLM, an in-place alpha-swap sweep, two GRPO steps with vLLM
# generation, on small Qwen2-architecture checkpoints built here; prints tokens/s and swap time per
# alpha (and writes them to runs/gpu_check/gpu_check.json).
#
#   bash scripts/gpu_check.sh            # needs a GPU; installs the `gpu` extra (vLLM) if missing
#   bash scripts/gpu_check.sh --dry-run  # the same steps on CPU: transformers, TRL's generation, no vLLM
#
# Installing the extra: from the package index where one is reachable, else (a GPU machine with no
# network) from GPU_WHEELHOUSE, a directory of wheels made beforehand on a connected machine with
#   pip download -d build/wheelhouse-gpu vllm   (for the GPU machine's Python and platform)
# Without a GPU (and without --dry-run) it stops at once, exit 3, saying so: nothing is installed.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
[[ -x $PY ]] || PY=$(command -v python3)
DRY=0
for arg in "$@"; do  # the rest (--run-dir DIR, --max-tokens N) goes to scripts/gpu_check.py
  [[ $arg == --dry-run ]] && DRY=1
done

if [[ $DRY == 1 ]]; then
  exec "$PY" scripts/gpu_check.py "$@"
fi

if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "gpu-check: no NVIDIA GPU here (nvidia-smi finds none). This check needs CUDA: run it on a GPU" \
    "machine, or 'bash scripts/gpu_check.sh --dry-run' for the same steps on CPU without vLLM." >&2
  exit 3
fi
nvidia-smi -L

if ! "$PY" -c "import vllm" >/dev/null 2>&1; then
  # the `gpu` extra's packages, as pyproject.toml lists them (not an editable install of the project)
  mapfile -t GPU_REQS < <("$PY" -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['optional-dependencies']['gpu']))")
  echo "gpu-check: installing the gpu extra: ${GPU_REQS[*]}"
  if [[ -n ${GPU_WHEELHOUSE:-} ]]; then
    "$PY" -m pip install -q --no-index --find-links "$GPU_WHEELHOUSE" "${GPU_REQS[@]}"
  else
    "$PY" -m pip install -q "${GPU_REQS[@]}"
  fi
fi
if ! "$PY" -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)"; then
  echo "gpu-check: nvidia-smi sees a GPU but torch has no CUDA (a CPU build of torch?): install a CUDA" \
    "build of torch (the gpu extra's vLLM brings one) and run again." >&2
  exit 3
fi
exec "$PY" scripts/gpu_check.py "$@"
