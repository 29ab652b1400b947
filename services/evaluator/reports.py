"""The report of an eval run, rebuilt from RUN_DIR/samples.jsonl and RUN_DIR/run.json: report.json
(everything, down to each sample), report.md (the tables a person reads) and plots/*.png.

`summarize` and `render_markdown` are pure; the plots and `build_report` are the file-writing edge.
A problem counts towards pass@k (or a budget) for a checkpoint only where it has at least k judged
samples there, so judge errors shrink the problem set (shown as `problems`) instead of biasing it.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.ticker import PercentFormatter

from services import passk
from services.evaluator import metrics
from services.evaluator.metrics import OUTCOMES
from services.evaluator.records import (
    REPAIR_SAMPLES_FILE,
    REPAIR_SUMMARY_FILE,
    RUN_FILE,
    SAMPLES_FILE,
    RunMeta,
    SampleRecord,
    read_run_meta,
    read_samples,
)

REPORT_JSON = "report.json"
REPORT_MD = "report.md"
PLOTS_DIR = "plots"
PLOT_DPI = 120

OUTCOME_COLORS = {
    "correct": "#2ca02c",
    "optimization_failure": "#ff7f0e",
    "correctness_failure": "#d62728",
    "format_error": "#9e9e9e",
}
OUTCOME_TITLES = {
    "correct": "correct",
    "optimization_failure": "optimization failure",
    "correctness_failure": "correctness failure",
    "format_error": "format error",
}
INTERPOLATION_COLOR = "#1f77b4"
EXTRAPOLATION_COLOR = "#d62728"


# --- the numbers (pure) ------------------------------------------------------------------------------


def summarize(meta: RunMeta, records: Sequence[SampleRecord], *, include_completions: bool = False) -> dict:
    """Everything report.json holds except the plot paths. The samples carry every field but the
    completion text unless asked: that text is most of the bytes, and samples.jsonl beside it holds it."""
    checkpoints = _checkpoints(meta, records)
    order = {ck["name"]: i for i, ck in enumerate(checkpoints)}
    names = [ck["name"] for ck in checkpoints]
    alphas = {ck["name"]: ck["alpha"] for ck in checkpoints}
    problems = sorted({r.problem_id for r in records})
    difficulty = _difficulties(records)
    difficulties = metrics.sort_difficulties(difficulty.values())

    by_checkpoint: dict[str, list[SampleRecord]] = defaultdict(list)
    for r in records:
        by_checkpoint[r.checkpoint].append(r)
    raw_counts = metrics.solve_counts(records)
    counts = {ck: {p: raw_counts.get(ck, {}).get(p, (0, 0)) for p in problems} for ck in names}
    # checkpoints with at least one judged sample: the ensemble pool and the churn sets
    evaluated = [ck for ck in names if any(n for n, _ in counts[ck].values())]

    for ck in checkpoints:
        fr = metrics.outcome_fractions(by_checkpoint[ck["name"]])
        ck.update(samples=len(by_checkpoint[ck["name"]]), judged=fr.judged, judge_errors=fr.judge_errors)

    def subset(d: str | None) -> list[str]:
        return [p for p in problems if d is None or difficulty[p] == d]

    outcome_fractions = {
        ck: {
            "overall": asdict(metrics.outcome_fractions(by_checkpoint[ck])),
            "by_difficulty": {
                d: asdict(fr) for d, fr in metrics.outcome_fractions_by_difficulty(by_checkpoint[ck]).items()
            },
        }
        for ck in names
    }
    ks = passk.report_ks(meta.n_samples)
    pass_at_k = {
        ck: {
            "overall": _pass_at_k_rows(counts[ck], subset(None), ks),
            "by_difficulty": {d: _pass_at_k_rows(counts[ck], subset(d), ks) for d in difficulties},
        }
        for ck in names
    }
    pool = {ck: counts[ck] for ck in evaluated}
    ensemble = {
        "pool": evaluated,
        "budgets": metrics.matched_budgets(meta.n_samples, len(evaluated)),
        "overall": _ensemble_rows(pool, subset(None), meta.n_samples),
        "by_difficulty": {d: _ensemble_rows(pool, subset(d), meta.n_samples) for d in difficulties},
    }
    solved = metrics.solved_sets(pool)
    churn = {
        "solved": {ck: sorted(s) for ck, s in solved.items()},
        "unique_solves": {ck: sorted(s) for ck, s in metrics.unique_solves(solved).items()},
        "jaccard": metrics.jaccard_matrix(solved),
        "extrapolation_only_solves": {
            ck: sorted(s) for ck, s in metrics.extrapolation_only_solves(solved, alphas).items()
        },
        "solved_by_any": sorted(frozenset().union(*solved.values())),
        "solved_by_all": sorted(frozenset.intersection(*solved.values())) if solved else [],
    }
    by_cell: dict[tuple[str, str], list[SampleRecord]] = defaultdict(list)
    for r in records:
        by_cell[(r.checkpoint, r.problem_id)].append(r)
    per_problem = [
        {
            "problem_id": p,
            "difficulty": difficulty[p],
            "results": {ck: _problem_result(by_cell[(ck, p)]) for ck in names},
        }
        for p in problems
    ]
    samples = sorted(records, key=lambda r: (order[r.checkpoint], r.problem_id, r.sample_index))
    return {
        "run": meta.model_dump(mode="json"),
        "totals": {
            "samples": len(records),
            "judged": sum(r.status == "ok" for r in records),
            "judge_errors": sum(r.status == "judge_error" for r in records),
            "problems": len(problems),
        },
        "checkpoints": checkpoints,
        "difficulties": difficulties,
        "ks": ks,
        "outcome_fractions": outcome_fractions,
        "pass_at_k": pass_at_k,
        "ensemble": ensemble,
        "churn": churn,
        "problems": per_problem,
        "samples_file": SAMPLES_FILE,
        "samples": [
            r.model_dump(mode="json", exclude=None if include_completions else {"completion"})
            for r in samples
        ],
    }


def _checkpoints(meta: RunMeta, records: Sequence[SampleRecord]) -> list[dict]:
    """run.json's checkpoints, then any only the samples name, sorted by alpha (no alpha last)."""
    alphas: dict[str, float | None] = {ck.name: ck.alpha for ck in meta.checkpoints}
    for r in records:
        if r.checkpoint not in alphas or alphas[r.checkpoint] is None:
            alphas[r.checkpoint] = r.alpha
    names = sorted(alphas, key=lambda ck: (alphas[ck] is None, alphas[ck] or 0.0))
    labels = {ck: (f"α={alphas[ck]:g}" if alphas[ck] is not None else ck) for ck in names}
    if len(set(labels.values())) < len(labels):
        labels = {ck: (f"{ck} ({labels[ck]})" if alphas[ck] is not None else ck) for ck in names}
    return [
        {
            "name": ck,
            "alpha": alphas[ck],
            "region": _region(alphas[ck]),
            "label": labels[ck],
        }
        for ck in names
    ]


