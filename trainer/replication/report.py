"""The replication's report: `summary.json` (machine-readable), `report.md` (for people) and PNG plots,
all computed from what the stages wrote: the GRPO runs' logs and the evaluator's judged samples.

The numbers are pure functions of those files (`summarize`); the statements in the report are
generated from the numbers, so they say what this run measured, whatever that is.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from services.evaluator.metrics import (
    OUTCOMES,
    bootstrap_interval,
    is_interpolated,
    pool_pass_at_budget,
)
from services.evaluator.records import SAMPLES_FILE, SampleRecord, read_samples
from services.passk import mean_pass_at_k, report_ks
from trainer.replication.claims import DEFAULTS as CLAIM_DEFAULTS
from trainer.replication.claims import claims, claims_markdown, k_family, k_value
from trainer.replication.pilot import difficulty_markdown

FAILURES = ("optimization_failure", "correctness_failure")
ARM_NAMES = {
    "sft": "SFT",
    "lax": "GRPO lax",
    "strict": "GRPO strict",
    "partial": "the partial-credit run",
    "repair_warmup": "the repair warm-up (SFT only)",
    "repair": "the repair-trained run",
}
SHORT = {
    "correct": "correct",
    "optimization_failure": "optimization failures",
    "correctness_failure": "correctness failures",
    "format_error": "format errors",
}


# -- training logs (pure) ---------------------------------------------------------------------------
def training_curve(log_history: list[dict]) -> list[dict]:
    """One row per logged GRPO step: mean reward, outcome fractions, generation and judging seconds."""
    rows = []
    for entry in log_history:
        if "reward" not in entry or "step" not in entry:
            continue
        row = {"step": entry["step"], "reward": entry["reward"]}
        for key, value in entry.items():
            if key.startswith("judge/") or key.startswith("time/"):
                row[key] = value
        rows.append(row)
    return rows


def first_last(values: list[float], fraction: float = 0.2) -> tuple[float, float]:
    """Means over the first and the last `fraction` of the values (at least one value each)."""
    if not values:
        raise ValueError("no logged steps")
    m = max(1, round(fraction * len(values)))
    return sum(values[:m]) / m, sum(values[-m:]) / m


# -- judged samples (pure) --------------------------------------------------------------------------
def per_problem_fractions(records: list[SampleRecord]) -> dict[str, dict[str, float]]:
    """problem -> outcome -> fraction of that problem's judged samples."""
    by_problem: dict[str, list[str]] = defaultdict(list)
    for r in records:
        if r.status == "ok" and r.outcome is not None:
            by_problem[r.problem_id].append(r.outcome.value)
    return {p: {o: outs.count(o) / len(outs) for o in OUTCOMES} for p, outs in by_problem.items()}


def checkpoint_row(
    name: str, alpha: float | None, records: list[SampleRecord], resamples: int, seed: int
) -> dict:
    judged = [r for r in records if r.status == "ok"]
    fractions = {
        o: sum(r.outcome.value == o for r in judged) / len(judged) if judged else 0.0 for o in OUTCOMES
    }
    per_problem = per_problem_fractions(records)
    intervals = {
        o: list(bootstrap_interval([f[o] for f in per_problem.values()], resamples=resamples, seed=seed))
        if per_problem
        else [0.0, 0.0]
        for o in OUTCOMES
    }
    counts = solve_counts(records)
    n = min((c[0] for c in counts.values()), default=0)
    return {
        "name": name,
        "alpha": alpha,
        "checkpoint": name,
        "judged": len(judged),
        "judge_errors": len(records) - len(judged),
        **fractions,
        "interval95": intervals,
        "pass@1": mean_pass_at_k(counts.values(), 1) if counts else 0.0,
        "pass@k": {str(k): mean_pass_at_k(counts.values(), k) for k in report_ks(n)} if n else {},
        "solved": sorted(p for p, (_, c) in counts.items() if c),
        "per_problem": per_problem,  # problem -> outcome -> share (the claims' intervals over problems)
    }


def solve_counts(records: list[SampleRecord]) -> dict[str, tuple[int, int]]:
    """problem -> (judged samples, correct samples)."""
    out: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in records:
        if r.status == "ok":
            out[r.problem_id][0] += 1
            out[r.problem_id][1] += r.outcome.value == "correct"
    return {p: (n, c) for p, (n, c) in out.items()}


def reward_of(rewards: dict[str, int] | None, k: int | str) -> int | None:
    """`R_k` of one judged sample from the rewards the judge reported (docs/spec.md 4.4): the reported
    value; 0 for every k when none were reported (a format error, a session episode without a
    submission); R_inf's for an integer k above every reported one (the judge's default ks stop at the
    k whose scope holds every test, so a larger k's scope is every test too); None when it cannot be
    told (a judge error, or a k below or between the reported ones)."""
    if rewards is None:
        return None
    if not rewards:
        return 0
    key = f"R_{k}"
    if key in rewards:
        return rewards[key]
    reported = [int(name[2:]) for name in rewards if name[2:].isdigit()]
    if k != "inf" and reported and int(k) > max(reported) and "R_inf" in rewards:
        return rewards["R_inf"]
    return None


def reward_agreement(records: list[SampleRecord], ks: list[int | str]) -> dict:
    """Which of `ks` give the same reward on every judged sample: `groups` (each two or more ks, in
    the order of `ks`, whose `R_k` agree on every sample counted), `samples` (those counted: judged,
    every k's reward known, see `reward_of`), `left_out` (the others) and `ks`. Agreement on every
    sample is equality of the ks' reward vectors, so the groups are disjoint."""
    counted: list[tuple[int, ...]] = []
    for r in records:
        values = tuple(reward_of(r.rewards, k) for k in ks) if r.status == "ok" else (None,)
        if None not in values:
            counted.append(values)
    by_vector: dict[tuple[int, ...], list[int | str]] = defaultdict(list)
    for i, k in enumerate(ks):
        by_vector[tuple(v[i] for v in counted)].append(k)
    groups = [g for g in by_vector.values() if len(g) > 1] if counted else []
    return {
        "ks": list(ks),
        "samples": len(counted),
        "left_out": len(records) - len(counted),
        "groups": groups,
    }


