"""Sampling completions from a checkpoint (prompts: services/problems/prompts.py) through two backends
behind one small interface, vLLM (a GPU is visible and vllm imports) and transformers (CPU, or anything else).

A backend answers `SampleRequest`s: one prompt, `count` completions, one seed. The seed of a request is
derived from (run seed, problem id, index of its first sample), never from the checkpoint, so every
checkpoint of a sweep draws with the same random numbers, and a resumed run regenerates exactly what an
uninterrupted one would have (on the same hardware and software).
"""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import os
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from services.problems.prompts import ProblemPrompt, prompt_messages, render_prompt

log = logging.getLogger(__name__)

Backend = Literal["auto", "vllm", "transformers"]
BACKENDS: tuple[str, ...] = ("auto", "vllm", "transformers")


class GenerationError(RuntimeError):
    """A backend that cannot be used as asked, with a message that says why."""


def request_seed(run_seed: int, problem_id: str, first_index: int) -> int:
    """The seed of the request whose first sample is `first_index`: 31 bits of a hash, stable everywhere."""
    digest = hashlib.sha256(f"{run_seed}:{problem_id}:{first_index}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


# -- backends ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Sampling:
    temperature: float
    max_tokens: int
    top_p: float = 1.0


@dataclass(frozen=True)
class SampleRequest:
    prompt: str
    count: int
    seed: int


class Generator(ABC):
    """A loaded checkpoint that samples completions. `group_size` is how many requests it prefers at once."""

    backend: str
    group_size: int = 1
    tokenizer: Any

    def prompt(self, problem: ProblemPrompt) -> str:
        return render_prompt(prompt_messages(problem), self.tokenizer)

    @abstractmethod
    def sample(self, requests: Sequence[SampleRequest], sampling: Sampling) -> list[list[str]]:
        """Completions per request, `request.count` each, in request order."""

    def close(self) -> None:  # noqa: B027 - a backend with nothing to release keeps this
        pass


class TransformersGenerator(Generator):
    """AutoModelForCausalLM sampling: one request at a time, its `count` samples as one batch; on the GPU
    where one is visible (vLLM being absent), else on the CPU."""

    backend = "transformers"

    def __init__(self, path: str | Path, *, dtype: str = "auto", device: str | None = None):
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self.path = str(path)
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        self.tokenizer = AutoTokenizer.from_pretrained(self.path)
        torch_dtype = dtype if dtype == "auto" else getattr(torch, dtype)
        self.model = AutoModelForCausalLM.from_pretrained(self.path, dtype=torch_dtype).to(self.device).eval()
        self._pad_id = self.tokenizer.pad_token_id
        if self._pad_id is None:
            self._pad_id = self.tokenizer.eos_token_id

    def sample(self, requests: Sequence[SampleRequest], sampling: Sampling) -> list[list[str]]:
        return [self._sample_one(r, sampling) for r in requests]

    def _sample_one(self, request: SampleRequest, sampling: Sampling) -> list[str]:
        import torch

        # a chat template writes its own special tokens; a plain prompt gets the tokenizer's usual ones
        templated = bool(getattr(self.tokenizer, "chat_template", None))
        enc = self.tokenizer(request.prompt, return_tensors="pt", add_special_tokens=not templated)
        enc = {k: v.to(self.device) for k, v in enc.items()}
        greedy = sampling.temperature <= 0
        kwargs: dict[str, Any] = (
            {"do_sample": False}
            if greedy
            else {"do_sample": True, "temperature": sampling.temperature, "top_p": sampling.top_p, "top_k": 0}
        )
        torch.manual_seed(request.seed)
        with torch.inference_mode():
            out = self.model.generate(
                **enc,
                **kwargs,
                # greedy decoding gives every row the same text: decode once, repeat it
                num_return_sequences=1 if greedy else request.count,
                max_new_tokens=sampling.max_tokens,
                pad_token_id=self._pad_id,
            )
        texts = self.tokenizer.batch_decode(out[:, enc["input_ids"].shape[1] :], skip_special_tokens=True)
        return texts * request.count if greedy else texts

    def close(self) -> None:
        self.model = None


class VLLMGenerator(Generator):
    """vLLM's `LLM.generate`, one `SamplingParams(n=count, seed=...)` per request, many requests at once."""

    backend = "vllm"
    group_size = 32

    def __init__(self, path: str | Path, *, dtype: str = "auto", **engine_args: Any):
        # in-place sweeps send our own functions to the engine's workers (LLM.apply_model), which the
        # V1 engine pickles only when this is set; nothing but this process talks to those workers
        os.environ.setdefault("VLLM_ALLOW_INSECURE_SERIALIZATION", "1")
        from vllm import LLM

        self.path = str(path)
        engine_args.setdefault("enable_prefix_caching", True)
        self.llm = LLM(model=self.path, dtype=dtype, **engine_args)
        self.tokenizer = self.llm.get_tokenizer()

    def sample(self, requests: Sequence[SampleRequest], sampling: Sampling) -> list[list[str]]:
        from vllm import SamplingParams

        params = [
            SamplingParams(
                n=r.count,
                temperature=max(sampling.temperature, 0.0),
                top_p=sampling.top_p,
                max_tokens=sampling.max_tokens,
                seed=r.seed,
            )
            for r in requests
        ]
        outputs = self.llm.generate([r.prompt for r in requests], params, use_tqdm=False)
        return [[c.text for c in o.outputs] for o in outputs]

    def close(self) -> None:
        self.llm = None


# -- choosing one -----------------------------------------------------------------------------------
def vllm_unavailable() -> str | None:
    """Why vLLM cannot be used here, or None when it can (it is installed and a GPU is visible)."""
    if importlib.util.find_spec("vllm") is None:
        return "vllm is not installed (pip install '.[gpu]' on a GPU machine)"
    import torch

    if not torch.cuda.is_available():
        return "no GPU is visible"
    try:
        import vllm  # noqa: F401
    except Exception as err:  # noqa: BLE001 - a broken install says why, and the CPU path still works
        return f"vllm does not import ({type(err).__name__}: {err})"
    return None


def select_backend(requested: str = "auto") -> str:
    """The backend to use: `auto` takes vLLM where it can run, else transformers; `vllm` insists."""
    if requested not in BACKENDS:
        raise GenerationError(f"unknown backend {requested!r}; choose one of {', '.join(BACKENDS)}")
    if requested == "transformers":
        return "transformers"
    why = vllm_unavailable()
    if requested == "vllm":
        if why:
            raise GenerationError(f"backend 'vllm' was asked for, but {why}")
        return "vllm"
    if why:
        log.info("generation on transformers: %s", why)
        return "transformers"
    return "vllm"


def load_generator(path: str | Path, backend: str = "auto", **options: Any) -> Generator:
    """Load a checkpoint directory (or hub id) on the chosen backend."""
    chosen = select_backend(backend)
    if chosen == "vllm":
        return VLLMGenerator(path, **options)
    return TransformersGenerator(path, **options)
