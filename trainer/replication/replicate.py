"""`frontier replicate CONFIG`: the miniature replication, end to end, through the stack's services.
Trained on the config's `[train]` problems, measured on its `[eval]` problems, which share none
(checked before anything runs: `problem_split`).

    corpus -> tokenizer + from-scratch Qwen2 -> SFT (TRL SFTTrainer)          in this process
    GRPO lax (R_k, small k) and GRPO strict (R_inf) from the SFT checkpoint   TRL GRPOTrainer, rewards
                                                                               from the judge over HTTP
    POST /merge low=lax high=strict alphas=[-1 .. 2]                          the merger service
    POST /eval  SFT + every merged alpha, n samples per held-out problem     the evaluator service
    report: training curves, outcome fractions with bootstrap intervals, the frontier, pass@k,
            matched-budget pools, churn, measured statements, summary.json    trainer/replication/report.py

Every stage writes into `runs/<name>/` and records itself in `stages.json` with a hash of the
configuration it depends on; a second run reuses each finished stage whose configuration is unchanged
(and everything after the first changed stage is redone). The numbers that matter are in the config
file (`configs/replicate_*.toml`), parsed by one pydantic model (trainer/replication/config.py).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
import tomllib
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from trainer.replication.config import ProblemSetSection, ReplicateConfig

ROOT = Path(__file__).resolve().parents[2]
STAGES_FILE = "stages.json"
# GRPO switches that add an arm: none of them is part of the lax and strict runs' configuration
OPTIONAL_ARMS = {"partial_credit", "repair", "session", "endpoint_seeds", "k_family"}
SESSION_ARMS = ("tool", "agentic")


def load_config(path: Path | str) -> ReplicateConfig:
    """A TOML (or JSON) config file; a clear error naming the field where it is wrong, or the problems
    the benchmark does not have."""
    path = Path(path)
    text = path.read_text()
    data = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
    config = ReplicateConfig.model_validate(data)
    problem_split(config)
    return config


# -- stages, resumable ------------------------------------------------------------------------------
def _digest(*parts: Any) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:16]


class Stages:
    """`stages.json`: each finished stage's config hash and outputs. A stage runs again when its hash
    changed or an output is gone; since each hash includes the one before it, so does all that follows."""

    def __init__(self, run_dir: Path, log: Callable[[str], None]):
        self.run_dir = run_dir
        self.path = run_dir / STAGES_FILE
        self.done: dict[str, dict] = json.loads(self.path.read_text()) if self.path.is_file() else {}
        self.log = log
        self.chain = ""

    def run(self, name: str, depends: Any, fn: Callable[[], dict]) -> dict:
        self.chain = _digest(self.chain, name, depends)
        record = self.done.get(name)
        paths = [
            v for v in (record or {}).get("outputs", {}).values() if isinstance(v, str) and os.path.isabs(v)
        ]
        if record and record["hash"] == self.chain and all(Path(p).exists() for p in paths):
            self.log(f"[dim]{name}: done in an earlier run, reused[/dim]")
            return record["outputs"]
        start = time.monotonic()
        outputs = fn()
        self.done[name] = {
            "hash": self.chain,
            "outputs": outputs,
            "seconds": round(time.monotonic() - start, 1),
        }
        self.path.write_text(json.dumps(self.done, indent=1))
        self.log(f"{name}: {time.monotonic() - start:.0f} s")
        return outputs


# -- the pipeline -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Split:
    """The run's two problem sets, resolved: `train` and `eval` (lists of BenchmarkProblem)."""

    train: list
    eval: list
    # the evaluation set's tiers (docs/spec.md 12.9): name -> problem ids, and the one claims are on
    tiers: dict | None = None
    claims_tier: str | None = None
    # training problems left out because their reference program is an evaluation problem's up to
    # names (docs/spec.md 12.11): training id -> that evaluation problem's id
    excluded: dict | None = None

    @property
    def train_ids(self) -> list[str]:
        return [p.problem_id for p in self.train]

    @property
    def eval_ids(self) -> list[str]:
        return [p.problem_id for p in self.eval]

    def as_json(self) -> dict:
        """summary.json's `split`: the ids of each set, and the evaluation problems' difficulty field."""
        out = {
            "train": self.train_ids,
            "eval": self.eval_ids,
            "eval_difficulty": {p.problem_id: p.difficulty for p in self.eval},
        }
        if self.tiers:
            out["tiers"] = {name: list(ids) for name, ids in self.tiers.items()}
            out["claims_tier"] = self.claims_tier
        if self.excluded is not None:
            out["excluded"] = dict(self.excluded)
        return out

    def held_out(self, problem_ids: list[str]) -> list[str]:
        """`problem_ids`, after checking that none is a training problem: what a stage that measures
        passes on, so that no evaluation can see one even if a caller mixed the sets up."""
        trained = set(self.train_ids).intersection(problem_ids)
        if trained:
            raise StageFailed(f"an evaluation was asked to measure training problems: {sorted(trained)}")
        return list(problem_ids)