def trained_ks(grpo: Any, family: list | None = None) -> list[int | str]:
    """The ks a setting trains with: its k-family (`family`, else `grpo.k_family`) and the endpoints'
    `lax_k` and `strict_k`, each once, ascending (`inf` last)."""
    ks = [
        *(family if family is not None else getattr(grpo, "k_family", None) or []),
        grpo.lax_k,
        grpo.strict_k,
    ]
    return sorted(dict.fromkeys(ks), key=k_value)


def pools(sweep: list[dict], counts: dict[str, dict[str, tuple[int, int]]], budget: int) -> dict[str, dict]:
    """pass@B at one matched budget B for three pools of the sweep's checkpoints: the best single
    checkpoint, interpolation only (0 <= alpha <= 1), and interpolation plus extrapolation (all)."""
    problems = sorted(set.intersection(*(set(counts[r["name"]]) for r in sweep)))

    def pool_value(names: list[str]) -> float:
        return sum(pool_pass_at_budget([counts[n][p] for n in names], budget) for p in problems) / len(
            problems
        )

    singles = {r["name"]: pool_value([r["name"]]) for r in sweep}
    best = max(singles, key=singles.get)
    interp = [r["name"] for r in sweep if is_interpolated(r["alpha"])]
    everything = [r["name"] for r in sweep]
    return {
        "budget": budget,
        "problems": len(problems),
        "best_single": {"checkpoints": [best], "pass@B": singles[best]},
        "interpolation": {"checkpoints": interp, "pass@B": pool_value(interp)},
        "interpolation_extrapolation": {"checkpoints": everything, "pass@B": pool_value(everything)},
        "singles": singles,
    }


def hard_pools(
    sweep: list[dict],
    counts: dict[str, dict[str, tuple[int, int]]],
    hard: list[str],
    budget: int,
    resamples: int,
    seed: int,
) -> dict | None:
    """`pools` on the hard problems only, with the pool of every alpha against the best single
    checkpoint per problem: their difference's 95% bootstrap interval over those problems."""
    problems = sorted(set(hard).intersection(*(set(counts[r["name"]]) for r in sweep)))
    if not problems:
        return None
    sub = {name: {p: c[p] for p in problems if p in c} for name, c in counts.items()}
    out = pools(sweep, sub, budget)
    everything = [r["name"] for r in sweep]
    best = out["best_single"]["checkpoints"][0]
    diffs = [
        pool_pass_at_budget([sub[n][p] for n in everything], budget)
        - pool_pass_at_budget([sub[best][p]], budget)
        for p in problems
    ]
    point = sum(diffs) / len(diffs)
    lo, hi = bootstrap_interval(diffs, resamples=resamples, seed=seed)
    return {**out, "hard_problems": problems, "difference": {"point": point, "interval95": [lo, hi]}}


def churn(sweep: list[dict]) -> dict[str, Any]:
    """Which problems each alpha solves (any correct sample), and which only it solves."""
    solved = {r["name"]: set(r["solved"]) for r in sweep}
    unique = {
        name: sorted(s - set().union(*(o for other, o in solved.items() if other != name)))
        for name, s in solved.items()
    }
    extrapolated = [r["name"] for r in sweep if r["alpha"] is not None and not is_interpolated(r["alpha"])]
    interp_union = set().union(*(solved[r["name"]] for r in sweep if is_interpolated(r["alpha"])))
    only_extrapolation = (
        sorted(set().union(*(solved[n] for n in extrapolated)) - interp_union) if extrapolated else []
    )
    return {
        "solved": {k: sorted(v) for k, v in solved.items()},
        "unique": unique,
        "solved_only_by_extrapolation": only_extrapolation,
    }


def frontier_position(row: dict, sweep: list[dict]) -> dict:
    """Where a checkpoint outside the sweep (an arm) stands against the sweep's frontier: the sweep
    points that dominate it (no more failures of either kind, fewer of one), and its correct fraction
    against the best sweep point's, by their 95% intervals. It moves the frontier outward when nothing
    dominates it and its correct fraction is above the best sweep point's beyond the intervals."""
    dominated_by = [
        r["alpha"]
        for r in sweep
        if all(r[o] <= row[o] for o in FAILURES) and any(r[o] < row[o] for o in FAILURES)
    ]
    best = max(sweep, key=lambda r: r["correct"])
    (lo, hi), (best_lo, best_hi) = row["interval95"]["correct"], best["interval95"]["correct"]
    correct = "above" if lo > best_hi else "below" if hi < best_lo else "within"
    return {
        "dominated_by": dominated_by,
        "best_alpha": best["alpha"],
        "correct_vs_best": correct,
        "moves_frontier_outward": not dominated_by and correct == "above",
    }


def _fmt(x: float) -> str:
    return f"{100 * x:.0f}%"


def _with_interval(row: dict, outcome: str) -> str:
    lo, hi = row["interval95"][outcome]
    return f"{_fmt(row[outcome])} [{_fmt(lo)}, {_fmt(hi)}]"


