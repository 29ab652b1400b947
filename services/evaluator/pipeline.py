"""An eval run: sample completions from checkpoints, judge them through the judge service, record every
judged sample in RUN_DIR/samples.jsonl, and build the report.

Theory of operation
-------------------
Two threads share one queue. The producer walks checkpoints, then problems, then requests of up to
`batch_size` samples (a request's seed comes from its first sample index, so the cut is stable); it
generates a request's completions and submits them to the judge at once (`POST /submissions`,
through the shared `JudgeClient`), then hands the batch id to the consumer and goes on generating.
The consumer (the calling thread) waits for batches in the order they were submitted, turns results
into `SampleRecord`s and appends them to samples.jsonl. So the judge works on one batch while the
next is being generated: with generation and judging on separate cores the run takes about as long
as the slower stage, not the sum (`bench/eval_bench.py`). With `overlap=False` everything is
generated first, then judged: the baseline that benchmark compares against.

Resuming: a run directory remembers its run (run.json) and every judged sample. Restarted on the
same directory, an eval skips each (checkpoint, problem, sample index) already judged (judge errors
are retried) and skips loading a checkpoint with nothing left to do. A request with some samples
still missing is generated again whole (the same seed gives the same completions) and only the
missing ones are judged, so a resumed run records what an uninterrupted one would have.

A sweep (`sweep=(low, high)`) loads theta_low once and writes theta_low + a * delta into the live
model for each alpha (`services.evaluator.sweep`): no checkpoint is written and nothing reloaded.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from tqdm import tqdm

from services.evaluator.config import EvalConfig
from services.evaluator.generate import (
    Generator,
    SampleRequest,
    Sampling,
    load_generator,
    request_seed,
    select_backend,
)
from services.evaluator.inputs import (  # noqa: F401 - also the pipeline's names for them
    BenchmarkProblem,
    EvalCheckpoint,
    EvalError,
    UnknownProblemError,
    benchmark_root,
    check_checkpoint_path,
    checkpoints_from_paths,
    register_problems,
    resolve_benchmark,
    sweep_checkpoints,
)
from services.evaluator.records import (
    RUN_FILE,
    SAMPLES_FILE,
    CheckpointInfo,
    RunMeta,
    SampleRecord,
    append_samples,
    judged_keys,
    read_run_meta,
    read_samples,
    write_run_meta,
)
from services.judge.client import JudgeClient
from services.settings import get_settings

log = logging.getLogger(__name__)

DEFAULT_BATCH_SIZE = 8
LANGUAGE = "python"
# run.json fields that must agree for a directory to be resumed
_RESUME_FIELDS = (
    "benchmark",
    "n_samples",
    "temperature",
    "max_tokens",
    "top_p",
    "seeds",
    "batch_size",
    "problems",
)


# -- progress ---------------------------------------------------------------------------------------
@dataclass
class Progress:
    """How far a run is; `total` counts the samples this run judges (already judged ones excluded)."""

    total: int = 0
    already_judged: int = 0
    generated: int = 0
    judged: int = 0
    judge_errors: int = 0
    checkpoint: str | None = None
    stage: str = "starting"  # starting | generating | judging | repair | report | done

    @property
    def fraction(self) -> float:
        return self.judged / self.total if self.total else 1.0

    def as_dict(self) -> dict:
        return {**asdict(self), "fraction": round(self.fraction, 4)}


@dataclass
class EvalResult:
    run_dir: Path
    already_judged: int
    judged: int
    judge_errors: int
    seconds: float
    generate_s: float  # time the producer spent generating
    judge_s: float  # time from the first submission to the last result (overlap) or of judging alone
    phase_s: float  # generating and judging together, from the first load to the last result
    report: dict = field(default_factory=dict)


# -- the run ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Chunk:
    """One generation request: samples [first, first + count) with one seed; `wanted`: those to judge."""

    checkpoint: EvalCheckpoint
    problem: BenchmarkProblem
    first: int
    count: int
    seed: int
    wanted: tuple[int, ...]


@dataclass
class _Batch:
    chunk: _Chunk
    completions: dict[int, str]
    batch_id: str | None = None


_DONE = object()


def evaluate(
    checkpoints: Sequence[EvalCheckpoint | str],
    config: EvalConfig,
    run_dir: Path | str,
    *,
    sweep: tuple[str, str] | None = None,
    judge: JudgeClient | None = None,
    overlap: bool = True,
    progress: Callable[[Progress], None] | None = None,
    show_progress: bool = True,
    generator_options: dict | None = None,
    build: bool = True,
    extra_meta: dict | None = None,
) -> EvalResult:
    """Evaluate `checkpoints` (paths, or EvalCheckpoints) on the config's benchmark, n_samples per problem,
    into run_dir; resumes a run already there. With `sweep=(low, high)`, the checkpoints are alphas of
    that pair, loaded in place. `extra_meta` is recorded in run.json. With `config.repair_turns` > 0 the
    repair evaluation (`services.evaluator.repair`) follows, into RUN_DIR/repair.json(l), which the report
    takes in. Returns counts and timings, and build_report's summary when `build`."""
    start = time.monotonic()
    run_dir = Path(run_dir)
    benchmark, n_samples, seed = config.benchmark, config.n_samples, config.seed
    if all(isinstance(c, EvalCheckpoint) for c in checkpoints):
        cks = list(checkpoints)
    elif any(isinstance(c, EvalCheckpoint) for c in checkpoints):
        raise EvalError("give checkpoints as paths or as EvalCheckpoints, not both")
    else:
        cks = checkpoints_from_paths([str(c) for c in checkpoints])
    if not cks:
        raise EvalError("no checkpoints given")
    if sweep is not None:
        for path in sweep:
            check_checkpoint_path(path)
        if any(c.alpha is None or c.path is not None for c in cks):
            raise EvalError("the checkpoints of an in-place sweep are alphas (EvalCheckpoint with path None)")
    elif any(c.path is None for c in cks):
        raise EvalError("a checkpoint without a path is only possible in an in-place sweep")
    if config.repair_turns and sweep is not None:
        raise EvalError("repair_turns: a sweep's repair evaluation needs checkpoints on disk (mode 'merger')")
    chosen = resolve_benchmark(benchmark, config.problems)
    chosen_backend = select_backend(config.backend or get_settings().eval_backend)

    fields = {
        "benchmark": benchmark,
        "n_samples": n_samples,
        "temperature": config.temperature,
        "seeds": [seed],
        "max_tokens": config.max_tokens,
        "top_p": config.top_p,
        "batch_size": config.batch_size,
        "problems": [p.problem_id for p in chosen],
        "language": LANGUAGE,
        "backend": chosen_backend,
    }
    if sweep is not None:
        fields["sweep"] = {"low": sweep[0], "high": sweep[1], "mode": "in_place"}
    if config.repair_turns:
        fields["repair_turns"] = config.repair_turns
    fields.update(extra_meta or {})
    meta = _run_meta(run_dir, cks, fields)
    batch_size = int(meta.model_extra["batch_size"])
    write_run_meta(run_dir, meta)

    samples_path = run_dir / SAMPLES_FILE
    done = judged_keys(read_samples(samples_path))
    chunks = _plan(cks, chosen, n_samples, batch_size, seed, done)
    state = Progress(total=sum(len(c.wanted) for c in chunks), already_judged=len(done))
    own_client = judge is None
    judge = judge or JudgeClient()
    try:
        if chunks:
            register_problems(judge, {c.problem.problem_id: c.problem.path for c in chunks})
        sampling = Sampling(temperature=config.temperature, max_tokens=config.max_tokens, top_p=config.top_p)
        timing = _run(
            chunks,
            judge,
            sampling,
            chosen_backend,
            sweep,
            generator_options or {},
            overlap,
            state,
            progress,
            show_progress,
            samples_path,
        )
        if config.repair_turns:
            from services.evaluator.repair import evaluate_repair

            state.stage = "repair"
            _notify(progress, state)
            evaluate_repair(
                [c.path for c in cks],
                benchmark,
                n_samples,
                config.repair_turns,
                config.temperature,
                config.max_tokens,
                run_dir,
                problems=config.problems,
                seed=seed,
                batch_size=batch_size,
                backend=chosen_backend,
                judge=judge,
                show_progress=show_progress,
                top_p=config.top_p,
            )
    finally:
        if own_client:
            judge.close()
    result = EvalResult(
        run_dir=run_dir,
        already_judged=state.already_judged,
        judged=state.judged,
        judge_errors=state.judge_errors,
        seconds=0.0,
        generate_s=timing["generate_s"],
        judge_s=timing["judge_s"],
        phase_s=timing["phase_s"],
    )
    if build:
        from services.evaluator.reports import build_report

        state.stage = "report"
        _notify(progress, state)
        result.report = build_report(run_dir)
    state.stage = "done"
    _notify(progress, state)
    result.seconds = time.monotonic() - start
    return result


