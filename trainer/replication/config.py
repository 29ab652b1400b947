"""The replicate config's model: `configs/replicate_*.toml` (or JSON), parsed by one pydantic model,
`ReplicateConfig`, with a section per stage it configures (trainer/replication/replicate.py runs them;
`load_config` there reads a file and checks its train/eval split). Every section forbids unknown keys,
so a misspelt field is an error naming it.
"""

from __future__ import annotations

from datetime import date
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CorpusSection(_Section):
    """Programs per problem, by kind (trainer/replication/corpus.py)."""

    efficient: int = Field(default=4, ge=1)
    slow: int = Field(default=3, ge=0)
    wrong: int = Field(default=2, ge=0)
    crash: int = Field(default=1, ge=0)
    mutant: int = Field(default=2, ge=0)
    renamings: bool = Field(
        default=True,
        description="programs beyond a kind's originals are renamings of them; false (docs/spec.md "
        "12.11): the originals as written, repeated",
    )


class PolicySection(_Section):
    """The from-scratch model, or `base_model` (a directory or hub id) to start from instead."""

    base_model: str | None = None
    vocab_size: int = Field(default=3000, ge=300)
    hidden_size: int = Field(default=128, ge=16)
    num_layers: int = Field(default=4, ge=1)
    num_heads: int = Field(default=4, ge=1)
    num_kv_heads: int = Field(default=2, ge=1)
    intermediate_size: int = Field(default=384, ge=16)
    tokens: Literal["lines", "templates", "numbers"] = Field(
        default="lines",
        description="the tokenizer: 'lines' (every corpus line a token), 'templates' (the composing "
        "one, docs/spec.md 12.9: line templates with numbers and identifiers as tokens of their own) or "
        "'numbers' (12.11: line templates with only integer literals as holes, digits tokens of their own)",
    )


class SFTSection(_Section):
    epochs: float = Field(default=20.0, ge=0.0, description="0 skips SFT (a base model used as it is)")
    learning_rate: float = Field(default=3e-3, gt=0)
    batch_size: int = Field(default=8, ge=1)
    fit_parse_share: float | None = Field(
        default=None,
        gt=0,
        le=1,
        description="the training-fit rule (docs/spec.md 12.10): SFT runs until this share of samples on "
        "the training prompts parse, checked every fit_check_every epochs, at most fit_max_epochs "
        "(epochs is then unused); None: a fixed `epochs`",
    )
    fit_check_every: float = Field(default=4.0, gt=0)
    fit_max_epochs: float = Field(default=40.0, gt=0)

    @model_validator(mode="after")
    def _fit(self) -> SFTSection:
        if self.fit_parse_share is not None and self.fit_check_every > self.fit_max_epochs:
            raise ValueError("fit_check_every is more than fit_max_epochs")
        return self


class RepairSection(_Section):
    """The repair arm (trainer/repair.py): from the SFT checkpoint, a warm-up SFT on repair-shaped
    examples of the corpus, then GRPO on multi-turn repair rollouts (or, `repair_only`, single-turn
    GRPO whose prompts are the SFT policy's failed attempts with their feedback)."""

    mode: Literal["multi_turn", "repair_only"] = "multi_turn"
    turns: int = Field(default=3, ge=2, description="attempts per rollout, and in the repair evaluation")
    steps: int | None = Field(default=None, ge=1, description="GRPO steps of the arm; default: grpo.steps")
    k: int | Literal["inf"] = Field(default="inf", description="R_k the final program must pass")
    pass_reward: float = 1.0
    fail_reward: float = -1.0
    invalid_turn_penalty: float = Field(default=0.2, ge=0, description="per attempt without valid code")
    warmup_epochs: float = Field(
        default=4.0,
        ge=0,
        description="SFT epochs over the repair-shaped examples and the corpus before repair training; "
        "0: none (a policy that never saw a feedback turn)",
    )