def _problem_set(section: ProblemSetSection, side: str) -> list:
    """One side's problems: the benchmark's (all, or those listed), through the release window and the
    difficulties; a ValueError naming the side and what is wrong."""
    from services.problems.discovery import UnknownBenchmark, read_spec, resolve_benchmark

    try:
        found = resolve_benchmark(section.benchmark, section.problems or None)
    except UnknownBenchmark as err:
        raise ValueError(
            f"[{side}]: {err} (an imported data set: `frontier problems import --format ... FILE DIR`, "
            "docs/replication.md: the paper's setting on a GPU)"
        ) from None
    except ValueError as err:
        raise ValueError(f"[{side}]: {err}") from None
    s = section
    families, instances = getattr(s, "families", []), getattr(s, "instances", [])
    if not (s.released_from or s.released_to or s.difficulties or families or instances):
        return found
    kept, left_out = [], []
    for p in found:
        metadata = read_spec(p.path).metadata
        if (families and metadata.get("family") not in families) or (
            instances and metadata.get("instance") not in instances
        ):
            left_out.append(p.problem_id)
            continue
        raw = metadata.get("contest_date")
        try:
            released = date.fromisoformat(str(raw)[:10]) if raw else None
        except ValueError:
            released = None
        in_window = not (s.released_from or s.released_to) or (
            released is not None
            and (s.released_from is None or released >= s.released_from)
            and (s.released_to is None or released <= s.released_to)
        )
        if in_window and (not s.difficulties or p.difficulty in s.difficulties):
            kept.append(p)
        else:
            left_out.append(p.problem_id)
    if s.problems and left_out:
        raise ValueError(
            f"[{side}]: listed problems outside its release window or difficulties: {', '.join(left_out)}"
        )
    if not kept:
        raise ValueError(
            f"[{side}]: no problem of {s.benchmark!r} is in the release window "
            f"{s.released_from or '...'} to {s.released_to or '...'} with difficulty in {s.difficulties or 'any'}"
            + (f", family in {families}" if families else "")
            + (f", instance in {instances}" if instances else "")
        )
    return kept


def _tier_sets(section: ProblemSetSection) -> dict[str, list]:
    """The evaluation set's tiers, each resolved as a problem set of its own on the eval benchmark."""
    return {
        name: _problem_set(
            ProblemSetSection(
                benchmark=section.benchmark,
                problems=t.problems,
                families=t.families,
                instances=t.instances,
            ),
            f"eval.tiers.{name}",
        )
        for name, t in section.tiers.items()
    }


def _family_of(problem) -> str | None:
    from services.problems.discovery import read_spec

    return read_spec(problem.path).metadata.get("family")


def problem_split(config: ReplicateConfig) -> Split:
    """The config's training and evaluation problems, checked to share none, by id or by content
    (services/problems/split.py); a ValueError saying which and why (checked before anything runs)."""
    from services.problems.split import check_disjoint, problem_digests

    train = _problem_set(config.train, "train")
    tiers = None
    if config.eval.tiers:
        by_tier = _tier_sets(config.eval)
        union: dict[str, Any] = {}
        for problems in by_tier.values():
            union.update((p.problem_id, p) for p in problems)
        held_out = list(union.values())
        tiers = {name: [p.problem_id for p in problems] for name, problems in by_tier.items()}
        trained_families = {_family_of(p) for p in train} - {None}
        for name, t in config.eval.tiers.items():
            shared = sorted(
                f"{p.problem_id} ({_family_of(p)})"
                for p in by_tier[name]
                if _family_of(p) in trained_families
            )
            if t.new_families and shared:
                raise ValueError(
                    f"[eval.tiers.{name}] holds out families, but these problems are of a training "
                    f"family (metadata.family): {', '.join(shared)}"
                )
    else:
        held_out = _problem_set(config.eval, "eval")
    if config.eval.exclude_eval_programs:
        raise ValueError("exclude_eval_programs is a [train] setting, not an [eval] one")
    excluded = None
    if config.train.exclude_eval_programs:
        train, excluded = _without_eval_programs(train, held_out)
        if not train:
            raise ValueError("exclude_eval_programs left no training problem")
    # the split check holds between train and every tier: each tier is part of the union checked here
    check_disjoint(
        [problem_digests(p.problem_id, p.path, p.prompt.statement) for p in train],
        [problem_digests(p.problem_id, p.path, p.prompt.statement) for p in held_out],
    )
    return Split(train, held_out, tiers, config.eval.claims_tier, excluded)