def _run_meta(run_dir: Path, cks: list[EvalCheckpoint], run_fields: dict) -> RunMeta:
    """run.json for this run; a directory holding another run is refused rather than mixed. A resumed
    run keeps the batch size it started with unless one is given."""
    fields = {
        **run_fields,
        "checkpoints": [CheckpointInfo(name=c.name, alpha=c.alpha, path=c.path) for c in cks],
    }
    old = read_run_meta(run_dir).model_dump(mode="json") if (run_dir / RUN_FILE).is_file() else None
    if fields["batch_size"] is None:
        fallback = min(run_fields["n_samples"], DEFAULT_BATCH_SIZE)
        fields["batch_size"] = (old or {}).get("batch_size") or fallback
    fresh = RunMeta.model_validate(fields)
    if old is None:
        return fresh
    new = fresh.model_dump(mode="json")
    differ = [k for k in _RESUME_FIELDS if old.get(k) != new.get(k)]
    if [c["name"] for c in old["checkpoints"]] != [c["name"] for c in new["checkpoints"]]:
        differ.append("checkpoints")
    if differ:
        shown = "; ".join(f"{k}: {_short(old.get(k))} there, {_short(new.get(k))} now" for k in differ[:4])
        raise EvalError(f"{run_dir} holds a different run ({shown}); use a new run directory")
    return fresh