def statements(summary: dict) -> list[str]:
    """Sentences generated from the measured numbers (nothing here is written in advance)."""
    out = []
    for arm in ("lax", "strict"):
        r = summary["runs"][arm]
        change = "rose" if r["reward_last"] > r["reward_first"] else "did not rise"
        out.append(
            f"GRPO {arm} (R_{r['k']}, {r['steps']} steps): mean reward {change} from {r['reward_first']:.2f} "
            f"(first 20% of steps) to {r['reward_last']:.2f} (last 20%)."
        )
    by_alpha = {row["alpha"]: row for row in summary["sweep"]}
    lax, strict = by_alpha.get(0.0), by_alpha.get(1.0)
    if lax and strict:
        for outcome in FAILURES:
            separated = _separated(lax, strict, outcome)
            if lax[outcome] == strict[outcome]:
                claim = f"Both endpoints have as many {SHORT[outcome]}"
            else:
                more, less = ("lax", "strict") if lax[outcome] > strict[outcome] else ("strict", "lax")
                claim = f"The {more} endpoint has more {SHORT[outcome]} than the {less} one"
            out.append(
                f"{claim}: lax (alpha=0) "
                f"{_with_interval(lax, outcome)}, strict (alpha=1) {_with_interval(strict, outcome)} "
                f"(95% bootstrap intervals over problems; they {'do not overlap' if separated else 'overlap'})."
            )
    extrapolated = [row for row in summary["sweep"] if row["alpha"] < 0 or row["alpha"] > 1]
    if extrapolated and lax and strict:
        lowest = min(summary["sweep"], key=lambda row: row["optimization_failure"])
        best = max(summary["sweep"], key=lambda row: row["pass@1"])
        out.append(
            f"Along the sweep, alpha={lowest['alpha']:g} has the fewest optimization failures "
            f"({_with_interval(lowest, 'optimization_failure')}); alpha={best['alpha']:g} the highest pass@1 "
            f"({best['pass@1']:.3f})."
        )
    for pool in summary["ensemble"]["by_budget"]:
        b = pool["budget"]
        out.append(
            f"At a matched budget of {b} sample(s) per problem, pass@{b}: best single checkpoint "
            f"({pool['best_single']['checkpoints'][0]}) {pool['best_single']['pass@B']:.3f}, interpolation "
            f"pool {pool['interpolation']['pass@B']:.3f}, interpolation+extrapolation pool "
            f"{pool['interpolation_extrapolation']['pass@B']:.3f}."
        )
    partial = summary.get("partial_credit")
    if partial:
        out.append(
            f"The partial-credit run ({summary['runs']['partial']['k']}) ends at "
            f"{_with_interval(partial, 'optimization_failure')} optimization and "
            f"{_with_interval(partial, 'correctness_failure')} correctness failures, pass@1 {partial['pass@1']:.3f}."
        )
    repair = summary.get("repair")
    if repair and repair.get("row"):
        row = repair["row"]
        out.append(
            f"The repair-trained run ({summary['runs']['repair']['k']}, {repair['turns']} turns) ends at "
            f"{_with_interval(row, 'optimization_failure')} optimization and "
            f"{_with_interval(row, 'correctness_failure')} correctness failures on first attempts, "
            f"pass@1 {row['pass@1']:.3f}."
        )
    for arm, pos in (summary.get("frontier_position") or {}).items():
        by_alpha = {r["alpha"]: r for r in summary["sweep"]}
        best = by_alpha[pos["best_alpha"]]
        row = summary["partial_credit"] if arm == "partial" else summary["repair"]["rows"][arm]
        dominated = (
            "no sweep point dominates it"
            if not pos["dominated_by"]
            else "dominated by alpha=" + ", ".join(f"{a:g}" for a in pos["dominated_by"])
        )
        verdict = (
            "moves the frontier outward" if pos["moves_frontier_outward"] else "does not move the frontier"
        )
        name = ARM_NAMES.get(arm, arm)
        out.append(
            f"{name[0].upper()}{name[1:]}: correct {_with_interval(row, 'correct')} against the best sweep point "
            f"(alpha={pos['best_alpha']:g}) {_with_interval(best, 'correct')}, {pos['correct_vs_best']} it; "
            f"{dominated}: it {verdict} (95% bootstrap intervals over problems)."
        )
    if repair and repair.get("by_arm"):
        parts = []
        for arm, r in repair["by_arm"].items():
            rate = "n/a" if r["repair_rate"] is None else _fmt(r["repair_rate"])
            iv = r["interval95"]["repair_rate"]
            fiv = r["interval95"]["first_attempt_pass@1"]
            parts.append(
                f"{ARM_NAMES.get(arm, arm)} {rate}"
                + (f" [{_fmt(iv[0])}, {_fmt(iv[1])}]" if iv else "")
                + f" of {r['failed_first']} (first-attempt pass@1 {r['first_attempt_pass@1']:.3f} "
                f"[{fiv[0]:.3f}, {fiv[1]:.3f}])"
            )
        out.append(
            f"Repair rate (failed first attempts fixed within {repair['turns']} turns, with the judge's "
            f"feedback): " + "; ".join(parts) + "."
        )
    only = summary["churn"]["solved_only_by_extrapolation"]
    out.append(
        f"{len(only)} problem(s) are solved only by extrapolated checkpoints"
        + (f": {', '.join(only)}." if only else ".")
    )
    for name, setting in (summary.get("settings") or {}).items():
        line = agreement_statement(setting.get("reward_agreement"), name)
        if line:
            out.append(line)
    return out


def agreement_statement(agreement: dict | None, setting: str) -> str | None:
    """One sentence on `reward_agreement`'s groups in one setting: which ks' rewards agree on every
    sample counted, and how many samples that is; None with fewer than two ks or no sample."""
    if not agreement or len(agreement["ks"]) < 2 or not agreement["samples"]:
        return None
    where = "single-turn" if setting == "single" else f"{setting}-setting"
    names = ", ".join(f"R_{k}" for k in agreement["ks"])
    n, left = agreement["samples"], agreement["left_out"]
    covered = f"every one of the {n:,} judged {where} samples" + (
        f" ({left:,} left out: judge errors or a reward not reported)" if left else ""
    )
    if not agreement["groups"]:
        return f"No two of {names} agree on {covered}."
    groups = "; ".join(" = ".join(f"R_{k}" for k in g) for g in agreement["groups"])
    return f"Of {names}, these give the same reward on {covered}: {groups}."