def _without_eval_programs(train: list, held_out: list) -> tuple[list, dict]:
    """`train` less every problem whose ref.py has the shape (corpus.program_shape: the program up to
    the names it binds) of an evaluation problem's ref.py, and {left-out id: that evaluation id}."""
    from trainer.replication.corpus import program_shape

    def shape(problem) -> str | None:
        ref = Path(problem.path) / "ref.py"
        if not ref.is_file():
            return None
        try:
            return program_shape(ref.read_text())
        except (SyntaxError, ValueError):
            return None

    held = {}
    for p in held_out:
        if (s := shape(p)) is not None:
            held.setdefault(s, p.problem_id)
    kept, excluded = [], {}
    for p in train:
        twin = held.get(shape(p))
        if twin is None:
            kept.append(p)
        else:
            excluded[p.problem_id] = twin
    return kept, excluded


class StageFailed(RuntimeError):
    """A stage could not finish (a service refused or failed a job), with the service's reason."""


def replicate(config: ReplicateConfig, out_root: Path | None = None, *, console=None) -> dict:
    """Run (or resume) every stage; returns summary.json's content. With `require_checks`, a false check
    raises ReplicationCheckFailed once the report is written."""
    from rich.console import Console

    from services.terminal import say

    # transformers' deprecation notices about arguments TRL passes say nothing to whoever runs this
    warnings.filterwarnings("ignore", category=FutureWarning, module="transformers")
    os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ["OMP_NUM_THREADS"] = str(config.torch_threads)  # and the services started from here
    import torch

    torch.set_num_threads(config.torch_threads)
    console = console or Console()
    split = problem_split(config)  # refused here, before anything runs, when the sets share a problem
    run_dir = (out_root or ROOT / "runs") / config.name
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.json").write_text(config.model_dump_json(indent=1))
    stages = Stages(run_dir, console.print)
    # trained on: `dirs` (corpus, SFT, every GRPO run); measured on: `eval_ids` (every evaluation)
    dirs = [Path(p.path) for p in split.train]
    problem_ids = split.train_ids
    eval_ids = split.eval_ids
    console.print(
        f"split: training on {len(problem_ids)} problems of {config.train.benchmark!r}, "
        f"evaluating on {len(eval_ids)} held-out problems of {config.eval.benchmark!r}"
    )
    started = time.monotonic()

    from trainer.replication.report import k_arm

    lazy = _LazyStack(run_dir / "logs", console, [*dirs, *(Path(p.path) for p in split.eval)])
    difficulty = None
    try:
        if config.pilot:  # before any GRPO step: the design's difficulty (docs/spec.md 12.9)
            difficulty, pilot_policies = _pilot(config, dirs, split, run_dir, stages, lazy, console)
        if difficulty and difficulty["matched"]:  # the design's SFT policy is its pilot rung's
            policy = pilot_policies[difficulty["design"]]
        elif difficulty and config.corpus.efficient in pilot_policies:
            # no rung matched: the run goes on with [corpus] as given, which a rung already trained
            # (the same corpus, seed and SFT settings): that rung's policy, not a second copy of it
            policy = pilot_policies[config.corpus.efficient]
        else:
            console.rule("policy: corpus, tokenizer, SFT (the training set)")
            policy = stages.run(
                "sft",
                [
                    config.seed,
                    config.train.benchmark,
                    problem_ids,
                    config.corpus,
                    config.policy,
                    config.sft,
                    _session_tokens(config),
                    *_fit_depends(config),
                ],
                lambda: _policy_stage(config, dirs, run_dir, console),
            )
    except BaseException:
        lazy.__exit__(None, None, None)
        raise

    with lazy as stack:
        runs = {}
        arms: list[tuple[str, Any]] = [("lax", config.grpo.lax_k), ("strict", config.grpo.strict_k)]
        if config.grpo.partial_credit:
            arms.append(("partial", f"partial-{config.grpo.partial_credit}"))
        for arm, k in arms:
            runs[arm] = stages.run(
                f"grpo_{arm}",
                grpo_depends(config, k, arm),
                lambda arm=arm, k=k: _grpo_stage(
                    config, policy["checkpoint"], dirs, arm, k, run_dir, stack, console
                ),
            )
        # the endpoints' further seeds, then the k-family (a k that is lax_k or strict_k is that run)
        extra: list[tuple[str, Any, int]] = [
            (f"{arm}_seed{s}", k, s)
            for s in config.grpo.endpoint_seeds
            if s != config.seed
            for arm, k in (("lax", config.grpo.lax_k), ("strict", config.grpo.strict_k))
        ]
        extra += [
            (k_arm(k), k, config.seed)
            for k in config.grpo.k_family
            if k not in (config.grpo.lax_k, config.grpo.strict_k)
        ]
        for arm, k, s in extra:
            runs[arm] = stages.run(
                f"grpo_{arm}",
                [*grpo_depends(config, k, arm), s],
                lambda arm=arm, k=k, s=s: _grpo_stage(
                    config, policy["checkpoint"], dirs, arm, k, run_dir, stack, console, seed=s
                ),
            )
        if config.grpo.repair:
            runs.update(_repair_arm(config, policy, dirs, run_dir, stages, stack, console))
        merged = stages.run(
            "merge",
            [config.sweep.alphas, config.sweep.dtype],
            lambda: _merge_stage(
                config, runs["lax"]["checkpoint"], runs["strict"]["checkpoint"], run_dir, stack, console
            ),
        )
        evaluated = stages.run(
            "eval",
            [config.sweep, config.eval.model_dump(mode="json"), eval_ids, sorted(runs)],
            lambda: _eval_stage(
                config,
                {
                    "sft": policy["checkpoint"],
                    **{
                        arm: runs[arm]["checkpoint"]
                        for arm in ("partial", "repair_warmup", "repair", *(a for a, _, _ in extra))
                        if arm in runs
                    },
                },
                merged["checkpoints"],
                split.held_out(eval_ids),
                run_dir,
                stack,
                console,
            ),
        )

        repaired = None
        if config.grpo.repair:
            arms = {
                "sft": policy["checkpoint"],
                **{a: r["checkpoint"] for a, r in runs.items() if a not in {e[0] for e in extra}},
            }
            repaired = stages.run(
                "repair_eval",
                [config.sweep, config.grpo.repair.turns, sorted(arms), eval_ids],
                lambda: _repair_eval_stage(config, arms, split.held_out(eval_ids), run_dir, stack, console),
            )

        sessions = None
        if config.grpo.session:  # after the evaluations, which it takes no part in
            from trainer.replication.session_arm import run_session_arm

            sessions = run_session_arm(
                config,
                policy,
                dirs,
                run_dir,
                stages,
                stack,
                console,
                grpo_hash=config.grpo.model_dump(exclude=OPTIONAL_ARMS),
                eval_dirs=[Path(p.path) for p in split.eval],
            )
            runs.update(sessions["runs"])

    console.rule("the report")
    from trainer.replication.report import write_report

    # the session settings go into summary["settings"] beside "single", where the claims table reads them
    summary = write_report(
        config,
        run_dir,
        policy,
        runs,
        merged,
        evaluated,
        repaired,
        settings=sessions["settings"] if sessions else None,
        split=split.as_json(),
        difficulty=difficulty,
    )
    # paths, generated sentences and names: printed as written, never read as markup
    say(console, "", f"report: {run_dir / 'report.md'}\nsummary: {run_dir / 'summary.json'}")
    for line in summary["statements"]:
        say(console, "", f"- {line}")
    for claim in summary["claims"]:
        say(console, "", f"finding {claim['finding']}: {claim['verdict']} (seeds: {claim['seeds']})")
    for name, ok in summary["checks"].items():
        say(console, "ok" if ok else "FAILED", name, style="green" if ok else "red", sep="  ")
    console.print(f"replication finished in {time.monotonic() - started:.0f} s")
    failed = [name for name, ok in summary["checks"].items() if not ok]
    if failed and config.require_checks:
        raise ReplicationCheckFailed(f"{len(failed)} check(s) failed: {'; '.join(failed)}")
    return summary