class SessionSection(_Section):
    """The session arm (trainer/replication/session_arm.py, docs/spec.md 12.6): for each setting, the tool-use one
    (python calls, then the program) and the agentic one (shell commands and file edits, then a
    submitted file): scripted episodes of the corpus's programs in real judge sessions, an SFT warm-up
    on them from the SFT checkpoint, GRPO lax (R_{lax_k}) and strict (R_{strict_k}) per seed from the
    warm-up, merges of the first seed's pair at `alphas`, and every checkpoint evaluated in sessions."""

    settings: list[Literal["tool", "agentic"]] = Field(default=["tool", "agentic"], min_length=1)
    turns: int = Field(default=4, ge=3, description="policy turns per rollout at most (episodes take 3)")
    seeds: list[int] = Field(default=[0], min_length=1, description="GRPO seeds of each endpoint")
    steps: int | None = Field(default=None, ge=1, description="GRPO steps per run; default: grpo.steps")
    warmup_epochs: float = Field(default=4.0, gt=0, description="SFT epochs over the transcripts")
    alphas: list[float] = Field(default=[-1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0], min_length=2)
    n_samples: int = Field(default=4, ge=1, description="evaluation episodes per problem and checkpoint")
    max_turn_tokens: int | None = Field(
        default=None, ge=8, description="tokens per policy turn; default: grpo.max_completion_length + 64"
    )
    exec_timeout_s: float = Field(default=10.0, gt=0, le=600, description="per tool call")
    max_observation_chars: int = Field(default=512, ge=64, description="an observation is cut to this")
    k_family: list[int | Literal["inf"]] | None = Field(
        default=None,
        description="the session k-family (findings 2): one GRPO run per k from the warm-up, as the "
        "endpoints; a k equal to lax_k or strict_k is that endpoint; None: grpo.k_family; []: none",
    )
    partial_credit: bool = Field(
        default=True,
        description="with grpo.partial_credit, its arm in each setting too (finding 5): GRPO from the "
        "warm-up rewarded with that partial credit of the submission",
    )
    repair: bool = Field(
        default=True,
        description="with grpo.repair, its arm in each setting too (finding 5): GRPO from the warm-up on "
        "episodes in which a failed submission's feedback is followed by another try",
    )

    @model_validator(mode="before")
    @classmethod
    def _one_setting(cls, data: Any) -> Any:
        if isinstance(data, dict) and "setting" in data:  # the older spelling: one setting
            data = {**data, "settings": [data["setting"]]}
            data.pop("setting")
        return data

    @field_validator("alphas")
    @classmethod
    def _alphas(cls, v: list[float]) -> list[float]:
        from merger.models import check_alphas

        return check_alphas(v)

    @field_validator("settings", "seeds", "k_family")
    @classmethod
    def _distinct(cls, v: list | None) -> list | None:
        if v is not None and len(set(map(str, v))) != len(v):
            raise ValueError("listed twice")
        return v


class GRPOSection(_Section):
    """Both runs share everything here but the reward's k."""

    lax_k: int = Field(default=2, ge=1, description="R_k of the lax run: tests with input < 10^k bytes")
    strict_k: int | Literal["inf"] = "inf"
    steps: int = Field(default=24, ge=1)
    num_generations: int = Field(default=8, ge=2)
    prompts_per_step: int = Field(default=2, ge=1)
    learning_rate: float = Field(default=5e-4, gt=0)
    temperature: float = Field(default=1.0, gt=0)
    max_completion_length: int = Field(default=320, ge=8)
    beta: float = Field(default=0.0, ge=0)
    num_iterations: int = Field(default=1, ge=1, description="updates per generated (and judged) batch")
    partial_credit: Literal["discrete", "continuous"] | None = Field(
        default=None,
        description="a third arm from the same SFT checkpoint rewarded with partial credit (the fraction "
        "of the nested scopes passed, or of the tests passed), evaluated beside the sweep",
    )
    repair: RepairSection | None = Field(
        default=None,
        description="a fourth arm from the same SFT checkpoint: failure-conditioned repair training, "
        "evaluated beside the sweep, with the repair rate of every arm",
    )
    session: SessionSection | None = Field(
        default=None,
        description="one more arm from the same SFT checkpoint: multi-turn rollouts in a judge session "
        "(the tool-use or agentic setting), with its training curve in the report",
    )
    endpoint_seeds: list[int] = Field(
        default_factory=list,
        description="more GRPO seeds of the lax and strict runs beside `seed`, each pair from the same SFT "
        "checkpoint and evaluated beside the sweep (the endpoints' intervals over seeds); the merge uses "
        "the `seed` pair",
    )
    k_family: list[int | Literal["inf"]] = Field(
        default_factory=list,
        description="the k-family arm: one GRPO run per k (R_k) from the same SFT checkpoint and budget, "
        "evaluated beside the sweep; a k equal to lax_k or strict_k is that run",
    )
    use_vllm: bool = False

    @field_validator("endpoint_seeds", "k_family")
    @classmethod
    def _distinct(cls, v: list) -> list:
        if len(set(map(str, v))) != len(v):
            raise ValueError("values must be distinct")
        return v