def summarize(
    config: Any,
    policy: dict,
    runs: dict,
    records: list[SampleRecord],
    samples_path: Path,
    names: dict[str, str] | None = None,
    repaired: dict | None = None,
    settings: dict | None = None,
    split: dict | None = None,
) -> dict:
    """summary.json's content from the config, the stages' outputs and the judged samples (and, with
    the repair arm, the repair evaluation's summaries by arm). `settings`: the session arm's settings
    (`{"tool": ..., "agentic": ...}`, each in `settings.single`'s shape), put beside `single` before
    the claims are decided. `split`: `{"train": ids, "eval": ids}`; a sample of a problem outside
    `eval` (a training problem above all) is refused: every figure is over the held-out set."""
    resamples, seed = config.bootstrap_resamples, config.seed
    if split is not None:
        stray = sorted({r.problem_id for r in records} - set(split["eval"]))
        if stray:
            raise ValueError(f"samples of problems outside the evaluation set: {', '.join(stray)}")
    by_checkpoint: dict[str, list[SampleRecord]] = defaultdict(list)
    for r in records:
        by_checkpoint[r.checkpoint].append(r)
    rows = [
        checkpoint_row(name, recs[0].alpha, recs, resamples, seed) for name, recs in by_checkpoint.items()
    ]
    sweep = sorted((r for r in rows if r["alpha"] is not None), key=lambda r: r["alpha"])
    # checkpoints without an alpha: the SFT policy and, where it ran, the partial-credit arm
    names = names or {}
    endpoints = {r["name"]: r for r in rows if r["alpha"] is None}
    sft_name = names.get("sft") or next(iter(endpoints), None)
    sft_rows = [endpoints[sft_name]] if sft_name in endpoints else []
    partial_row = endpoints.get(names.get("partial", ""))
    run_summaries = {}
    for arm, out in runs.items():
        if arm == "repair_warmup":  # an SFT run: no rewards to follow
            continue
        curve = training_curve(json.loads(Path(out["log"]).read_text()))
        first, last = first_last([c["reward"] for c in curve])
        run_summaries[arm] = {
            "k": out["k"],
            "steps": len(curve),
            "reward_first": first,
            "reward_last": last,
            "checkpoint": out["checkpoint"],
            "curve": curve,
        }
    counts = {name: solve_counts(recs) for name, recs in by_checkpoint.items()}
    summary = {
        "config": config.model_dump(mode="json"),
        "split": split,
        "sft": {
            "checkpoint": policy["checkpoint"],
            "corpus": policy.get("corpus"),
            "examples": policy.get("examples"),
            "kinds": policy.get("kinds"),
            "outcomes": {o: sft_rows[0][o] for o in OUTCOMES} if sft_rows else None,
            "interval95": sft_rows[0]["interval95"] if sft_rows else None,
            "judged": sft_rows[0]["judged"] if sft_rows else 0,
            "pass@1": sft_rows[0]["pass@1"] if sft_rows else None,
        },
        "runs": run_summaries,
        "sweep": sweep,
        "ensemble": {
            **pools(sweep, counts, config.sweep.n_samples),
            "by_budget": [pools(sweep, counts, b) for b in report_ks(config.sweep.n_samples)],
        },
        "churn": churn(sweep),
        "partial_credit": partial_row,
        "samples": str(samples_path),
    }
    arm_rows = {a: endpoints[names[a]] for a in ("repair_warmup", "repair") if names.get(a) in endpoints}
    repair_cfg = getattr(config.grpo, "repair", None)
    if repair_cfg is not None:
        summary["repair"] = {
            "mode": repair_cfg.mode,
            "turns": repair_cfg.turns,
            "row": arm_rows.get("repair"),
            "rows": arm_rows,
            "warmup_examples": runs.get("repair_warmup", {}).get("examples"),
            "by_arm": (repaired or {}).get("by_arm"),
        }
    rows_by_arm = {**({"partial": partial_row} if partial_row else {}), **arm_rows}
    summary["frontier_position"] = (
        {arm: frontier_position(row, sweep) for arm, row in rows_by_arm.items()} if sweep else {}
    )
    summary["sft"]["parseable"] = parseable_fraction(
        by_checkpoint.get(sft_rows[0]["name"], []) if sft_rows else []
    )
    # the claims' inputs: the single-turn setting (endpoints per seed, the sweep), the k-family, the hard
    # problems' pools (docs/spec.md 12.6)
    by_alpha = {r["alpha"]: r for r in sweep}
    seed_rows = {
        end: [r for r in [by_alpha.get(float(alpha))] if r]
        + [
            endpoints[names[arm]]
            for arm in sorted(runs, key=_seed_of)
            if arm.startswith(f"{end}_seed") and names.get(arm) in endpoints
        ]
        for end, alpha in (("lax", 0), ("strict", 1))
    }
    single = {
        "endpoints": seed_rows,
        "sweep": sweep,
        "reward_agreement": reward_agreement(records, trained_ks(config.grpo)),
    }
    summary["settings"] = {"single": single, **(settings or {})}
    claims_cfg = getattr(config, "claims", None)
    params = claims_cfg.model_dump() if claims_cfg is not None else {}
    threshold = params.get("hard_max_sft_correct", CLAIM_DEFAULTS["hard_max_sft_correct"])
    session_cfg = getattr(config.grpo, "session", None)
    # the hard problems by the eval set's own difficulty field (LiveCodeBench's "hard"), where the
    # claims section names difficulties; else by the SFT (or warm-up) policy's correct share
    by_difficulty = params.get("hard_difficulties") or []
    hard_ids = (
        sorted(p for p, d in ((split or {}).get("eval_difficulty") or {}).items() if d in by_difficulty)
        if by_difficulty
        else None
    )
    for name in settings or {}:
        summary["settings"][name] = {
            **summary["settings"][name],
            **session_measures(
                summary["settings"][name],
                config.grpo,
                threshold,
                session_cfg.n_samples if session_cfg else 1,
                resamples,
                seed,
                hard_ids=hard_ids,
                basis=f"difficulty {', '.join(by_difficulty)}" if by_difficulty else None,
            ),
        }
    family = []
    grpo = config.grpo
    for k in getattr(grpo, "k_family", None) or []:
        if k == grpo.lax_k and 0.0 in by_alpha:
            family.append({"k": k, "row": by_alpha[0.0], "endpoint": "lax"})
        elif k == grpo.strict_k and 1.0 in by_alpha:
            family.append({"k": k, "row": by_alpha[1.0], "endpoint": "strict"})
        elif names.get(k_arm(k)) in endpoints:
            family.append({"k": k, "row": endpoints[names[k_arm(k)]], "endpoint": None})
    summary["k_family"] = {"runs": k_family(family, sweep)} if family else None
    if hard_ids is not None:
        hard, basis = hard_ids, f"difficulty {', '.join(by_difficulty)}"
    else:
        hard = (
            sorted(p for p, f in sft_rows[0]["per_problem"].items() if f["correct"] <= threshold)
            if sft_rows
            else []
        )
        basis = f"SFT correct share <= {_fmt(threshold)}"
    if sweep and hard:
        summary["ensemble"]["hard"] = {
            **(hard_pools(sweep, counts, hard, config.sweep.n_samples, resamples, seed) or {}),
            "threshold": threshold,
            "basis": basis,
            "by_budget": [
                hard_pools(sweep, counts, hard, b, resamples, seed) for b in report_ks(config.sweep.n_samples)
            ],
        }
    summary["claims"] = claims(summary, params)
    summary["checks"] = checks(summary)
    summary["statements"] = statements(summary)
    return summary