class ReplicationCheckFailed(RuntimeError):
    """The run finished and reported, but what it was meant to show did not hold."""


class _LazyStack:
    """The judge, merger and evaluator, brought up (or found running) the first time a stage needs one,
    so that a resumed run whose service stages are all done starts nothing."""

    def __init__(self, log_dir: Path, console, problem_dirs: list[Path]):
        self.log_dir, self.console, self.problem_dirs = log_dir, console, problem_dirs
        self.stack = None

    def url(self, service: str) -> str:
        if self.stack is None:
            from services.judge.client import JudgeClient
            from services.stack import LocalStack

            self.console.rule("the stack: judge, merger, evaluator")
            self.stack = LocalStack.bring_up(self.log_dir, console=self.console)
            with JudgeClient(self.stack.url("judge")) as judge:
                for d in self.problem_dirs:
                    judge.put_problem_dir(d)
            self.console.print(f"{len(self.problem_dirs)} problems registered with the judge")
        return self.stack.url(service)

    def __enter__(self) -> _LazyStack:
        return self

    def __exit__(self, *exc) -> None:
        if self.stack is not None:
            self.stack.close()


def _session_tokens(config: ReplicateConfig) -> list[str]:
    """What of the session arm the tokenizer depends on (the SFT stage's hash): its settings."""
    return list(config.grpo.session.settings) if config.grpo.session else []