def _region(alpha: float | None) -> str | None:
    if metrics.is_extrapolated(alpha):
        return "extrapolation"
    if metrics.is_interpolated(alpha):
        return "interpolation"
    return None


def _difficulties(records: Sequence[SampleRecord]) -> dict[str, str]:
    out: dict[str, str] = {}
    for r in records:
        if r.difficulty and r.problem_id not in out:
            out[r.problem_id] = r.difficulty
    for r in records:
        out.setdefault(r.problem_id, metrics.UNKNOWN_DIFFICULTY)
    return out


def _pass_at_k_rows(counts: dict[str, tuple[int, int]], problems: list[str], ks: list[int]) -> list[dict]:
    rows = []
    for k in ks:
        usable = [p for p in problems if counts[p][0] >= k]
        value = passk.mean_pass_at_k([counts[p] for p in usable], k) if usable else None
        excluded = [p for p in problems if counts[p][0] < k]
        rows.append({"k": k, "value": value, "problems": len(usable), "excluded": excluded})
    return rows


def _ensemble_rows(pool: dict[str, dict[str, tuple[int, int]]], problems: list[str], n_samples: int) -> list:
    rows = []
    for budget in metrics.matched_budgets(n_samples, len(pool)):
        usable = [p for p in problems if all(pool[ck][p][0] >= budget for ck in pool)]
        if not usable:
            continue
        cmp = metrics.compare_ensemble({ck: {p: pool[ck][p] for p in usable} for ck in pool}, budget)
        excluded = [p for p in problems if p not in usable]
        rows.append({**asdict(cmp), "gain": cmp.gain, "excluded": excluded})
    return rows