def session_measures(
    setting: dict,
    grpo: Any,
    threshold: float,
    budget: int,
    resamples: int,
    seed: int,
    *,
    hard_ids: list[str] | None = None,
    basis: str | None = None,
) -> dict:
    """Findings 2, 4 and 5's inputs in one session setting, as the single-turn ones (docs/spec.md
    12.7): `k_family` ({"runs": ...} as summary's; the endpoints are the sweep's alpha 0 and 1),
    `frontier_position` (partial, repair against this setting's sweep), `churn` (along its sweep) and
    `hard` (its pools on its hard problems: the warm-up checkpoint's correct share at most
    `threshold`, or `hard_ids` where given (`basis` says how they were chosen), at the matched budget
    B = `budget`, the setting's episodes per problem), all from
    the setting's summary (its further arms' rows `arms` and ks `k_family_ks`) and its sweep's
    samples (`samples`)."""
    sweep = sorted(setting.get("sweep") or [], key=lambda r: r["alpha"])
    if not sweep:
        return {}
    arms = setting.get("arms") or {}
    by_alpha = {r["alpha"]: r for r in sweep}
    family = []
    for k in setting.get("k_family_ks") or []:
        if k == grpo.lax_k and 0.0 in by_alpha:
            family.append({"k": k, "row": by_alpha[0.0], "endpoint": "lax"})
        elif k == grpo.strict_k and 1.0 in by_alpha:
            family.append({"k": k, "row": by_alpha[1.0], "endpoint": "strict"})
        elif k_arm(k) in arms:
            family.append({"k": k, "row": arms[k_arm(k)], "endpoint": None})
    out: dict[str, Any] = {
        "k_family": {"runs": k_family(family, sweep)} if family else None,
        "frontier_position": {
            a: frontier_position(arms[a], sweep) for a in ("partial", "repair") if a in arms
        },
        "churn": churn(sweep),
    }
    records = read_samples(Path(setting["samples"])) if setting.get("samples") else []
    arms_records = read_samples(Path(setting["arms_samples"])) if setting.get("arms_samples") else []
    # the session k-family: as its arms recorded it, else as configured (None: grpo.k_family)
    family = setting.get("k_family_ks", getattr(getattr(grpo, "session", None), "k_family", None))
    out["reward_agreement"] = reward_agreement(records + arms_records, trained_ks(grpo, family))
    names = {r["name"] for r in sweep}
    counts = {name: solve_counts([r for r in records if r.checkpoint == name]) for name in names}
    warm = (setting.get("rows") or {}).get("warmup")
    hard = (
        sorted(hard_ids)
        if hard_ids is not None
        else sorted(p for p, f in (warm or {}).get("per_problem", {}).items() if f["correct"] <= threshold)
    )
    # a judge error leaves a problem fewer episodes: the budget is what every checkpoint has
    budget = min([budget, *(n for c in counts.values() for p, (n, _) in c.items() if p in hard)])
    if hard and budget > 0 and all(counts.values()):
        pooled = hard_pools(sweep, counts, hard, budget, resamples, seed)
        if pooled:
            out["hard"] = {**pooled, "threshold": threshold, "basis": basis or "the warm-up checkpoint"}
    return out


def session_markdown(summary: dict) -> list[str]:
    """Per session setting: its endpoints, sweep and further arms (k-family, partial credit, repair)
    as rows, each k-run's distance from the setting's path, its hard problems' pools and churn."""
    lines: list[str] = []
    for name, st in (summary.get("settings") or {}).items():
        if name == "single" or not st.get("sweep"):
            continue
        lines += [
            "",
            f"## The {name} setting (session arm, seed {st.get('sweep_seed', 0)})",
            "",
            "| checkpoint | judged | correct | optimization failure | correctness failure | format error |",
            "| --- | ---: | ---: | ---: | ---: | ---: |",
        ]
        named = [
            (f"{e} (seed {sd})", r)
            for e in ("lax", "strict")
            for sd, r in zip(st.get("seeds") or [], (st.get("endpoints") or {}).get(e) or [], strict=False)
        ]
        named += [(f"alpha {r['alpha']:g}", r) for r in st["sweep"]]
        named += [(arm, r) for arm, r in (st.get("arms") or {}).items()]
        for label, r in named:
            lines.append(
                f"| {label} | {r['judged']} | " + " | ".join(_with_interval(r, o) for o in OUTCOMES) + " |"
            )
        for e in (st.get("k_family") or {}).get("runs") or []:
            lines.append(
                f"- R_{e['k']}{' (' + e['endpoint'] + ')' if e.get('endpoint') else ''}: distance to the path "
                f"{100 * e['distance_to_path']:.1f} pts (normalized {e['normalized_distance_to_path']:.2f})"
            )
        for arm, pos in (st.get("frontier_position") or {}).items():
            lines.append(
                f"- {arm}: correct {pos['correct_vs_best']} the best sweep point, dominated by "
                f"{len(pos['dominated_by'])} sweep point(s)"
            )
        hard = st.get("hard")
        if hard:
            d = hard["difference"]
            lines.append(
                f"- pools on {hard['problems']} hard problems ("
                + (
                    f"warm-up correct share <= {_fmt(hard['threshold'])}"
                    if hard.get("basis") == "the warm-up checkpoint"
                    else str(hard.get("basis"))
                )
                + "), "
                f"pass@{hard['budget']}: every alpha {hard['interpolation_extrapolation']['pass@B']:.3f}, best single "
                f"{hard['best_single']['pass@B']:.3f}, difference {d['point']:+.3f} "
                f"[{d['interval95'][0]:+.3f}, {d['interval95'][1]:+.3f}]"
            )
        churned = st.get("churn")
        if churned:
            only = churned["solved_only_by_extrapolation"]
            lines.append(
                "- solved per alpha: "
                + ", ".join(f"{n} {len(v)}" for n, v in churned["solved"].items())
                + f"; only by extrapolation: {', '.join(only) if only else 'none'}"
            )
    return lines