class ClaimsSection(_Section):
    """The claims table's rule parameters (docs/spec.md 12.6), fixed before the run."""

    unchanged_tolerance: float = Field(default=0.10, ge=0, le=1, description="finding 1: |Δ correct| at most")
    stable_format_margin: float = Field(
        default=0.10,
        ge=0,
        le=1,
        description="finding 3: format errors in [-0.5, 1.5] above the endpoints' at most",
    )
    order_rho: float = Field(default=-0.5, ge=-1, le=1, description="finding 2: Spearman rho(k, opt) at most")
    hard_max_sft_correct: float = Field(
        default=0.5, ge=0, le=1, description="finding 4: hard = the SFT policy's correct share at most this"
    )
    hard_difficulties: list[str] = Field(
        default_factory=list,
        description="finding 4: hard = the evaluation problems whose problem.json difficulty is one of "
        "these (LiveCodeBench's 'hard'), instead of the SFT policy's correct share; empty: by that share",
    )


class SweepSection(_Section):
    alphas: list[float] = Field(default=[-1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0], min_length=2)
    n_samples: int = Field(default=8, ge=1)
    temperature: float = Field(default=0.8, ge=0)
    max_tokens: int = Field(default=320, ge=8)
    dtype: Literal["bfloat16", "float16", "float32"] | None = None
    backend: Literal["auto", "vllm", "transformers"] = "auto"

    @field_validator("alphas")
    @classmethod
    def _alphas(cls, v: list[float]) -> list[float]:
        from merger.models import check_alphas

        return check_alphas(v)


class TierSection(_Section):
    """One evaluation tier (docs/spec.md 12.9): which of the evaluation benchmark's problems, by id or
    by the families miniature's `metadata.family` and `metadata.instance`."""

    problems: list[str] = Field(default_factory=list, description="these problems; empty: by the filters")
    families: list[str] = Field(default_factory=list, description="only these metadata.family; empty: any")
    instances: list[int] = Field(default_factory=list, description="only these metadata.instance; empty: any")
    new_families: bool = Field(
        default=False,
        description="held-out families: the run refuses a tier problem whose metadata.family is a "
        "training problem's",
    )

    @model_validator(mode="after")
    def _something(self) -> TierSection:
        if not (self.problems or self.families or self.instances):
            raise ValueError("a tier names problems, or families and/or instances")
        return self


class ProblemSetSection(_Section):
    """One side of the split: a benchmark and which of its problems (docs/spec.md 12.1). The filters
    select by problem.json: `released_from`/`released_to` by `metadata.contest_date` (LiveCodeBench's
    release date; a problem without one is left out when a bound is given), `difficulties` by
    `difficulty`, `families`/`instances` by `metadata.family`/`metadata.instance` (the families
    miniature, docs/spec.md 12.9); a listed problem the filters leave out is an error. The evaluation
    set may instead be given as `tiers` (its problems: the tiers' union, evaluated once, reported tier
    by tier) with `claims_tier` the one the claims are decided on; the others are exploratory."""

    benchmark: str = Field(default="bundled", description="'bundled', 'families' or a directory of problems")
    problems: list[str] = Field(default_factory=list, description="a subset of the benchmark; empty: all")
    released_from: date | None = Field(default=None, description="contest_date on or after this day")
    released_to: date | None = Field(default=None, description="contest_date on or before this day")
    difficulties: list[str] = Field(default_factory=list, description="only these difficulties; empty: any")
    families: list[str] = Field(default_factory=list, description="only these metadata.family; empty: any")
    instances: list[int] = Field(default_factory=list, description="only these metadata.instance; empty: any")
    tiers: dict[str, TierSection] = Field(
        default_factory=dict, description="[eval] only: named tiers, reported apart; empty: one set"
    )
    exclude_eval_programs: bool = Field(
        default=False,
        description="[train] only (docs/spec.md 12.11): leave out every training problem whose reference "
        "program (ref.py), up to the names it binds, is an evaluation problem's; summary.json's "
        "split.excluded lists them",
    )
    claims_tier: str | None = Field(
        default=None, description="with tiers: the tier the claims are decided on"
    )

    @model_validator(mode="after")
    def _window(self) -> ProblemSetSection:
        if self.released_from and self.released_to and self.released_from > self.released_to:
            raise ValueError("released_from is after released_to")
        if self.tiers:
            if self.problems or self.families or self.instances:
                raise ValueError("with tiers, the set is the tiers' union: name problems in the tiers only")
            if self.claims_tier not in self.tiers:
                raise ValueError(
                    f"claims_tier {self.claims_tier!r} is not one of the tiers ({', '.join(self.tiers)})"
                )
        elif self.claims_tier is not None:
            raise ValueError("claims_tier names a tier, and there are no tiers")
        if self.tiers and self.exclude_eval_programs:
            raise ValueError("exclude_eval_programs is a [train] setting")
        return self