def _problem_result(records: list[SampleRecord]) -> dict:
    """One checkpoint's samples of one problem, counted."""
    fr = metrics.outcome_fractions(records)
    outcomes = {o: sum(r.status == "ok" and r.outcome == o for r in records) for o in OUTCOMES}
    return {
        "n": fr.judged,
        "correct": outcomes["correct"],
        "judge_errors": fr.judge_errors,
        "outcomes": outcomes,
    }


# --- Markdown (pure) ---------------------------------------------------------------------------------


_RUN_FIELDS_SHOWN = {"checkpoints", "benchmark", "n_samples", "temperature", "seeds"}


def render_markdown(report: dict) -> str:
    run, checkpoints = report["run"], report["checkpoints"]
    label = {ck["name"]: ck["label"] for ck in checkpoints}
    totals = report["totals"]
    out = [
        "# Evaluation report",
        "",
        f"- benchmark: `{run['benchmark']}`",
        f"- samples per problem: {run['n_samples']}, temperature {run['temperature']}, "
        f"seeds {', '.join(map(str, run['seeds'])) or '-'}",
        f"- {totals['problems']} problems, {totals['samples']} samples: {totals['judged']} judged, "
        f"judge errors: {totals['judge_errors']} (left out of every fraction and pass@k)",
        *(f"- {key}: {value}" for key, value in run.items() if key not in _RUN_FIELDS_SHOWN),
        "",
        "| checkpoint | alpha | region | samples | judged | judge errors |",
        "| --- | --- | --- | ---: | ---: | ---: |",
    ]
    for ck in checkpoints:
        out.append(
            f"| {ck['name']} | {_fmt_alpha(ck['alpha'])} | {ck['region'] or '-'} | {ck['samples']} "
            f"| {ck['judged']} | {ck['judge_errors']} |"
        )

    out += ["", "## Outcome fractions", "", "![outcomes](plots/outcomes.png)", ""]
    out += _fractions_table(report, label, lambda f: f["overall"])
    for d in report["difficulties"]:
        out += ["", f"### {d}", ""]
        out += _fractions_table(report, label, lambda f, d=d: f["by_difficulty"].get(d))

    out += ["", "## The frontier", "", "![frontier](plots/frontier.png)", ""]
    out += [
        "Optimization-failure rate against correctness-failure rate, one point per alpha "
        "(fractions of judged samples; see the table above).",
        "",
        "## pass@k",
        "",
        "![pass@k](plots/pass_at_k.png)",
        "",
    ]
    out += _pass_at_k_table(report, label, lambda p: p["overall"])
    for d in report["difficulties"]:
        out += ["", f"### {d}", ""]
        out += _pass_at_k_table(report, label, lambda p, d=d: p["by_difficulty"][d])

    ens = report["ensemble"]
    out += ["", "## Ensemble at a matched budget", "", "![ensemble](plots/ensemble.png)", ""]
    pool = ", ".join(label[ck] for ck in ens["pool"]) or "-"
    out += [
        f"Pool: {pool}. At budget B the pool draws B/M samples from each of its M checkpoints; the "
        "best single checkpoint draws all B from itself.",
        "",
    ]
    out += _ensemble_table(ens["overall"], label, len(ens["pool"]), report["run"]["n_samples"])
    for d in report["difficulties"]:
        out += ["", f"### {d}", ""]
        out += _ensemble_table(ens["by_difficulty"][d], label, len(ens["pool"]), report["run"]["n_samples"])

    if report.get("repair"):
        out += _repair_section(report["repair"], label)

    churn = report["churn"]
    out += [
        "",
        "## Per-problem churn",
        "",
        f"Solved by any checkpoint: {len(churn['solved_by_any'])}; by every checkpoint: "
        f"{len(churn['solved_by_all'])}.",
        "",
        "| checkpoint | solved | unique solves | problems only it solves |",
        "| --- | ---: | ---: | --- |",
    ]
    for ck, solved in churn["solved"].items():
        unique = churn["unique_solves"][ck]
        out.append(f"| {label[ck]} | {len(solved)} | {len(unique)} | {_fmt_ids(unique)} |")
    if churn["extrapolation_only_solves"]:
        out += [
            "",
            "Extrapolated checkpoints: problems solved by no interpolated checkpoint (alpha in [0, 1]).",
            "",
            "| checkpoint | count | problems |",
            "| --- | ---: | --- |",
        ]
        for ck, ids in churn["extrapolation_only_solves"].items():
            out.append(f"| {label[ck]} | {len(ids)} | {_fmt_ids(ids)} |")
    if churn["jaccard"]:
        names = list(churn["jaccard"])
        out += [
            "",
            "Jaccard overlap of solved sets:",
            "",
            "| | " + " | ".join(label[b] for b in names) + " |",
            "| --- |" + " ---: |" * len(names),
        ]
        for a in names:
            out.append(f"| {label[a]} | " + " | ".join(f"{churn['jaccard'][a][b]:.2f}" for b in names) + " |")
    return "\n".join(out) + "\n"