def k_arm(k) -> str:
    """The run name of the k-family's run for one k (a k equal to lax_k or strict_k is that run)."""
    return f"k_{k}"


def _seed_of(arm: str) -> int:
    return int(arm.rsplit("_seed", 1)[1]) if "_seed" in arm else -1


def parseable_fraction(records: list[SampleRecord]) -> float | None:
    """Samples that hold a program Python can compile: not a format error, not failing with CE."""
    judged = [r for r in records if r.status == "ok"]
    if not judged:
        return None
    bad = sum(
        r.outcome.value == "format_error" or (r.first_failure or {}).get("verdict") == "CE" for r in judged
    )
    return 1 - bad / len(judged)


def _separated(a: dict, b: dict, outcome: str) -> bool:
    (a_lo, a_hi), (b_lo, b_hi) = a["interval95"][outcome], b["interval95"][outcome]
    return a_lo > b_hi or b_lo > a_hi


def checks(summary: dict) -> dict[str, bool]:
    """What the replication claims, each true or false for this run (`make demo` fails on a false one)."""
    sft = summary["sft"]
    by_alpha = {row["alpha"]: row for row in summary["sweep"]}
    lax, strict = by_alpha.get(0.0), by_alpha.get(1.0)
    out = {
        "sft writes parseable programs (over half its samples)": (sft.get("parseable") or 0) > 0.5,
        "sft outcomes are mixed (some correct, some optimization and some correctness failures)": bool(
            sft["outcomes"] and all(sft["outcomes"][o] > 0 for o in ("correct", *FAILURES))
        ),
    }
    for arm in ("lax", "strict"):
        run = summary["runs"][arm]
        out[f"GRPO {arm}: reward_last > reward_first"] = run["reward_last"] > run["reward_first"]
    out["the endpoints' failure fractions differ beyond their 95% intervals"] = bool(
        lax and strict and any(_separated(lax, strict, o) for o in FAILURES)
    )
    return out


# -- files ------------------------------------------------------------------------------------------
def write_samples(records: list[SampleRecord], path: Path) -> Path:
    with path.open("w") as f:
        for r in records:
            f.write(
                json.dumps(
                    {
                        "problem_id": r.problem_id,
                        "checkpoint": r.checkpoint,
                        "alpha": r.alpha,
                        "sample_index": r.sample_index,
                        "status": r.status,
                        "completion": r.completion,
                        "outcome": r.outcome.value if r.outcome else None,
                        "rewards": r.rewards,
                        "first_failure": r.first_failure,
                    }
                )
                + "\n"
            )
    return path


def write_report(
    config: Any,
    run_dir: Path,
    policy: dict,
    runs: dict,
    merged: dict,
    evaluated: dict,
    repaired: dict | None = None,
    settings: dict | None = None,
    split: dict | None = None,
    difficulty: dict | None = None,
) -> dict:
    from trainer.replication import plots

    records = read_samples(Path(evaluated["run_dir"]) / SAMPLES_FILE)
    samples = write_samples(records, run_dir / "samples.jsonl")
    summary = summarize_tiers(
        config, policy, runs, records, samples, evaluated.get("names"), repaired, settings, split, difficulty
    )
    plot_dir = run_dir / "plots"
    plot_dir.mkdir(exist_ok=True)
    summary["plots"] = {name: str(plot_dir / f"{name}.png") for name in plots.PLOTS}
    for name, plot in plots.PLOTS.items():
        plot(summary, Path(summary["plots"][name]))
    for name, setting in (summary.get("settings") or {}).items():  # each session setting's own frontier
        if name != "single" and setting.get("sweep"):
            summary["plots"][f"frontier_{name}"] = str(plot_dir / f"frontier_{name}.png")
            plots.plot_setting_frontier(setting, name, Path(summary["plots"][f"frontier_{name}"]))
    summary["evaluator_report"] = evaluated.get("report_md")
    (run_dir / "summary.json").write_text(json.dumps(summary, indent=1))
    (run_dir / "report.md").write_text(render_markdown(summary, run_dir))
    return summary


def summarize_tiers(
    config: Any,
    policy: dict,
    runs: dict,
    records: list[SampleRecord],
    samples_path: Path,
    names: dict[str, str] | None = None,
    repaired: dict | None = None,
    settings: dict | None = None,
    split: dict | None = None,
    difficulty: dict | None = None,
) -> dict:
    """`summarize`, tier by tier where the evaluation set has tiers (docs/spec.md 12.9): the union was
    evaluated once; each tier's block (`summary["tiers"][name]`, the single-turn summary's shape) is
    summarized from its problems' samples, and the top level is the claims tier's, so the claims are
    decided on it alone; the other tiers' claims are exploratory, part of no verdict. With a pilot's
    `difficulty` that matched nothing, every claim is `not measured` with its reason."""
    from trainer.replication.pilot import unmatched_claims

    tiers = (split or {}).get("tiers") or {}
    if not tiers:
        summary = summarize(config, policy, runs, records, samples_path, names, repaired, settings, split)
    else:
        blocks = {}
        for name, ids in tiers.items():
            wanted = set(ids)
            sub_split = {**split, "eval": list(ids)}
            sub_split["eval_difficulty"] = {
                p: d for p, d in (split.get("eval_difficulty") or {}).items() if p in wanted
            }
            sub_split.pop("tiers", None)
            blocks[name] = summarize(
                config,
                policy,
                runs,
                [r for r in records if r.problem_id in wanted],
                samples_path,
                names,
                repaired,
                settings if name == split["claims_tier"] else None,
                sub_split,
            )
            blocks[name]["exploratory"] = name != split["claims_tier"]
        summary = {**blocks[split["claims_tier"]], "split": split}
        summary["tiers"] = {name: {k: v for k, v in b.items() if k != "config"} for name, b in blocks.items()}
    summary["difficulty"] = difficulty
    if difficulty and not difficulty["matched"]:
        summary["claims"] = unmatched_claims(summary["claims"], difficulty["reason"])
        for block in (summary.get("tiers") or {}).values():
            block["claims"] = unmatched_claims(block["claims"], difficulty["reason"])
    return summary


