"""The session arm that learns (docs/spec.md sections 12.7 and 13.5): the tool-use and agentic settings
with a policy that uses its tools, then the same lax / strict / sweep as the single-turn arm.

    transcripts   every corpus program (efficient, slow, wrong, crash, mutant) driven through a real
                  judge session as a scripted episode: run it on a public test, read the real output,
                  submit it; recorded exactly as `SessionRollout` formats a rollout
    warm-up       SFT from the single-turn SFT checkpoint on those transcripts, the loss on the
                  policy's turns only (the observations masked, as `env_mask` masks them in GRPO)
    lax, strict   GRPO on session rollouts from the warm-up checkpoint, R_{lax_k} and R_{strict_k},
                  one run per seed
    merge         the first seed's lax (alpha 0) and strict (alpha 1) merged at the arm's alphas
    eval          each checkpoint's episodes run in real sessions (the rollout's own code, sampled at
                  the sweep's temperature); the submitted program's verdict is the sample's outcome,
                  an episode without a submission a format error; rows in `checkpoint_row`'s format,
                  and the share of episodes that call a tool and that submit a parseable program
    further arms  after every setting's stages above: GRPO from the warm-up per session k-family k
                  (neither endpoint), with partial credit, and of failure-conditioned repair (a failed
                  submission's feedback, then another try); evaluated as the eval stage evaluates
                  (findings 2 and 5 in the setting; finding 4 reads the sweep's samples)

The scripted episodes (what the warm-up teaches) are, per setting:

    tool:     <python> sys.stdin = open(the public test's input); the program </python> -> its output
              ```python the program ```                                        -> submitted
    agentic:  <write path="solution.py"> the program </write>                  -> bytes written
              <bash> python3 solution.py < tests/T.in | diff - tests/T.out && echo PASS </bash>
              <submit path="solution.py"/>                                     -> judged
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import SimpleNamespace

from services.evaluator.records import SampleRecord
from services.judge.client import JudgeClient
from services.judge.core.extract import extract_code
from trainer.envs.core import DEFAULT_PATH, SessionEnv
from trainer.envs.rollout import SessionRollout, SessionSettings

TOOL_ACTIONS = ("run", "write")  # what counts as using a tool (a submission does not)


# -- scripted episodes (the warm-up's data) --------------------------------------------------------
def example_test(files: Sequence[str]) -> str | None:
    """The first public test's input file of a session (`tests/<name>.in`), None without one."""
    ins = sorted(f for f in files if f.startswith("tests/") and f.endswith(".in"))
    return ins[0] if ins else None


def scripted_turns(setting: str, program: str, test_in: str | None) -> list[str]:
    """The policy turns of a scripted episode for `program` (see the module's docstring)."""
    program = program if program.endswith("\n") else program + "\n"
    if setting == "tool":
        turns = []
        if test_in:
            # a file object has what programs read stdin with (read, readline, iteration, .buffer)
            stdin = f"import sys\nsys.stdin = open({test_in!r})\n"
            turns.append(f"<python>\n{stdin}{program}</python>")
        return [*turns, f"```python\n{program}```"]
    if setting != "agentic":
        raise ValueError(f"unknown setting {setting!r}")
    turns = [f'<write path="{DEFAULT_PATH}">\n{program}</write>']
    if test_in:
        test_out = test_in[: -len(".in")] + ".out"
        turns.append(f"<bash>\npython3 {DEFAULT_PATH} < {test_in} | diff - {test_out} && echo PASS\n</bash>")
    return [*turns, f'<submit path="{DEFAULT_PATH}"/>']


@dataclass
class Transcript:
    """One episode as the rollout writes it: `prompt` (the problem's prompt and the setting's
    instructions), then each policy turn, each followed (but the last) by "\\n" + its observation."""

    problem_id: str
    setting: str
    kind: str  # the corpus program's kind (efficient, slow, ...)
    source: str
    prompt: str
    turns: list[str]
    observations: list[str]
    outcome: str
    reward: float | None
    actions: list[str] = field(default_factory=list)

    def completion(self) -> str:
        out = ""
        for i, turn in enumerate(self.turns):
            out += turn + (self.observations[i] if i < len(self.observations) else "")
        return out