_REPAIR_SUMMARY_KEYS = ("turns", "first_attempt_pass@1", "repair_rate", "final_pass@1", "interval95")


def _repair_section(repair: dict, label: dict) -> list[str]:
    def with_interval(s: dict, key: str) -> str:
        ci = s["interval95"].get(key)
        return _fmt_rate(s[key]) + (f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "")

    out = [
        "",
        "## Repair",
        "",
        "Each failed first attempt retried with the judge's feedback, up to the turns shown (the first "
        f"attempt included); every attempt in {repair['records_file']}. Repair rate: failed first attempts "
        "fixed within the turns. Brackets: 95% bootstrap intervals over problems.",
        "",
        "| checkpoint | turns | samples | first-attempt pass@1 | repaired / failed | repair rate "
        "| pass@1 after repair | judge errors |",
        "| --- | ---: | ---: | --- | ---: | --- | --- | ---: |",
    ]
    for name, s in repair["checkpoints"].items():
        out.append(
            f"| {label.get(name, name)} | {s['turns']} | {s['samples']} "
            f"| {with_interval(s, 'first_attempt_pass@1')} | {s['repaired']} / {s['failed_first']} "
            f"| {with_interval(s, 'repair_rate')} | {with_interval(s, 'final_pass@1')} "
            f"| {s.get('judge_errors', 0)} |"
        )
    return out


def _fractions_table(report: dict, label: dict, pick: Callable[[dict], dict | None]) -> list[str]:
    rows = [
        "| checkpoint | judged | " + " | ".join(OUTCOME_TITLES[o] for o in OUTCOMES) + " |",
        "| --- | ---: |" + " ---: |" * len(OUTCOMES),
    ]
    for ck, fractions in report["outcome_fractions"].items():
        fr = pick(fractions)
        if fr is None:
            continue
        if fr["judged"]:
            cells = " | ".join(f"{100 * fr['fractions'][o]:.1f}%" for o in OUTCOMES)
        else:
            cells = " | ".join("-" for _ in OUTCOMES)
        rows.append(f"| {label[ck]} | {fr['judged']} | {cells} |")
    return rows