def _session_action_texts(config: ReplicateConfig, examples, dirs: list[Path]) -> list[str]:
    """With a session arm, its scripted turns for every corpus program (trainer/replication/session_arm.py), so the
    action tags and commands are lines of the tokenizer's corpus, as the programs' lines are: without
    them the agentic warm-up had to learn `<write path=...>` byte by byte and did not (0 of 20)."""
    if not config.grpo.session:
        return []
    from services.judge.core.extract import extract_code
    from trainer.replication.session_arm import scripted_turns

    first_in = {}
    for d in dirs:
        ins = sorted((d / "tests").glob("*.in"))
        first_in[d.name] = f"tests/{ins[0].name}" if ins else None
    programs = [(e.problem_id, extract_code(e.completion, "python")) for e in examples]
    return [
        turn
        for problem_id, code in programs
        if code is not None
        for setting in config.grpo.session.settings
        for turn in scripted_turns(setting, code, first_in.get(problem_id))
    ]


def _pilot(
    config: ReplicateConfig, dirs: list[Path], split: Split, run_dir: Path, stages: Stages, stack, console
) -> tuple[dict, dict]:
    """The difficulty pilot (docs/spec.md 12.9): per rung of the ladder, in order, an SFT-only policy
    on the corpus with that many efficient programs per training problem (the other kinds as
    [corpus]), evaluated on the pilot's tier with the sweep's n_samples and temperature, until a rung's
    correct share lies in the window. Returns (summary.json's `difficulty`, {rung: its policy})."""
    from services.evaluator.records import SAMPLES_FILE, read_samples
    from trainer.replication.pilot import choose_rung, correct_share, next_rung_needed

    p = config.pilot
    tier_ids = split.held_out(split.tiers[p.tier])
    rungs: list[dict] = []
    policies: dict[int, dict] = {}
    for efficient in p.ladder:
        if not next_rung_needed(rungs, p.window, p.end_below_window):
            rungs.append({"efficient": efficient, "correct": None, "judged": 0, "run": False})
            continue
        rung_config = config.model_copy(
            update={"corpus": config.corpus.model_copy(update={"efficient": efficient})}
        )
        rung_dir = run_dir / "pilot" / f"efficient_{efficient}"
        console.rule(f"difficulty pilot: {efficient} efficient programs per training problem, SFT only")
        policy = stages.run(
            f"pilot_sft_efficient_{efficient}",
            [
                config.seed,
                config.train.benchmark,
                [d.name for d in dirs],
                rung_config.corpus,
                config.policy,
                config.sft,
                _session_tokens(config),
                *_fit_depends(config),
            ],
            lambda c=rung_config, d=rung_dir: _policy_stage(c, dirs, d, console),
        )
        evaluated = stages.run(
            f"pilot_eval_efficient_{efficient}",
            [config.sweep, config.eval.model_dump(mode="json"), tier_ids],
            lambda c=rung_config, d=rung_dir, pol=policy: _eval_stage(
                c, {"sft": pol["checkpoint"]}, [], tier_ids, d, stack, console, out=d / "eval"
            ),
        )
        records = read_samples(Path(evaluated["run_dir"]) / SAMPLES_FILE)
        share = correct_share([r.outcome if r.status == "ok" else None for r in records])
        judged = sum(r.status == "ok" for r in records)
        console.print(f"pilot rung {efficient}: correct share {share} on {judged} judged samples of {p.tier}")
        rungs.append(
            {
                "efficient": efficient,
                "correct": share,
                "judged": judged,
                "run": True,
                "checkpoint": policy["checkpoint"],
                **({"fit": policy["fit"]} if policy.get("fit") else {}),
            }
        )
        policies[efficient] = policy
    decision = choose_rung(rungs, p.window)
    difficulty = {
        "ladder": list(p.ladder),
        "window": list(p.window),
        "tier": p.tier,
        "rungs": rungs,
        **decision,
    }
    return difficulty, policies