def _short(value) -> str:
    if isinstance(value, list) and value and isinstance(value[0], dict):
        value = [v.get("name") for v in value]
    text = repr(value)
    return text if len(text) < 80 else text[:77] + "..."


def _plan(cks, problems, n_samples, batch_size, seed, done) -> list[_Chunk]:
    chunks = []
    for ck in cks:
        for p in problems:
            for first in range(0, n_samples, batch_size):
                count = min(batch_size, n_samples - first)
                wanted = tuple(
                    i for i in range(first, first + count) if (ck.name, p.problem_id, i) not in done
                )
                if wanted:
                    seed_i = request_seed(seed, p.problem_id, first)
                    chunks.append(_Chunk(ck, p, first, count, seed_i, wanted))
    return chunks


def _notify(progress: Callable[[Progress], None] | None, state: Progress) -> None:
    if progress is not None:
        progress(state)


def _run(
    chunks, judge, sampling, backend, sweep, generator_options, overlap, state, progress, show, samples_path
):
    q: queue.Queue = queue.Queue()
    stop = threading.Event()
    timing = {"generate_s": 0.0, "judge_s": 0.0, "phase_s": 0.0, "first_submit": None}
    bars = {
        "gen": tqdm(total=state.total, desc="generate", unit="sample", disable=not show, position=0),
        "judge": tqdm(total=state.total, desc="judge", unit="sample", disable=not show, position=1),
    }

    def submit(batch: _Batch) -> None:
        chunk = batch.chunk
        subs = [
            {
                "id": f"{chunk.checkpoint.name}/{chunk.problem.problem_id}/{i}",
                "problem_id": chunk.problem.problem_id,
                "language": LANGUAGE,
                "completion": batch.completions[i],
            }
            for i in chunk.wanted
        ]
        if timing["first_submit"] is None:
            timing["first_submit"] = time.monotonic()
        batch.batch_id = judge.submit(subs)

    def produce() -> None:
        try:
            for batch in _generate(
                chunks, sampling, backend, sweep, generator_options, stop, state, timing, progress
            ):
                if overlap:
                    submit(batch)
                q.put(batch)
                bars["gen"].update(len(batch.chunk.wanted))
            if overlap:
                state.stage = "judging"  # what is left: the last batches
        except BaseException as err:  # noqa: BLE001 - handed to the consumer, which raises it
            q.put(err)
        finally:
            q.put(_DONE)

    def record(batch: _Batch) -> None:
        results = judge.wait(batch.batch_id)
        chunk = batch.chunk
        records = [
            SampleRecord.from_judge_result(
                r,
                checkpoint=chunk.checkpoint.name,
                alpha=chunk.checkpoint.alpha,
                sample_index=i,
                difficulty=chunk.problem.difficulty,
                completion=batch.completions[i],
                seed=chunk.seed,
            )
            for i, r in zip(chunk.wanted, results, strict=True)
        ]
        append_samples(samples_path, records)
        state.judged += len(records)
        state.judge_errors += sum(r.status == "judge_error" for r in records)
        bars["judge"].update(len(records))
        _notify(progress, state)

    def drain():
        while (item := q.get()) is not _DONE:
            if isinstance(item, BaseException):
                raise item
            yield item

    producer = threading.Thread(target=produce, name="eval-generate", daemon=True)
    state.stage = "generating"
    _notify(progress, state)
    phase_start = time.monotonic()
    producer.start()
    try:
        if overlap:
            for batch in drain():
                record(batch)
        else:
            # the baseline: everything is generated before anything is judged
            batches = list(drain())
            state.stage = "judging"
            _notify(progress, state)
            for batch in batches:
                submit(batch)
            for batch in batches:
                record(batch)
    finally:
        stop.set()
        producer.join(timeout=60)
        for bar in bars.values():
            bar.close()
    timing["phase_s"] = time.monotonic() - phase_start
    if timing["first_submit"] is not None:
        timing["judge_s"] = time.monotonic() - timing["first_submit"]
    return timing