def scripted_episode(
    env: SessionEnv, prompt: str, problem_id: str, program: str, kind="", source=""
) -> Transcript:
    """Drive one real session through the scripted turns of `program`; the session is deleted."""
    try:
        tail = env.reset(problem_id)
        turns = scripted_turns(env.setting, program, example_test(env.files))
        taken, observations = [], []
        for turn in turns:
            step = env.step(turn)
            taken.append(turn)
            if step.done:
                break
            observations.append("\n" + step.observation)
        return Transcript(
            problem_id,
            env.setting,
            kind,
            source,
            prompt + tail,
            taken,
            observations,
            env.outcome,
            env.reward,
            list(env.actions),
        )
    finally:
        env.close()


def build_transcripts(
    client: JudgeClient,
    corpus: Sequence,
    prompts: dict[str, str],
    settings: SessionSettings,
    parallel: int = 2,
) -> list[Transcript]:
    """A scripted episode in a real session for every corpus program of a problem in `prompts`."""
    from tqdm import tqdm

    jobs = []
    for e in corpus:
        code = extract_code(e.completion, "python")
        if e.problem_id in prompts and code is not None:
            jobs.append((e, code))
    if settings.turns < len(scripted_turns(settings.setting, "x", "tests/t.in")):
        raise ValueError(f"the {settings.setting} episodes take more turns than grpo.session.turns allows")

    def one(job):
        e, code = job
        return scripted_episode(
            settings.env(client), prompts[e.problem_id], e.problem_id, code, e.kind, e.source
        )

    with ThreadPoolExecutor(max(1, parallel)) as pool:
        return list(tqdm(pool.map(one, jobs), total=len(jobs), desc=f"{settings.setting} transcripts"))


def write_transcripts(transcripts: Sequence[Transcript], path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(asdict(t)) + "\n" for t in transcripts))
    return path


def read_transcripts(path: Path) -> list[Transcript]:
    return [Transcript(**json.loads(line)) for line in path.read_text().splitlines() if line.strip()]


# -- the warm-up -----------------------------------------------------------------------------------
def tokenize_transcript(tok, t: Transcript) -> dict[str, list[int]]:
    """input_ids and completion_mask as the rollout tokenizes an episode: the prompt, then each turn
    (mask 1; the last followed by end-of-text) and each observation (mask 0) on its own."""
    ids = tok(t.prompt, add_special_tokens=False).input_ids
    mask = [0] * len(ids)
    for i, turn in enumerate(t.turns):
        piece = tok(turn, add_special_tokens=False).input_ids
        if i == len(t.turns) - 1:
            piece = [*piece, tok.eos_token_id]
        ids += piece
        mask += [1] * len(piece)
        if i < len(t.observations):
            obs = tok(t.observations[i], add_special_tokens=False).input_ids
            ids += obs
            mask += [0] * len(obs)
    return {"input_ids": ids, "completion_mask": mask}


def warmup(
    start: Path | str,
    transcripts: Sequence[Transcript],
    out_dir: Path,
    *,
    epochs: float,
    learning_rate: float,
    batch_size: int,
    seed: int = 0,
) -> Path:
    """TRL's SFTTrainer on the tokenized transcripts (loss on the policy's turns only)."""
    from datasets import Dataset
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import SFTConfig, SFTTrainer

    tok = AutoTokenizer.from_pretrained(start)
    rows = [tokenize_transcript(tok, t) for t in transcripts]
    if not rows:
        raise ValueError("no transcripts to warm up on")
    dataset = Dataset.from_list(rows).shuffle(seed=seed)
    shutil.rmtree(out_dir, ignore_errors=True)
    args = SFTConfig(
        output_dir=str(out_dir / "trainer"),
        num_train_epochs=epochs,
        per_device_train_batch_size=batch_size,
        learning_rate=learning_rate,
        lr_scheduler_type="cosine",
        warmup_steps=0,
        weight_decay=0.0,
        logging_steps=1,
        save_strategy="no",
        report_to=[],
        seed=seed,
        use_cpu=True,
        bf16=False,
        gradient_checkpointing=False,
        completion_only_loss=True,
        max_length=None,
        dataloader_num_workers=0,
    )
    trainer = SFTTrainer(
        model=AutoModelForCausalLM.from_pretrained(start),
        args=args,
        train_dataset=dataset,
        processing_class=tok,
    )
    trainer.train()
    final = out_dir / "final"
    trainer.save_model(str(final))
    tok.save_pretrained(final)
    (final / "log_history.json").write_text(json.dumps(trainer.state.log_history, indent=1))
    return final