def _policy_stage(config: ReplicateConfig, dirs: list[Path], run_dir: Path, console) -> dict:
    from trainer.replication.corpus import CorpusShape, build_corpus, write_corpus
    from trainer.replication.policy import PolicyShape, SFTSettings, init_policy, sft, token_lengths

    if config.policy.base_model and config.sft.epochs == 0:
        return {"checkpoint": config.policy.base_model, "corpus": None, "examples": 0}
    shape = CorpusShape(**config.corpus.model_dump())
    examples = build_corpus(dirs[0].parent, shape, problems=[d.name for d in dirs], seed=config.seed)
    corpus = write_corpus(examples, run_dir / "corpus.jsonl")
    counts = {
        k: sum(e.kind == k for e in examples) for k in ("efficient", "slow", "wrong", "crash", "mutant")
    }
    console.print(f"corpus: {len(examples)} programs over {len(dirs)} problems {counts}")
    if config.policy.base_model:
        init = Path(config.policy.base_model)
    else:
        p = config.policy
        init = init_policy(
            run_dir / "policy" / "init",
            examples,
            PolicyShape(**p.model_dump(exclude={"base_model"})),
            config.seed,
            extra_texts=_session_action_texts(config, examples, dirs),
        )
    lengths = token_lengths(init, examples)
    console.print(
        f"tokens: prompts {lengths['prompt_tokens']:.0f}, programs {lengths['completion_tokens']:.0f} on average"
    )
    s = config.sft
    rule = fit_rule(config)
    final = sft(
        init,
        examples,
        run_dir / "policy" / "sft",
        SFTSettings(
            epochs=s.epochs, learning_rate=s.learning_rate, batch_size=s.batch_size, seed=config.seed
        ),
        fit=rule,
    )
    fit = None
    if rule is not None:
        fit = json.loads((final / "fit.json").read_text())
        console.print(
            f"SFT fit (training prompts): parse shares {[c['parse_share'] for c in fit['checks']]} at "
            f"epochs {[c['epoch'] for c in fit['checks']]}; target {rule.parse_share:.2f} "
            f"{'reached' if fit['reached'] else 'not reached'}"
        )
    return {
        "checkpoint": str(final),
        "corpus": str(corpus),
        "examples": len(examples),
        "kinds": counts,
        **lengths,
        **({"fit": fit} if fit is not None else {}),
    }


def fit_rule(config: ReplicateConfig):
    """The training-fit rule of docs/spec.md 12.10 from [sft] and the sweep's sampling, or None."""
    from trainer.replication.fit import FitRule

    s = config.sft
    if s.fit_parse_share is None:
        return None
    return FitRule(
        parse_share=s.fit_parse_share,
        check_every=s.fit_check_every,
        max_epochs=s.fit_max_epochs,
        samples=config.sweep.n_samples,
        temperature=config.sweep.temperature,
        max_tokens=config.sweep.max_tokens,
    )


def _fit_depends(config: ReplicateConfig) -> list:
    """What the SFT stage's result also depends on when the fit rule samples (the sweep's sampling)."""
    r = fit_rule(config)
    return [] if r is None else [r.samples, r.temperature, r.max_tokens]


def _grpo_stage(
    config: ReplicateConfig,
    start: str,
    dirs: list[Path],
    arm: str,
    k,
    run_dir: Path,
    stack: _LazyStack,
    console,
    *,
    seed: int | None = None,
) -> dict:
    from trainer.train import train

    judge_url = stack.url("judge")
    console.rule(f"GRPO {arm}: reward R_{k}, {config.grpo.steps} steps")
    problem_ids = [d.name for d in dirs]

    g = config.grpo
    out = run_dir / f"grpo_{arm}"
    shutil.rmtree(out, ignore_errors=True)
    reward = None
    repair = dataset = None
    if arm == "repair":
        repair = _repair_settings(config)
        if g.repair.mode == "repair_only":
            dataset = _failed_attempts_dataset(config, start, problem_ids, run_dir, judge_url, repair)
            repair = None
            reward = lambda client: _repair_only_reward(g.repair.k, client)  # noqa: E731
    session = _session_settings(config, arm, k) if arm in SESSION_ARMS else None
    if arm == "partial":
        from trainer.rewards import ContinuousCreditReward, DiscreteCreditReward

        kind = {"discrete": DiscreteCreditReward, "continuous": ContinuousCreditReward}[g.partial_credit]
        reward = lambda client: kind(client=client)  # noqa: E731 - the reward over train()'s client
    final = train(
        start,
        [_benchmark_root(config.train.benchmark)],
        out,
        k="inf" if arm in ("partial", "repair") else k,
        max_steps=(g.repair.steps or g.steps) if arm == "repair" else g.steps,
        num_generations=g.num_generations,
        prompts_per_step=g.prompts_per_step,
        max_completion_length=g.max_completion_length,
        learning_rate=g.learning_rate,
        temperature=g.temperature,
        beta=g.beta,
        judge_url=judge_url,
        problem_ids=problem_ids,
        register_problems=False,
        seed=config.seed if seed is None else seed,
        use_vllm=g.use_vllm,
        num_iterations=g.num_iterations,
        reward=reward,
        repair=repair,
        dataset=dataset,
        session=session,
    )
    return {
        "checkpoint": str(final),
        "log": str(final / "log_history.json"),
        "k": k,
        "seed": config.seed if seed is None else seed,
    }