def tiers_markdown(summary: dict) -> list[str]:
    """One block per tier other than the claims tier (whose figures are the report's main body):
    its claims table and sweep, labelled exploratory."""
    split = summary.get("split") or {}
    lines = []
    for name, block in (summary.get("tiers") or {}).items():
        if name == split.get("claims_tier"):
            continue
        ids = split["tiers"][name]
        lines += [
            f"## Tier {name}: exploratory, part of no verdict ({len(ids)} problems: {', '.join(ids)})",
            "",
            "The same rules as the claims tier's, on this tier's samples of the same evaluation.",
            "",
            *(
                line.replace("## The paper's findings", f"### {name}: the paper's findings", 1)
                for line in claims_markdown(block.get("claims") or [])
            ),
            f"### {name}: the sweep",
            "",
            "| alpha | judged | correct | optimization failure | correctness failure | format error | pass@1 |",
            "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        for row in block["sweep"]:
            lines.append(
                f"| {row['alpha']:g} | {row['judged']} | "
                + " | ".join(_with_interval(row, o) for o in OUTCOMES)
                + f" | {row['pass@1']:.3f} |"
            )
        sft = block["sft"]
        if sft["outcomes"]:
            lines += [
                "",
                f"SFT checkpoint on {name}: {sft['judged']} judged samples, "
                + ", ".join(f"{SHORT[o]} {_fmt(sft['outcomes'][o])}" for o in OUTCOMES)
                + ".",
            ]
        lines.append("")
    return lines


# which set each section's figures are over; every other section: the evaluation set
TRAINING_SET_SECTIONS = ("## Training",)
BOTH_SETS_SECTIONS = ("## Policy (SFT)", "## Plots")


def split_markdown(summary: dict) -> list[str]:
    """The split, said before any figure: what was trained on and what every figure is over."""
    split, cfg = summary.get("split"), summary["config"]
    if not split:
        return []
    train, held_out = cfg.get("train") or {}, cfg.get("eval") or {}

    def window(side: dict) -> str:
        bounds = (side.get("released_from"), side.get("released_to"))
        parts = [f"released {bounds[0] or '...'} to {bounds[1] or '...'}"] if any(bounds) else []
        if side.get("difficulties"):
            parts.append(f"difficulty {', '.join(side['difficulties'])}")
        return f" ({'; '.join(parts)})" if parts else ""

    return [
        "## The split: trained on one set, measured on another",
        "",
        f"- **training set**: {len(split['train'])} problems of `{train.get('benchmark')}`"
        f"{window(train)}: {', '.join(split['train'])}",
        f"- **evaluation set** (held out: no problem shares an id, a statement or test data with a "
        f"training problem): {len(split['eval'])} problems of `{held_out.get('benchmark')}`"
        f"{window(held_out)}: {', '.join(split['eval'])}",
        *(
            f"  - tier **{name}** ({'the claims are decided on it' if name == split.get('claims_tier') else 'exploratory, part of no verdict'}): "
            f"{len(ids)} problems: {', '.join(ids)}"
            for name, ids in (split.get("tiers") or {}).items()
        ),
        *(
            [
                f"- **left out of the training set** (docs/spec.md 12.11: its reference program is an "
                f"evaluation problem's up to names): {len(split['excluded'])} problems: "
                + ", ".join(f"{t} ({h})" for t, h in sorted(split["excluded"].items()))
            ]
            if split.get("excluded")
            else []
        ),
        "",
        "Every figure below is over the evaluation set (the claims, the sweep, pass@k, the pools, churn, "
        "the session settings), but the training curves, which are rewards on the training set; each "
        "section's heading says which.",
        "",
    ]


def _tag_sets(lines: list[str], split: dict | None) -> list[str]:
    """Each `## ` heading with the set its figures are over."""
    if not split:
        return lines
    out = []
    held_out = "evaluation set"
    if split.get("tiers"):
        held_out = f"evaluation set, tier {split['claims_tier']}"
    for line in lines:
        if line.startswith(("## Difficulty", "## Tier ")):
            pass  # their headings say which tier
        elif line.startswith("## ") and not line.startswith("## The split"):
            if line.startswith(TRAINING_SET_SECTIONS):
                line += " [training set]"
            elif line.startswith(BOTH_SETS_SECTIONS):
                line += " [corpus and training curves: training set; samples: evaluation set]"
            elif line.startswith("## What was measured"):
                line += f" [{held_out}, but the GRPO rewards: training set]"
            else:
                line += f" [{held_out}]"
        out.append(line)
    return out


def render_markdown(summary: dict, run_dir: Path) -> str:
    return "\n".join(_tag_sets(_render_lines(summary, run_dir), summary.get("split")))


def _render_lines(summary: dict, run_dir: Path) -> list[str]:
    cfg = summary["config"]
    lines = [
        f"# Miniature replication: {cfg['name']}",
        "",
        *difficulty_markdown(summary.get("difficulty")),
        *split_markdown(summary),
        *claims_markdown(summary.get("claims") or []),
        "## What was measured",
        "",
        *(f"- {s}" for s in summary["statements"]),
        "",
        "## Policy (SFT)",
        "",
    ]
    sft = summary["sft"]
    if sft["outcomes"]:
        lines.append(
            f"{sft['examples']} corpus programs {sft['kinds']}; the SFT checkpoint on {sft['judged']} judged "
            "samples: " + ", ".join(f"{SHORT[o]} {_fmt(sft['outcomes'][o])}" for o in OUTCOMES) + "."
        )
    lines += [
        "",
        "## Training",
        "",
        "| run | k | steps | reward, first 20% | reward, last 20% |",
        "| --- | --- | ---: | ---: | ---: |",
    ]
    for arm, r in summary["runs"].items():
        lines.append(
            f"| {arm} | {r['k']} | {r['steps']} | {r['reward_first']:.3f} | {r['reward_last']:.3f} |"
        )
    lines += [
        "",
        "## The sweep (theta_a = a * theta_strict + (1 - a) * theta_lax)",
        "",
        "| alpha | judged | correct | optimization failure | correctness failure | format error | pass@1 |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in summary["sweep"]:
        lines.append(
            f"| {row['alpha']:g} | {row['judged']} | "
            + " | ".join(_with_interval(row, o) for o in OUTCOMES)
            + f" | {row['pass@1']:.3f} |"
        )
    if summary.get("partial_credit"):
        row = summary["partial_credit"]
        lines.append(
            f"| partial credit ({summary['runs']['partial']['k']}) | {row['judged']} | "
            + " | ".join(_with_interval(row, o) for o in OUTCOMES)
            + f" | {row['pass@1']:.3f} |"
        )
    for arm, row in ((summary.get("repair") or {}).get("rows") or {}).items():
        lines.append(
            f"| {ARM_NAMES[arm]} | {row['judged']} | "
            + " | ".join(_with_interval(row, o) for o in OUTCOMES)
            + f" | {row['pass@1']:.3f} |"
        )
    repair = summary.get("repair")
    if repair and repair.get("by_arm"):
        lines += [
            "",
            f"## Repair ({repair['turns']} turns, the judge's feedback after each failed attempt)",
            "",
            "| checkpoint | first-attempt pass@1 | failed first attempts | repaired | repair rate | "
            "pass@1 after repair |",
            "| --- | ---: | ---: | ---: | ---: | ---: |",
        ]
        for arm, r in repair["by_arm"].items():
            iv = r["interval95"]
            rate = (
                f"{_fmt(r['repair_rate'])} [{_fmt(iv['repair_rate'][0])}, {_fmt(iv['repair_rate'][1])}]"
                if r["repair_rate"] is not None
                else "n/a"
            )
            first, final = iv["first_attempt_pass@1"], iv["final_pass@1"]
            lines.append(
                f"| {ARM_NAMES.get(arm, arm)} | {r['first_attempt_pass@1']:.3f} [{first[0]:.3f}, {first[1]:.3f}] | "
                f"{r['failed_first']} | {r['repaired']} | {rate} | "
                f"{r['final_pass@1']:.3f} [{final[0]:.3f}, {final[1]:.3f}] |"
            )
    ends = ((summary.get("settings") or {}).get("single") or {}).get("endpoints") or {}
    if any(len(v) > 1 for v in ends.values()):
        lines += [
            "",
            "## The endpoints, one row per GRPO seed (alpha 0 and 1 are the `seed` pair)",
            "",
            "| endpoint | seed run | correct | optimization failure | correctness failure | format error |",
            "| --- | --- | ---: | ---: | ---: | ---: |",
        ]
        for end, rows in ends.items():
            for row in rows:
                lines.append(
                    f"| {end} | {row['name']} | "
                    + " | ".join(_with_interval(row, o) for o in OUTCOMES)
                    + " |"
                )
    family = (summary.get("k_family") or {}).get("runs") or []
    if family:
        lines += [
            "",
            "## The k-family against the interpolation path",
            "",
            "| R_k | correct | optimization failure | correctness failure | format error | distance to path | "
            "normalized | distance to the null line |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        for e in family:
            row = e["row"]
            null = e["distance_to_null"]
            lines.append(
                f"| {e['k']}{' (' + e['endpoint'] + ' run)' if e.get('endpoint') else ''} | "
                + " | ".join(_with_interval(row, o) for o in OUTCOMES)
                + f" | {100 * e['distance_to_path']:.1f} pts | {e['normalized_distance_to_path']:.2f} | "
                + ("n/a" if null is None else f"{100 * null:.1f} pts")
                + " |"
            )
    hard = summary["ensemble"].get("hard") or {}
    hard_budgets = [p for p in hard.get("by_budget") or [] if p]
    if hard_budgets:
        lines += [
            "",
            f"## Pools on the hard problems ({len(hard.get('hard_problems') or [])}: "
            f"{hard.get('basis') or 'SFT correct share <= ' + _fmt(hard['threshold'])})",
            "",
            "| pool | " + " | ".join(f"pass@{p['budget']}" for p in hard_budgets) + " |",
            "| --- | " + " | ".join("---:" for _ in hard_budgets) + " |",
        ]
        for key in ("best_single", "interpolation", "interpolation_extrapolation"):
            lines.append(
                f"| {key.replace('_', ' ')} | "
                + " | ".join(f"{p[key]['pass@B']:.3f}" for p in hard_budgets)
                + " |"
            )
        lines.append(
            "| pool minus best single (95% over problems) | "
            + " | ".join(
                f"{p['difference']['point']:+.3f} [{p['difference']['interval95'][0]:+.3f}, "
                f"{p['difference']['interval95'][1]:+.3f}]"
                for p in hard_budgets
            )
            + " |"
        )
    by_budget = summary["ensemble"]["by_budget"]
    lines += [
        "",
        "## Pools at matched budgets (B samples per problem in all, spread evenly over a pool)",
        "",
        "| pool | checkpoints | " + " | ".join(f"pass@{p['budget']}" for p in by_budget) + " |",
        "| --- | --- | " + " | ".join("---:" for _ in by_budget) + " |",
    ]
    for key in ("best_single", "interpolation", "interpolation_extrapolation"):
        names = ", ".join(by_budget[-1][key]["checkpoints"]) if key != "best_single" else "the best at each B"
        lines.append(
            f"| {key.replace('_', ' ')} | {names} | "
            + " | ".join(f"{p[key]['pass@B']:.3f}" for p in by_budget)
            + " |"
        )
    lines += ["", "## Churn: problems solved per alpha", ""]
    for name, solved in summary["churn"]["solved"].items():
        unique = summary["churn"]["unique"][name]
        lines.append(
            f"- {name}: {len(solved)} solved" + (f"; only here: {', '.join(unique)}" if unique else "")
        )
    lines += session_markdown(summary)
    lines += ["", *tiers_markdown(summary)]
    lines += ["", "## Plots", ""]
    for name, path in summary["plots"].items():
        lines.append(f"![{name}]({Path(path).relative_to(run_dir)})")
    lines += [
        "",
        f"Every judged sample: `{Path(summary['samples']).relative_to(run_dir)}`; the evaluator's own report: "
        f"`{summary.get('evaluator_report')}`.",
        "",
    ]
    return lines