def _pass_at_k_table(report: dict, label: dict, pick: Callable[[dict], list[dict]]) -> list[str]:
    ks = report["ks"]
    rows = ["| checkpoint | " + " | ".join(f"pass@{k}" for k in ks) + " |", "| --- |" + " ---: |" * len(ks)]
    partial = False
    for ck, per in report["pass_at_k"].items():
        cells = []
        for row in pick(per):
            mark = "†" if row["excluded"] and row["value"] is not None else ""
            partial = partial or bool(mark)
            cells.append(_fmt_rate(row["value"]) + mark)
        rows.append(f"| {label[ck]} | " + " | ".join(cells) + " |")
    if partial:
        rows += [
            "",
            "† over fewer problems: some have fewer than k judged samples (judge errors or an unfinished run; see report.json).",
        ]
    return rows


def _ensemble_table(rows: list[dict], label: dict, m: int, n_samples: int) -> list[str]:
    if not rows:
        return [
            f"No matched budget: the pool of M={m} checkpoints needs B a multiple of M with "
            f"B <= n_samples={n_samples} (and problems with B judged samples on every checkpoint)."
        ]
    out = [
        "| budget B | B/M | problems | ensemble pass@B | best single pass@B | best single | gain |",
        "| ---: | ---: | ---: | ---: | ---: | --- | ---: |",
    ]
    for row in rows:
        out.append(
            f"| {row['budget']} | {row['per_checkpoint']} | {row['problems']} | {_fmt_rate(row['ensemble'])} "
            f"| {_fmt_rate(row['best_single'])} | {label[row['best_checkpoint']]} | {100 * row['gain']:+.1f} pt |"
        )
    return out


def _fmt_alpha(alpha: float | None) -> str:
    return "-" if alpha is None else f"{alpha:g}"