def _session_settings(config: ReplicateConfig, setting: str, k):
    from trainer.replication.session_arm import session_settings

    return session_settings(config, setting, k)


def _repair_only_reward(k, client):
    from trainer.rewards import JudgeReward

    return JudgeReward(k, client=client)


def _failed_attempts_dataset(
    config: ReplicateConfig, start: str, problem_ids, run_dir: Path, judge_url, settings
):
    """Repair-only training's prompts: the starting policy's failed first attempts with their feedback."""
    from transformers import AutoTokenizer

    from services.judge.client import JudgeClient
    from services.problems.discovery import resolve_benchmark
    from services.problems.prompts import prompt_messages, render_prompt
    from trainer.repair import collect_failures, repair_dataset

    tokenizer = AutoTokenizer.from_pretrained(start)
    prompts = {
        p.problem_id: render_prompt(prompt_messages(p.prompt), tokenizer)
        for p in resolve_benchmark(config.train.benchmark, problem_ids)
    }
    g = config.grpo
    with JudgeClient(judge_url) as judge:
        failures = collect_failures(
            start,
            config.train.benchmark,
            prompts,
            judge,
            run_dir / "repair_prompts",
            n_samples=g.num_generations,
            temperature=g.temperature,
            max_tokens=g.max_completion_length,
            settings=settings,
            seed=config.seed,
        )
    (run_dir / "repair_prompts.jsonl").write_text("".join(json.dumps(f.__dict__) + "\n" for f in failures))
    return repair_dataset(failures, tokenizer)


def grpo_depends(config: ReplicateConfig, k, arm: str) -> list:
    """What a lax or strict run's stage hash covers: the GRPO section without the other arms' switches,
    so switching the partial-credit or repair arm on or off does not redo them."""
    return [config.grpo.model_dump(exclude=OPTIONAL_ARMS), k, arm]


def _repair_arm(
    config: ReplicateConfig, policy: dict, dirs: list[Path], run_dir: Path, stages: Stages, stack, console
) -> dict:
    """The repair arm's stages: the warm-up SFT on repair-shaped examples (when asked), then repair
    training from it. Returns {"repair_warmup": ..., "repair": ...} in the runs' shape."""
    r = config.grpo.repair
    out = {}
    start = policy["checkpoint"]
    if r.warmup_epochs > 0:
        warm = stages.run(
            "repair_warmup",
            [r.k, r.warmup_epochs, config.sft.learning_rate, config.sft.batch_size],
            lambda: _repair_warmup_stage(config, policy, run_dir, stack, console),
        )
        out["repair_warmup"] = warm
        start = warm["checkpoint"]
    out["repair"] = stages.run(
        "grpo_repair",
        [config.grpo.model_dump(exclude=OPTIONAL_ARMS), r.model_dump()],
        lambda: _grpo_stage(
            config, start, dirs, "repair", f"repair-{r.mode}-R_{r.k}", run_dir, stack, console
        ),
    )
    return out


def _repair_settings(config: ReplicateConfig):
    from trainer.repair import RepairSettings

    r = config.grpo.repair
    return RepairSettings(
        turns=r.turns,
        k=r.k,
        pass_reward=r.pass_reward,
        fail_reward=r.fail_reward,
        invalid_turn_penalty=r.invalid_turn_penalty,
    )


def _repair_warmup_stage(
    config: ReplicateConfig, policy: dict, run_dir: Path, stack: _LazyStack, console
) -> dict:
    """SFT from the SFT checkpoint on the corpus's failing programs with the judge's feedback on them,
    each followed by an efficient program, mixed with the corpus itself (so first attempts keep their
    shape). Without a corpus (a base model used as it is) the examples come from nothing: refused."""
    from services.judge.client import JudgeClient
    from trainer.replication.corpus import read_corpus, write_corpus
    from trainer.replication.policy import SFTSettings, repair_examples, sft

    if not policy.get("corpus"):
        raise StageFailed(
            "the repair warm-up needs the corpus; set grpo.repair.warmup_epochs = 0 without one"
        )
    console.rule("repair warm-up: the corpus's failing programs, judged with feedback, then SFT")
    corpus = read_corpus(Path(policy["corpus"]))
    with JudgeClient(stack.url("judge")) as judge:
        examples = repair_examples(corpus, judge, _repair_settings(config), seed=config.seed)
    if not examples:
        raise StageFailed("no program of the corpus fails: nothing to learn repair from")
    write_corpus(examples, run_dir / "repair_corpus.jsonl")
    console.print(f"repair examples: {len(examples)} (from {len(corpus)} corpus programs)")
    s = config.sft
    out = run_dir / "policy" / "repair_warmup"
    shutil.rmtree(out, ignore_errors=True)
    final = sft(
        Path(policy["checkpoint"]),
        [*examples, *corpus],
        out,
        SFTSettings(
            epochs=config.grpo.repair.warmup_epochs,
            learning_rate=s.learning_rate,
            batch_size=s.batch_size,
            seed=config.seed,
            warmup_ratio=0.0,
        ),
    )
    return {
        "checkpoint": str(final),
        "log": str(final / "log_history.json"),
        "k": "repair warm-up (SFT)",
        "examples": len(examples),
    }