def _generate(chunks, sampling, backend, sweep, generator_options, stop, state, timing, progress):
    """Yield one _Batch per chunk, loading each checkpoint (or alpha) once, in order."""
    generator: Generator | None = None
    in_place = None
    try:
        for ck, ck_chunks in _by_checkpoint(chunks):
            if stop.is_set():
                return
            t0 = time.monotonic()
            if sweep is not None:
                if generator is None:
                    from services.evaluator.sweep import InPlaceSweep

                    generator = load_generator(sweep[0], backend, **generator_options)
                    in_place = InPlaceSweep(generator, *sweep)
                in_place.load_alpha(ck.alpha)
            else:
                if generator is not None:
                    generator.close()
                generator = load_generator(ck.path, backend, **generator_options)
            timing["generate_s"] += time.monotonic() - t0
            state.checkpoint = ck.name
            _notify(progress, state)
            prompts: dict[str, str] = {}
            for group_start in range(0, len(ck_chunks), generator.group_size):
                if stop.is_set():
                    return
                group = ck_chunks[group_start : group_start + generator.group_size]
                requests = []
                for c in group:
                    if c.problem.problem_id not in prompts:
                        prompts[c.problem.problem_id] = generator.prompt(c.problem.prompt)
                    requests.append(SampleRequest(prompts[c.problem.problem_id], c.count, c.seed))
                t0 = time.monotonic()
                texts = generator.sample(requests, sampling)
                timing["generate_s"] += time.monotonic() - t0
                for c, completions in zip(group, texts, strict=True):
                    state.generated += len(c.wanted)
                    yield _Batch(c, {i: completions[i - c.first] for i in c.wanted})
    finally:
        if in_place is not None:
            in_place.close()
        if generator is not None:
            generator.close()


def _by_checkpoint(chunks: list[_Chunk]):
    order: dict[str, list[_Chunk]] = {}
    cks: dict[str, EvalCheckpoint] = {}
    for c in chunks:
        order.setdefault(c.checkpoint.name, []).append(c)
        cks[c.checkpoint.name] = c.checkpoint
    return [(cks[name], cs) for name, cs in order.items()]