class PilotSection(_Section):
    """The difficulty pilot (docs/spec.md 12.9), before any GRPO step: an SFT-only policy per rung of
    the ladder (efficient programs per training problem; the other kinds as [corpus]), each measured
    on `tier` (the sweep's n_samples and temperature); the design is the first rung, in the ladder's
    order, whose correct share lies in `window`; none: "difficulty not matched", no claim decided."""

    ladder: list[int] = Field(default=[4, 3, 2, 1], min_length=1, description="[corpus] efficient per rung")
    window: tuple[float, float] = Field(default=(0.20, 0.60), description="the correct share that matches")
    tier: str = Field(default="tier1", description="the evaluation tier the shares are measured on")
    end_below_window: bool = Field(
        default=True,
        description="docs/spec.md 12.10: a rung whose share lies below the window ends the ladder "
        "(false: 12.9's rule, every rung until a match)",
    )

    @model_validator(mode="after")
    def _valid(self) -> PilotSection:
        if not 0 <= self.window[0] <= self.window[1] <= 1:
            raise ValueError(f"window {list(self.window)}: two shares, low <= high, in [0, 1]")
        if any(r < 1 for r in self.ladder) or len(set(self.ladder)) != len(self.ladder):
            raise ValueError("ladder: distinct counts of at least 1")
        return self


ONE_SET_FOR_BOTH = (
    "top-level `benchmark` and `problems` named one set for both training and evaluation; a run now "
    "trains on [train] and measures on [eval], two sets that share no problem (docs/spec.md 12.1): "
    'e.g. [train] problems = [...] and [eval] problems = [...], each with its own benchmark (default "bundled")'
)


class ReplicateConfig(_Section):
    name: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_.\-]+$")
    seed: int = 0
    train: ProblemSetSection = Field(description="what the policy is trained on: corpus, SFT, GRPO")
    eval: ProblemSetSection = Field(description="what every figure is measured on, held out from train")
    corpus: CorpusSection = CorpusSection()
    policy: PolicySection = PolicySection()
    sft: SFTSection = SFTSection()
    grpo: GRPOSection = GRPOSection()
    sweep: SweepSection = SweepSection()
    claims: ClaimsSection = ClaimsSection()
    pilot: PilotSection | None = Field(
        default=None, description="the difficulty pilot (docs/spec.md 12.9); none: the [corpus] as given"
    )
    bootstrap_resamples: int = Field(default=1000, ge=100)
    require_checks: bool = Field(
        default=False, description="fail (exit 1) when one of the report's checks is false: the demo's claims"
    )
    torch_threads: int = Field(
        default=1,
        ge=1,
        description="CPU threads per torch process (trainer, evaluator worker): the sandbox's programs run "
        "beside them, and a tiny model on two spinning threads that must share the cores with them is ten "
        "times slower than on one",
    )

    @model_validator(mode="before")
    @classmethod
    def _split_named(cls, data: Any) -> Any:
        if isinstance(data, dict):
            if "benchmark" in data or "problems" in data:
                raise ValueError(ONE_SET_FOR_BOTH)
            missing = [s for s in ("train", "eval") if s not in data]
            if missing:
                raise ValueError(
                    f"no [{'] or ['.join(missing)}] section: a run names its training set [train] and its "
                    "evaluation set [eval] (benchmark and problems each; docs/spec.md 12.1)"
                )
        return data

    @model_validator(mode="after")
    def _tiers(self) -> ReplicateConfig:
        if self.train.tiers:
            raise ValueError("[train] has no tiers: tiers are the evaluation set's (docs/spec.md 12.9)")
        if self.pilot and self.pilot.tier not in self.eval.tiers:
            raise ValueError(
                f"pilot.tier {self.pilot.tier!r} is not one of [eval]'s tiers ({', '.join(self.eval.tiers) or 'none'})"
            )
        return self