def _repair_eval_stage(
    config: ReplicateConfig, arms: dict[str, str], problem_ids: list[str], run_dir: Path, stack, console
) -> dict:
    """First attempts as the eval draws them, then repair turns on the failed ones, for every arm."""
    from services.evaluator.repair import evaluate_repair
    from services.judge.client import JudgeClient

    console.rule(f"repair evaluation: {config.grpo.repair.turns} turns on every arm's failed first attempts")
    s = config.sweep
    with JudgeClient(stack.url("judge")) as judge:
        summaries = evaluate_repair(
            list(arms.values()),
            config.eval.benchmark,
            s.n_samples,
            config.grpo.repair.turns,
            s.temperature,
            s.max_tokens,
            run_dir / "repair_eval",
            problems=problem_ids,
            seed=config.seed,
            backend=s.backend,
            judge=judge,
            resamples=config.bootstrap_resamples,
        )
    names = list(summaries)
    return {
        "run_dir": str(run_dir / "repair_eval"),
        "by_arm": dict(zip(arms, (summaries[n] for n in names), strict=True)),
    }


def _benchmark_root(benchmark: str) -> Path:
    from services.problems.discovery import benchmark_root

    return benchmark_root(benchmark)


def _merge_stage(
    config: ReplicateConfig, low: str, high: str, run_dir: Path, stack: _LazyStack, console
) -> dict:
    """POST /merge, then follow GET /merge/{job_id} until the checkpoints are written."""
    console.rule("the alpha sweep: POST /merge to the merger service")
    url = stack.url("merger")
    from tqdm import tqdm

    from services.merger.client import MergeClient, MergeClientError

    out = run_dir / "merged"
    body = {
        "low": low,
        "high": high,
        "alphas": config.sweep.alphas,
        "output_dir": str(out),
        "dtype": config.sweep.dtype,
        "overwrite": True,
    }
    with (
        MergeClient(url) as client,
        tqdm(total=100, desc="merge", unit="%", bar_format="{l_bar}{bar}| {elapsed}") as bar,
    ):

        def progress(state: dict) -> None:
            bar.update(round(100 * float((state.get("progress") or {}).get("fraction") or 0.0)) - bar.n)

        try:
            job_id = client.merge(body, progress)["job_id"]
        except MergeClientError as err:
            raise StageFailed(str(err)) from None
    from merger.models import alpha_dir_name

    checkpoints = [str(out / alpha_dir_name(a)) for a in config.sweep.alphas]
    missing = [c for c in checkpoints if not (Path(c) / "config.json").is_file()]
    if missing:
        raise StageFailed(f"the merger finished but did not write {', '.join(missing)}")
    return {"checkpoints": checkpoints, "job_id": job_id}


def _eval_stage(
    config: ReplicateConfig,
    endpoints: dict[str, str],
    merged: list[str],
    problem_ids: list[str],
    run_dir: Path,
    stack: _LazyStack,
    console,
    out: Path | None = None,
) -> dict:
    from services.evaluator.client import EvalClient

    console.rule(
        f"evaluation: POST /eval to the evaluator service (the SFT checkpoint and every alpha) on "
        f"{len(problem_ids)} held-out problems"
    )
    url = stack.url("evaluator")
    out = out or run_dir / "eval"
    shutil.rmtree(out, ignore_errors=True)
    s = config.sweep
    body = {
        "checkpoints": [*endpoints.values(), *merged],
        "benchmark": config.eval.benchmark,
        "problems": problem_ids,
        "n_samples": s.n_samples,
        "temperature": s.temperature,
        "max_tokens": s.max_tokens,
        "seed": config.seed,
        "backend": s.backend,
        "run_dir": str(out),
    }
    try:
        with EvalClient(url) as evaluator:
            state = evaluator.run("/eval", body)
    except RuntimeError as err:  # the evaluator refused the request: its reason
        raise StageFailed(str(err)) from None
    if state["status"] != "finished":
        raise StageFailed(f"the eval job {state['status']}: {state.get('error')}")
    # the evaluator's names for the checkpoints (it names them after their directories), from its report
    names = [c["name"] for c in state["report"]["run"]["checkpoints"]]
    return {
        "run_dir": str(out),
        "report_md": state["report_md"],
        "plots": state.get("plots") or {},
        "names": dict(zip(endpoints, names, strict=False)),
    }