# -- evaluation in sessions ------------------------------------------------------------------------
def episode_record(env: SessionEnv, name: str, alpha, index: int, transcript: str, seed: int) -> SampleRecord:
    """An episode as an evaluator sample: the submission's verdict; without one, a format error."""
    if env.result is None:
        return SampleRecord(
            checkpoint=name,
            alpha=alpha,
            problem_id=env.problem_id or "",
            sample_index=index,
            status="ok",
            outcome="format_error",
            rewards={},
            completion=transcript,
            seed=seed,
            message="no submission within the turns",
        )
    return SampleRecord.from_judge_result(
        env.result, checkpoint=name, alpha=alpha, sample_index=index, completion=transcript, seed=seed
    )


def tool_use_stats(envs: Sequence[SessionEnv], records: Sequence[SampleRecord]) -> dict[str, float]:
    """Shares of episodes that called a tool (a run or a write before any submission), that submitted,
    and that submitted a parseable program (judged, neither a format error nor failing with CE)."""
    n = max(1, len(envs))
    parseable = sum(
        e.result is not None
        and r.status == "ok"
        and r.outcome.value != "format_error"
        and (r.first_failure or {}).get("verdict") != "CE"
        for e, r in zip(envs, records, strict=True)
    )
    return {
        "episodes": len(envs),
        "tool_call": sum(any(a in TOOL_ACTIONS for a in e.actions) for e in envs) / n,
        "submitted": sum("submit" in e.actions for e in envs) / n,
        "parseable_submission": parseable / n,
        "turns": sum(e.turns for e in envs) / n,
    }