def _fmt_rate(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _fmt_ids(ids: list[str], limit: int = 12) -> str:
    if not ids:
        return "-"
    shown = ", ".join(f"`{p}`" for p in ids[:limit])
    return shown + (f" (+{len(ids) - limit} more)" if len(ids) > limit else "")


# --- plots (write PNGs) ------------------------------------------------------------------------------


def _new_figure(width: float, height: float) -> Figure:
    # a Figure of its own, not pyplot: no global state, safe in a worker thread
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _save(fig: Figure, path: Path) -> None:
    fig.savefig(path, dpi=PLOT_DPI, metadata={"Software": None})


def plot_outcomes(report: dict, path: Path) -> None:
    """Stacked outcome fractions, one bar per checkpoint along alpha; a panel per difficulty."""
    checkpoints = report["checkpoints"]
    panels = [("all problems", lambda f: f["overall"])]
    if report["difficulties"] != [metrics.UNKNOWN_DIFFICULTY]:
        panels += [(d, lambda f, d=d: f["by_difficulty"].get(d)) for d in report["difficulties"]]
    fig = _new_figure(
        max(5.0, 1.0 + 0.8 * len(checkpoints)) * min(len(panels), 2), 4.0 * -(-len(panels) // 2)
    )
    axes = fig.subplots(-(-len(panels) // 2), min(len(panels), 2), squeeze=False, sharey=True).ravel()
    for ax in axes[len(panels) :]:
        ax.set_visible(False)
    xs = range(len(checkpoints))
    for ax, (title, pick) in zip(axes, panels, strict=False):
        bottoms = [0.0] * len(checkpoints)
        for o in OUTCOMES:
            heights = []
            for ck in checkpoints:
                fr = pick(report["outcome_fractions"][ck["name"]])
                heights.append(fr["fractions"][o] if fr else 0.0)
            bars = ax.bar(xs, heights, bottom=bottoms, color=OUTCOME_COLORS[o], width=0.7)
            for bar, ck in zip(bars, checkpoints, strict=True):
                if ck["region"] == "extrapolation":
                    bar.set_hatch("//")
                    bar.set_edgecolor("white")
            bottoms = [b + h for b, h in zip(bottoms, heights, strict=True)]
        for i, ck in enumerate(checkpoints):
            if ck["region"] == "extrapolation":
                ax.axvspan(i - 0.5, i + 0.5, color="#eeeeee", zorder=0)
        ax.set_xticks(
            list(xs), [ck["label"] for ck in checkpoints], rotation=30 if len(checkpoints) > 6 else 0
        )
        ax.set_ylim(0, 1)
        ax.yaxis.set_major_formatter(PercentFormatter(1.0))
        ax.set_title(title)
        ax.set_xlim(-0.5, len(checkpoints) - 0.5)
    axes[0].set_ylabel("share of judged samples")
    # built by hand: a legend taken from the bars would copy the first bar's extrapolation hatch
    handles = [Patch(color=OUTCOME_COLORS[o], label=OUTCOME_TITLES[o]) for o in reversed(OUTCOMES)]
    handles.append(Patch(facecolor="#bbbbbb", edgecolor="white", hatch="//", label="extrapolation"))
    fig.legend(handles=handles, loc="outside right upper", title="outcome")
    fig.suptitle("Outcome fractions along alpha")
    _save(fig, path)


def plot_frontier(report: dict, path: Path) -> None:
    """Optimization-failure rate against correctness-failure rate, one labelled point per checkpoint,
    connected in alpha order; extrapolated points drawn apart from interpolated ones."""
    fig = _new_figure(6.5, 5.0)
    ax = fig.subplots()
    points = []
    for ck in report["checkpoints"]:
        fr = report["outcome_fractions"][ck["name"]]["overall"]
        if fr["judged"]:
            f = fr["fractions"]
            points.append((ck, f["correctness_failure"], f["optimization_failure"]))
    along = [(x, y) for ck, x, y in points if ck["alpha"] is not None]
    if along:
        ax.plot(*zip(*along, strict=True), color="#888888", linewidth=1.2, zorder=1, label="alpha order")
    styles = {
        "interpolation": dict(marker="o", color=INTERPOLATION_COLOR, facecolor=INTERPOLATION_COLOR, s=70),
        "extrapolation": dict(marker="D", color=EXTRAPOLATION_COLOR, facecolor="white", s=70),
        None: dict(marker="s", color="#555555", facecolor="#555555", s=60),
    }
    legend = {
        "interpolation": "interpolation (0 ≤ α ≤ 1)",
        "extrapolation": "extrapolation (α < 0 or α > 1)",
        None: "no alpha",
    }
    # checkpoints on the same point share one label ("α=-0.5, α=0") instead of overprinting
    labels: dict[tuple[float, float], list[str]] = {}
    for ck, x, y in points:
        labels.setdefault((round(x, 9), round(y, 9)), []).append(ck["label"])
    seen: set = set()
    for ck, x, y in points:
        st = styles[ck["region"]]
        ax.scatter(
            [x],
            [y],
            marker=st["marker"],
            edgecolors=st["color"],
            facecolors=st["facecolor"],
            s=st["s"],
            linewidths=2,
            zorder=3,
            label=None if ck["region"] in seen else legend[ck["region"]],
        )
        seen.add(ck["region"])
    for (x, y), names in labels.items():
        ax.annotate(", ".join(names), (x, y), textcoords="offset points", xytext=(7, 6), fontsize=9)
    if not points:
        ax.text(0.5, 0.5, "no judged samples", ha="center", va="center", transform=ax.transAxes)
    ax.set_xlabel("correctness-failure rate")
    ax.set_ylabel("optimization-failure rate")
    ax.xaxis.set_major_formatter(PercentFormatter(1.0))
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.margins(0.15)
    # rates live in [0, 1]: no axis below zero, and some width even when every point shares an x or y
    for get, put in ((ax.get_xlim, ax.set_xlim), (ax.get_ylim, ax.set_ylim)):
        lo, hi = get()
        put(max(lo, -0.03), max(hi, 0.25))
    ax.grid(alpha=0.3)
    if points:
        ax.legend(loc="best", fontsize=9)
    ax.set_title("Correctness-efficiency frontier")
    _save(fig, path)


def plot_pass_at_k(report: dict, path: Path) -> None:
    fig = _new_figure(6.5, 4.5)
    ax = fig.subplots()
    cmap = _alpha_colors(report["checkpoints"])
    hollow_note = False
    for ck in report["checkpoints"]:
        rows = [r for r in report["pass_at_k"][ck["name"]]["overall"] if r["value"] is not None]
        if not rows:
            continue
        extrapolated = ck["region"] == "extrapolation"
        ax.plot(
            [r["k"] for r in rows],
            [r["value"] for r in rows],
            color=cmap[ck["name"]],
            linestyle="--" if extrapolated else "-",
            marker="D" if extrapolated else "o",
            label=ck["label"],
        )
        partial = [r for r in rows if r["excluded"]]
        if partial:
            ax.scatter(
                [r["k"] for r in partial],
                [r["value"] for r in partial],
                marker="D" if extrapolated else "o",
                facecolors="white",
                edgecolors=cmap[ck["name"]],
                zorder=3,
            )
            hollow_note = True
    ks = report["ks"]
    ax.set_xscale("log", base=2)
    ax.set_xticks(ks, [str(k) for k in ks])
    ax.minorticks_off()
    ax.set_ylim(0, 1)
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_xlabel("k (samples)")
    ax.set_ylabel("pass@k")
    ax.grid(alpha=0.3)
    if ax.lines:
        title = "dashed: extrapolation" + ("\nhollow: over fewer problems" if hollow_note else "")
        ax.legend(fontsize=9, title=title, title_fontsize=8)
    ax.set_title("pass@k per checkpoint")
    _save(fig, path)


def plot_ensemble(report: dict, path: Path) -> None:
    """Ensemble pass@B against the best single checkpoint's pass@B at each matched budget."""
    rows = report["ensemble"]["overall"]
    label = {ck["name"]: ck["label"] for ck in report["checkpoints"]}
    fig = _new_figure(max(5.5, 1.8 * len(rows) + 2.5), 4.5)
    ax = fig.subplots()
    if not rows:
        pool = len(report["ensemble"]["pool"])
        ax.text(
            0.5,
            0.5,
            f"no matched budget:\nM={pool} checkpoints, n_samples={report['run']['n_samples']}",
            ha="center",
            va="center",
            transform=ax.transAxes,
        )
        ax.set_axis_off()
    else:
        xs = range(len(rows))
        width = 0.38
        ens = ax.bar([x - width / 2 for x in xs], [r["ensemble"] for r in rows], width, color="#2ca02c")
        best = ax.bar([x + width / 2 for x in xs], [r["best_single"] for r in rows], width, color="#1f77b4")
        ens.set_label(f"ensemble of {len(report['ensemble']['pool'])} (B/M from each)")
        best.set_label("best single checkpoint")
        for bar_e, bar_b, r in zip(ens, best, rows, strict=True):
            ax.annotate(
                f"{r['ensemble']:.3f}",
                (bar_e.get_x() + width / 2, bar_e.get_height()),
                textcoords="offset points",
                xytext=(0, 3),
                ha="center",
                fontsize=8,
            )
            ax.annotate(
                f"{r['best_single']:.3f}\n{label[r['best_checkpoint']]}",
                (bar_b.get_x() + width / 2, bar_b.get_height()),
                textcoords="offset points",
                xytext=(0, 3),
                ha="center",
                fontsize=8,
            )
        ax.set_xticks(list(xs), [f"B={r['budget']}" for r in rows])
        ax.set_ylim(0, 1.15)
        ax.yaxis.set_major_formatter(PercentFormatter(1.0))
        ax.set_ylabel("pass@B")
        ax.legend(loc="upper left", fontsize=9)
        ax.grid(axis="y", alpha=0.3)
    ax.set_title("Ensemble vs best single checkpoint at a matched budget")
    _save(fig, path)


def _alpha_colors(checkpoints: list[dict]) -> dict[str, tuple]:
    from matplotlib import colormaps

    cmap = colormaps["viridis"]
    n = max(len(checkpoints) - 1, 1)
    return {ck["name"]: cmap(0.9 * i / n) for i, ck in enumerate(checkpoints)}


PLOTTERS: dict[str, Callable[[dict, Path], None]] = {
    "outcomes": plot_outcomes,
    "frontier": plot_frontier,
    "pass_at_k": plot_pass_at_k,
    "ensemble": plot_ensemble,
}


# --- the run directory -------------------------------------------------------------------------------


def build_report(run_dir: Path, *, include_completions: bool = False) -> dict:
    """Rebuild report.json, report.md and plots/*.png of a run from its samples.jsonl and run.json.

    Returns the paths written and a short summary per checkpoint.
    """
    run_dir = Path(run_dir)
    if not (run_dir / RUN_FILE).is_file():
        raise FileNotFoundError(f"{run_dir / RUN_FILE}: no run metadata; is {run_dir} an eval run directory?")
    meta = read_run_meta(run_dir)
    records = read_samples(run_dir / SAMPLES_FILE)
    report = summarize(meta, records, include_completions=include_completions)
    repair = read_repair(run_dir)
    if repair is not None:
        report["repair"] = repair
    report["plots"] = {name: f"{PLOTS_DIR}/{name}.png" for name in PLOTTERS}

    (run_dir / PLOTS_DIR).mkdir(exist_ok=True)
    for name, plot in PLOTTERS.items():
        plot(report, run_dir / report["plots"][name])
    (run_dir / REPORT_JSON).write_text(_to_json(report))
    (run_dir / REPORT_MD).write_text(render_markdown(report))
    return {
        "report_json": str(run_dir / REPORT_JSON),
        "report_md": str(run_dir / REPORT_MD),
        "plots": {name: str(run_dir / rel) for name, rel in report["plots"].items()},
        "summary": _summary(report),
    }


def read_repair(run_dir: Path) -> dict | None:
    """The repair evaluation of a run (docs/spec.md section 11.1), where it had one: RUN_DIR/repair.json's
    summaries by checkpoint (first-attempt pass@1, repair rate, pass@1 after repair, 95% bootstrap
    intervals over problems) and the name of the records file beside it."""
    path = Path(run_dir) / REPAIR_SUMMARY_FILE
    if not path.is_file():
        return None
    try:
        by_checkpoint = json.loads(path.read_text())
    except ValueError as err:
        raise ValueError(f"{path}: not JSON ({err})") from None
    return {"records_file": REPAIR_SAMPLES_FILE, "checkpoints": by_checkpoint}


def _to_json(report: dict) -> str:
    """Indented for reading, except the samples: one compact line each. Indenting them all would leave
    the pure-Python encoder to write hundreds of thousands of records (tens of seconds)."""
    head = {key: value for key, value in report.items() if key != "samples"}
    text = json.dumps(head, indent=2, ensure_ascii=False)
    samples = ",\n".join("    " + json.dumps(s, ensure_ascii=False) for s in report["samples"])
    return text.removesuffix("\n}") + ',\n  "samples": [\n' + samples + "\n  ]\n}\n"


def _summary(report: dict) -> dict:
    checkpoints = []
    for ck in report["checkpoints"]:
        overall = report["outcome_fractions"][ck["name"]]["overall"]
        checkpoints.append(
            {
                "name": ck["name"],
                "alpha": ck["alpha"],
                "judged": overall["judged"],
                "correct": overall["fractions"]["correct"],
                "pass_at_1": report["pass_at_k"][ck["name"]]["overall"][0]["value"],
            }
        )
        repair = report.get("repair", {}).get("checkpoints", {}).get(ck["name"])
        if repair is not None:
            checkpoints[-1]["repair"] = {key: repair.get(key) for key in _REPAIR_SUMMARY_KEYS}
    ensemble = report["ensemble"]["overall"]
    return {
        "totals": report["totals"],
        "checkpoints": checkpoints,
        "ensemble": ensemble[-1] if ensemble else None,
    }