def evaluate_checkpoint(
    checkpoint: Path | str,
    name: str,
    alpha: float | None,
    prompts: dict[str, str],
    settings: SessionSettings,
    client: JudgeClient,
    *,
    n_samples: int,
    temperature: float,
    max_turn_tokens: int,
    seed: int = 0,
) -> tuple[list[SampleRecord], dict]:
    """`n_samples` episodes per problem in real sessions, through the GRPO rollout's own code."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(checkpoint)
    model = AutoModelForCausalLM.from_pretrained(checkpoint).eval()
    trainer = SimpleNamespace(
        model=model, temperature=max(temperature, 1e-3), accelerator=SimpleNamespace(unwrap_model=lambda m: m)
    )
    rollout = SessionRollout(client, {p: pid for pid, p in prompts.items()}, tok, settings, max_turn_tokens)
    records, envs = [], []
    torch.manual_seed(seed)
    for pid, prompt in prompts.items():
        rollout([prompt] * n_samples, trainer)
        for i, (env, text) in enumerate(zip(rollout.last_envs, rollout.last_transcripts, strict=True)):
            env.problem_id = env.problem_id or pid
            records.append(episode_record(env, name, alpha, i, text[len(prompt) :], seed))
            envs.append(env)
    return records, tool_use_stats(envs, records)


def _evaluate_rows(config, todo, prompts, settings, client, max_turn: int, desc: str):
    """Evaluate each (name, alpha, checkpoint) of `todo` in real sessions: (rows in checkpoint_row's
    format with their tool-use shares, the tool-use shares by name, every sample record)."""
    from tqdm import tqdm

    from trainer.replication.report import checkpoint_row

    s = config.grpo.session
    rows, stats, all_records = {}, {}, []
    for name, alpha, checkpoint in tqdm(todo, desc=desc):
        records, st = evaluate_checkpoint(
            checkpoint,
            name,
            alpha,
            prompts,
            settings,
            client,
            n_samples=s.n_samples,
            temperature=config.sweep.temperature,
            max_turn_tokens=max_turn,
            seed=config.seed,
        )
        rows[name] = checkpoint_row(name, alpha, records, config.bootstrap_resamples, config.seed)
        rows[name]["tool_use"] = st
        stats[name] = st
        all_records += records
    return rows, stats, all_records


def run_curve(out: dict) -> dict:
    """A GRPO run's summary as `runs.*` has it: k, steps, the first and last fifths' mean reward, curve."""
    from trainer.replication.report import first_last, training_curve

    curve = training_curve(json.loads(Path(out["log"]).read_text()))
    first, last = first_last([c["reward"] for c in curve])
    return {
        "k": out["k"],
        "steps": len(curve),
        "reward_first": first,
        "reward_last": last,
        "checkpoint": out["checkpoint"],
        "curve": curve,
    }


# -- the arm's stages in `frontier replicate` ------------------------------------------------------
def session_settings(config, setting: str, k) -> SessionSettings:
    s = config.grpo.session
    return SessionSettings(
        setting, s.turns, k, exec_timeout_s=s.exec_timeout_s, max_observation_chars=s.max_observation_chars
    )


def _session_grpo(
    config, start, dirs, out: Path, k, steps: int, max_turn: int, judge_url: str, seed: int, session
):
    """One GRPO run in real sessions from `start` (the setting's warm-up checkpoint); its final checkpoint."""
    from trainer.train import train

    g = config.grpo
    return train(
        start,
        [dirs[0].parent],
        out,
        k=k,
        max_steps=steps,
        num_generations=g.num_generations,
        prompts_per_step=g.prompts_per_step,
        max_completion_length=max_turn,
        learning_rate=g.learning_rate,
        temperature=g.temperature,
        beta=g.beta,
        judge_url=judge_url,
        problem_ids=[d.name for d in dirs],
        register_problems=False,
        seed=seed,
        num_iterations=g.num_iterations,
        session=session,
    )


def _prompts(config, dirs, tokenizer_path) -> dict[str, str]:
    """problem id -> the GRPO prompt (what the rollout starts from)."""
    from transformers import AutoTokenizer

    from trainer.train import build_dataset

    tok = AutoTokenizer.from_pretrained(tokenizer_path)
    ds = build_dataset([dirs[0].parent], tok, [d.name for d in dirs])
    out = dict(zip(ds["problem_id"], ds["prompt"], strict=True))
    bad = [p for p in out.values() if not isinstance(p, str)]
    if bad:
        raise ValueError("the session arm takes plain-text prompts: a policy without a chat template")
    return out


def run_session_arm(
    config,
    policy: dict,
    dirs: list[Path],
    run_dir: Path,
    stages,
    stack,
    console,
    *,
    grpo_hash: dict,
    eval_dirs: list[Path],
) -> dict:
    """Every setting of `[grpo.session]`: transcripts, warm-up, lax and strict per seed on the training
    problems `dirs`, merge, eval on the held-out problems `eval_dirs` (refused when they share one).
    `grpo_hash`: what of the GRPO section the runs' stage hashes cover (replicate's: without the other
    arms' switches, so switching one on or off redoes none of these). Each setting's further arms
    (`extra_arms`) run after every setting's first stages, their keys added to its summary. Returns
    {"settings": {setting: summary}, "runs": {setting: the first seed's strict run}}."""
    trained = {d.name for d in dirs}.intersection(d.name for d in eval_dirs)
    if trained or not eval_dirs:
        raise ValueError(
            f"the session arm evaluates on held-out problems only: {sorted(trained) or 'none given'}"
        )
    if not policy.get("corpus"):
        raise RuntimeError(
            "the session arm's transcripts need the corpus (a policy trained by the sft stage)"
        )
    out_settings, out_runs, contexts = {}, {}, {}
    for setting in config.grpo.session.settings:
        out_settings[setting], out_runs[setting], contexts[setting] = _setting_arm(
            config, setting, policy, dirs, eval_dirs, run_dir, stages, stack, console, grpo_hash
        )
    # the k-family, partial-credit and repair arms of each setting (findings 2 and 5): stages after all
    # of the above, so a run made before they existed resumes by running only these
    for setting in config.grpo.session.settings:
        out_settings[setting].update(_setting_extra_arms(config, setting, contexts[setting], stages, console))
    return {"settings": out_settings, "runs": out_runs}


def session_k_family(config) -> list:
    """The session k-family's ks: `grpo.session.k_family`, or (None) `grpo.k_family`."""
    s = config.grpo.session
    return list(config.grpo.k_family if s.k_family is None else s.k_family)


def extra_arms(config) -> list[tuple[str, object]]:
    """(name, k) of each setting's further GRPO runs from the warm-up, in stage order: `k_<k>` for each
    session k-family k that is neither endpoint, `partial` (with grpo.partial_credit and
    grpo.session.partial_credit), `repair` (with grpo.repair and grpo.session.repair)."""
    from trainer.replication.report import k_arm

    g, s = config.grpo, config.grpo.session
    out = [(k_arm(k), k) for k in session_k_family(config) if k not in (g.lax_k, g.strict_k)]
    if g.partial_credit and s.partial_credit:
        out.append(("partial", f"partial-{g.partial_credit}"))
    if g.repair and s.repair:
        out.append(("repair", f"repair-session-R_{g.repair.k}"))
    return out


def repair_turns(config) -> int:
    """Policy turns of a repair episode: the setting's, and two more (a write and a submit) for each
    further try `grpo.repair.turns` allows."""
    return config.grpo.session.turns + 2 * (config.grpo.repair.turns - 1)


def _arm_settings(config, setting: str, arm: str, k) -> SessionSettings:
    """The rollout of one further arm: R_k (k-family), partial credit on R_1..R_inf, or repair (R_{repair.k}
    of the last submission, a failed one followed by its feedback and another try)."""
    g = config.grpo
    base = session_settings(config, setting, k)
    if arm == "partial":
        return SessionSettings(**{**asdict(base), "k": "inf", "credit": g.partial_credit})
    if arm == "repair":
        return SessionSettings(
            **{**asdict(base), "k": g.repair.k, "retry": True, "turns": repair_turns(config)}
        )
    return base


def _setting_extra_arms(config, setting: str, ctx: dict, stages, console) -> dict:
    """One setting's further arms (`extra_arms`): a GRPO run each from the warm-up (the endpoints'
    steps, batch and first seed), then one stage evaluating them as `_eval` evaluates (plain episodes,
    R_inf's verdict). Returns the summary's keys `arms` (name -> row), `arm_runs` (name -> curve),
    `k_family_ks` (the ks as configured) and `arms_samples`; {} without further arms."""

    arms = extra_arms(config)
    if not arms:
        return {}
    s = config.grpo.session
    root, warm, steps, max_turn, first = ctx["root"], ctx["warm"], ctx["steps"], ctx["max_turn"], s.seeds[0]
    done: dict[str, dict] = {}
    for arm, k in arms:
        rollout = _arm_settings(config, setting, arm, k)

        def grpo_stage(arm=arm, k=k, rollout=rollout):
            console.rule(f"session arm ({setting}): GRPO {arm} ({k}), seed {first}, {steps} steps")
            out = root / f"grpo_{arm}_s{first}"
            shutil.rmtree(out, ignore_errors=True)
            final = _session_grpo(
                config,
                warm["checkpoint"],
                ctx["dirs"],
                out,
                rollout.k,
                steps,
                max_turn,
                ctx["stack"].url("judge"),
                first,
                rollout,
            )
            return {"checkpoint": str(final), "log": str(final / "log_history.json"), "k": k}

        done[arm] = stages.run(
            f"session_{setting}_{arm}_s{first}",
            [arm, k, first, steps, max_turn, asdict(rollout), ctx["grpo_hash"]],
            grpo_stage,
        )

    def eval_stage():

        prompts = _prompts(config, ctx["eval_dirs"], ctx["policy"]["checkpoint"])  # held out
        settings = session_settings(config, setting, "inf")
        todo = [(arm, None, out["checkpoint"]) for arm, out in done.items()]
        with JudgeClient(ctx["stack"].url("judge")) as client:
            rows, _, all_records = _evaluate_rows(
                config, todo, prompts, settings, client, max_turn, f"{setting} session arms eval"
            )
        samples = root / "arms_samples.jsonl"
        samples.write_text("".join(r.model_dump_json() + "\n" for r in all_records))
        result = {
            "arms": rows,
            "arm_runs": {arm: {**run_curve(out), "seed": first} for arm, out in done.items()},
            "k_family_ks": session_k_family(config),
            "arms_samples": str(samples),
        }
        (root / "arms.json").write_text(json.dumps(result, indent=1))
        return {"arms": str(root / "arms.json")}

    evaluated = stages.run(
        f"session_{setting}_arms_eval",
        [
            s.n_samples,
            config.sweep.temperature,
            [a for a, _ in arms],
            max_turn,
            [d.name for d in ctx["eval_dirs"]],
        ],
        eval_stage,
    )
    return json.loads(Path(evaluated["arms"]).read_text())


def _setting_arm(
    config, setting: str, policy: dict, dirs, eval_dirs, run_dir: Path, stages, stack, console, grpo_hash
):
    """One setting's stages, trained on `dirs` and evaluated on `eval_dirs`; (its summary, its first
    seed's strict run, what its further arms need)."""
    from merger.models import alpha_dir_name
    from merger.sweep import merge_alphas
    from trainer.replication.corpus import read_corpus

    s, g = config.grpo.session, config.grpo
    # what each stage's hash covers (chained: a changed stage redoes everything after it)
    episode = [setting, s.turns, s.exec_timeout_s, s.max_observation_chars]
    grpo = grpo_hash
    steps = s.steps or g.steps
    # a turn is a whole program inside an action's tags: room for the tags and the tool call's lines
    max_turn = s.max_turn_tokens or g.max_completion_length + 64
    root = run_dir / f"session_{setting}"

    def judge():
        return JudgeClient(stack.url("judge"))

    def transcripts_stage(setting=setting, root=root):
        console.rule(f"session arm ({setting}): scripted episodes of the corpus in real sessions")
        prompts = _prompts(config, dirs, policy["checkpoint"])
        with judge() as client:
            ts = build_transcripts(
                client, read_corpus(Path(policy["corpus"])), prompts, session_settings(config, setting, "inf")
            )
        path = write_transcripts(ts, root / "transcripts.jsonl")
        outcomes = {}
        for t in ts:
            outcomes[t.outcome] = outcomes.get(t.outcome, 0) + 1
        return {"path": str(path), "count": len(ts), "outcomes": outcomes}

    made = stages.run(f"session_{setting}_transcripts", episode, transcripts_stage)

    def warmup_stage(setting=setting, root=root, made=made):
        console.rule(f"session arm ({setting}): SFT warm-up on {made['count']} transcripts")
        c = config.sft
        final = warmup(
            policy["checkpoint"],
            read_transcripts(Path(made["path"])),
            root / "warmup",
            epochs=s.warmup_epochs,
            learning_rate=c.learning_rate,
            batch_size=c.batch_size,
            seed=config.seed,
        )
        return {"checkpoint": str(final), "log": str(final / "log_history.json"), "k": "warm-up (SFT)"}

    warm = stages.run(
        f"session_{setting}_warmup",
        [s.warmup_epochs, config.sft.learning_rate, config.sft.batch_size],
        warmup_stage,
    )

    endpoints: dict[str, dict[int, dict]] = {"lax": {}, "strict": {}}
    for seed in s.seeds:
        for end, k in (("lax", g.lax_k), ("strict", g.strict_k)):

            def grpo_stage(setting=setting, end=end, k=k, seed=seed, root=root):
                console.rule(f"session arm ({setting}): GRPO {end} R_{k}, seed {seed}, {steps} steps")
                out = root / f"grpo_{end}_s{seed}"
                shutil.rmtree(out, ignore_errors=True)
                final = _session_grpo(
                    config,
                    warm["checkpoint"],
                    dirs,
                    out,
                    k,
                    steps,
                    max_turn,
                    stack.url("judge"),
                    seed,
                    session_settings(config, setting, k),
                )
                return {"checkpoint": str(final), "log": str(final / "log_history.json"), "k": k}

            endpoints[end][seed] = stages.run(
                f"session_{setting}_{end}_s{seed}", [end, k, seed, steps, max_turn, grpo], grpo_stage
            )
    first = s.seeds[0]

    def merge_stage(root=root):
        out = root / "merged"
        merge_alphas(
            endpoints["lax"][first]["checkpoint"],
            endpoints["strict"][first]["checkpoint"],
            s.alphas,
            out,
            overwrite=True,
            fsync=False,
        )
        return {"checkpoints": [str(out / alpha_dir_name(a)) for a in s.alphas]}

    merged = stages.run(f"session_{setting}_merge", [s.alphas], merge_stage)

    def eval_stage(setting=setting, root=root, merged=merged):
        prompts = _prompts(config, eval_dirs, policy["checkpoint"])  # the held-out problems
        settings = session_settings(config, setting, "inf")
        todo = [("sft", None, policy["checkpoint"], None), ("warmup", None, warm["checkpoint"], None)]
        todo += [
            (f"{e}_s{sd}", None, endpoints[e][sd]["checkpoint"], (e, sd)) for e in endpoints for sd in s.seeds
        ]
        todo += [
            (alpha_dir_name(a), a, c, None) for a, c in zip(s.alphas, merged["checkpoints"], strict=True)
        ]
        with judge() as client:
            rows, stats, all_records = _evaluate_rows(
                config, [t[:3] for t in todo], prompts, settings, client, max_turn, f"{setting} session eval"
            )
        (root / "samples.jsonl").write_text("".join(r.model_dump_json() + "\n" for r in all_records))
        result = {
            "warmup": {"before": stats["sft"], "after": stats["warmup"], "transcripts": made},
            "endpoints": {e: [rows[f"{e}_s{sd}"] for sd in s.seeds] for e in endpoints},
            "sweep": [rows[alpha_dir_name(a)] for a in s.alphas],
            "rows": {"sft": rows["sft"], "warmup": rows["warmup"]},
            "runs": {f"{e}_s{sd}": run_curve(endpoints[e][sd]) for e in endpoints for sd in s.seeds},
            "seeds": list(s.seeds),
            "sweep_seed": first,
            "samples": str(root / "samples.jsonl"),
        }
        (root / "summary.json").write_text(json.dumps(result, indent=1))
        return {"summary": str(root / "summary.json")}

    eval_ids = [d.name for d in eval_dirs]
    evaluated = stages.run(
        f"session_{setting}_eval",
        [s.n_samples, config.sweep.temperature, s.alphas, max_turn, eval_ids],
        eval_stage,
    )
    # the report's training plot and `runs.<setting>` show the first seed's strict run, as before
    ctx = {
        "root": root,
        "warm": warm,
        "steps": steps,
        "max_turn": max_turn,
        "dirs": dirs,
        "eval_dirs": eval_dirs,
        "policy": policy,
        "stack": stack,
        "grpo_hash": grpo,
    }
    return json.loads(Path(evaluated["summary"]).read_text()), endpoints["strict"][first], ctx
