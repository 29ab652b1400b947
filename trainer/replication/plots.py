"""The replication's plots (PNG), each drawn from summary.json's content."""

from __future__ import annotations

from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import PercentFormatter

COLORS = {
    "correct": "#2b8a3e",
    "optimization_failure": "#e8590c",
    "correctness_failure": "#c92a2a",
    "format_error": "#868e96",
}
ARMS = {
    "lax": "#1c7ed6",
    "strict": "#ae3ec9",
    "partial": "#2b8a3e",
    "repair": "#f08c00",
    "tool": "#e03131",  # the session arms (docs/spec.md 13.5)
    "agentic": "#5f3dc4",
}


_K_COLORS = ("#0b7285", "#5c940d", "#862e9c", "#d9480f", "#364fc7")


def _figure(width: float, height: float) -> Figure:
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def rolling_mean(values: list[float], window: int) -> list[float]:
    """Mean of each value and the up to `window - 1` before it."""
    out = []
    for i in range(len(values)):
        chunk = values[max(0, i - window + 1) : i + 1]
        out.append(sum(chunk) / len(chunk))
    return out


def plot_training(summary: dict, path: Path) -> None:
    """Mean reward per step of both runs, and their outcome fractions per step."""
    fig = _figure(11, 4)
    ax_reward, ax_outcomes = fig.subplots(1, 2)
    for i, (arm, run) in enumerate(summary["runs"].items()):
        color = ARMS.get(arm) or ARMS.get(arm.split("_seed")[0]) or _K_COLORS[i % len(_K_COLORS)]
        steps = [c["step"] for c in run["curve"]]
        window = max(1, len(steps) // 5)
        rewards = [c["reward"] for c in run["curve"]]
        ax_reward.plot(steps, rewards, color=color, alpha=0.3, linewidth=1)
        ax_reward.plot(
            steps,
            rolling_mean(rewards, window),
            color=color,
            linewidth=2.2,
            label=f"{arm} (R_{run['k']}), mean of {window} steps",
        )
        for outcome, style in (
            ("correct", "-"),
            ("optimization_failure", "--"),
            ("correctness_failure", ":"),
        ):
            ax_outcomes.plot(
                steps,
                rolling_mean([c.get(f"judge/{outcome}", 0.0) for c in run["curve"]], window),
                color=color,
                linestyle=style,
                label=f"{arm}: {outcome.replace('_', ' ')}",
            )
    ax_reward.set_title("GRPO: mean reward per step (faint) and its running mean")
    ax_reward.set_xlabel("step")
    ax_reward.legend(fontsize=8)
    ax_outcomes.set_title("GRPO: outcome fractions of the samples (running mean)")
    ax_outcomes.set_xlabel("step")
    ax_outcomes.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax_outcomes.legend(fontsize=7, ncol=2)
    fig.savefig(path, dpi=110)


def plot_outcomes_by_alpha(summary: dict, path: Path) -> None:
    """Each outcome's fraction along alpha, with its 95% bootstrap band over problems."""
    fig = _figure(7.5, 4.5)
    ax = fig.subplots()
    alphas = [r["alpha"] for r in summary["sweep"]]
    for outcome, color in COLORS.items():
        ax.plot(
            alphas,
            [r[outcome] for r in summary["sweep"]],
            marker="o",
            color=color,
            label=outcome.replace("_", " "),
        )
        lo = [r["interval95"][outcome][0] for r in summary["sweep"]]
        hi = [r["interval95"][outcome][1] for r in summary["sweep"]]
        ax.fill_between(alphas, lo, hi, color=color, alpha=0.15)
    ax.axvspan(0, 1, color="#dee2e6", alpha=0.4, label="interpolation")
    ax.set_xlabel("alpha (0 = lax run, 1 = strict run)")
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_title("Outcome fractions along alpha (95% bootstrap bands)")
    ax.legend(fontsize=8)
    fig.savefig(path, dpi=110)


def _mix(row: dict) -> tuple[float, float]:
    return row["correctness_failure"], row["optimization_failure"]


def _errorbar(ax, row: dict, **kw) -> None:
    """One checkpoint's point on the frontier with its 95% intervals on both axes."""
    x, y = _mix(row)
    xlo, xhi = row["interval95"]["correctness_failure"]
    ylo, yhi = row["interval95"]["optimization_failure"]
    ax.errorbar([x], [y], xerr=[[x - xlo], [xhi - x]], yerr=[[y - ylo], [yhi - y]], **kw)


def draw_frontier(
    ax,
    sweep: list[dict],
    family: list[dict],
    arms: list[tuple[dict, dict]],
    basis: tuple[str, dict] | None,
) -> list[str]:
    """The frontier on `ax`: the sweep's points (circles inside [0, 1], diamonds outside) joined in
    alpha order; each k-family run (`family`: k_family()'s entries) with its distance to the path,
    and the straight line through alpha 0 and 1 (the null) when there is a family; further arms
    (`arms`: (row, matplotlib keywords with a label)); the checkpoint everything started from
    (`basis`: its label and outcome fractions). Returns the legend's labels."""
    xs = [r["correctness_failure"] for r in sweep]
    ys = [r["optimization_failure"] for r in sweep]
    ax.plot(xs, ys, color="#adb5bd", zorder=1)
    for r, x, y in zip(sweep, xs, ys, strict=True):
        inside = 0 <= r["alpha"] <= 1
        _errorbar(
            ax,
            r,
            fmt="o" if inside else "D",
            color="#1c7ed6" if inside else "#e8590c",
            mfc="#1c7ed6" if inside else "white",
            capsize=3,
            zorder=2,
        )
        ax.annotate(f"α={r['alpha']:g}", (x, y), textcoords="offset points", xytext=(6, 5), fontsize=9)
    by_alpha = {r["alpha"]: r for r in sweep}
    a, b = by_alpha.get(0.0), by_alpha.get(1.0)
    if family and a and b and _mix(a) != _mix(b):
        ax.axline(
            _mix(a),
            _mix(b),
            color="#adb5bd",
            linestyle=":",
            linewidth=1,
            label="null: straight line through α=0 and α=1",
            zorder=0,
        )
    for i, entry in enumerate(family):
        _errorbar(
            ax,
            entry["row"],
            fmt="P",
            markersize=9,
            color=_K_COLORS[i % len(_K_COLORS)],
            capsize=2,
            alpha=0.8,
            label=f"R_{entry['k']} run (distance to path {100 * entry['distance_to_path']:.1f} pts)",
            zorder=3,
        )
    for row, kw in arms:
        _errorbar(ax, row, capsize=3, zorder=3, **kw)
    if basis and basis[1]:
        label, outcomes = basis
        ax.scatter(
            [outcomes["correctness_failure"]],
            [outcomes["optimization_failure"]],
            marker="s",
            color="#495057",
            label=label,
            zorder=3,
        )
    labels = [t for t in ax.get_legend_handles_labels()[1] if not t.startswith("_")]
    if labels:
        ax.legend(fontsize=8)
    ax.set_xlabel("correctness-failure rate")
    ax.set_ylabel("optimization-failure rate")
    ax.xaxis.set_major_formatter(PercentFormatter(1.0))
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.grid(alpha=0.3)
    return labels


def plot_frontier(summary: dict, path: Path) -> None:
    """Optimization-failure rate against correctness-failure rate, one point per alpha, with intervals,
    the k-family, partial-credit and repair arms placed against it."""
    fig = _figure(6.5, 5)
    ax = fig.subplots()
    arms = []
    partial = summary.get("partial_credit")
    if partial:
        label = f"partial credit ({summary['runs']['partial']['k']})"
        arms.append((partial, {"fmt": "^", "markersize": 9, "color": "#2b8a3e", "label": label}))
    repair_rows = (summary.get("repair") or {}).get("rows") or {}
    for arm, marker, color, label in (
        ("repair_warmup", "v", "#ffc078", "repair warm-up (SFT only)"),
        ("repair", "*", "#f08c00", "repair-trained"),
    ):
        if repair_rows.get(arm):
            size = 11 if marker == "*" else 8
            arms.append(
                (repair_rows[arm], {"fmt": marker, "markersize": size, "color": color, "label": label})
            )
    sft = summary["sft"].get("outcomes")
    family = (summary.get("k_family") or {}).get("runs") or []
    draw_frontier(ax, summary["sweep"], family, arms, ("SFT", sft) if sft and (arms or family) else None)
    ax.set_title("Correctness-efficiency frontier (circles: 0 ≤ α ≤ 1)")
    fig.savefig(path, dpi=110)


def plot_setting_frontier(setting: dict, name: str, path: Path) -> list[str]:
    """One session setting's frontier (docs/spec.md 12.7): its sweep, its k-family runs with their
    distances to its path, its partial-credit and repair arms and its warm-up checkpoint, as
    plot_frontier draws the single-turn one. Returns the legend's labels."""
    fig = _figure(6.5, 5)
    ax = fig.subplots()
    extra = setting.get("arms") or {}
    arms = [
        (extra[arm], {"fmt": marker, "markersize": 9, "color": color, "label": label})
        for arm, marker, color, label in (
            ("partial", "^", "#2b8a3e", "partial credit"),
            ("repair", "*", "#f08c00", "repair-trained"),
        )
        if extra.get(arm)
    ]
    warm = (setting.get("rows") or {}).get("warmup")
    family = (setting.get("k_family") or {}).get("runs") or []
    labels = draw_frontier(
        ax,
        sorted(setting["sweep"], key=lambda r: r["alpha"]),
        family,
        arms,
        ("warm-up", warm) if warm else None,
    )
    ax.set_title(f"The {name} setting's frontier (circles: 0 ≤ α ≤ 1)")
    fig.savefig(path, dpi=110)
    return labels


def plot_pass_at_k(summary: dict, path: Path) -> None:
    fig = _figure(6.5, 4.5)
    ax = fig.subplots()
    for r in summary["sweep"]:
        ks = [int(k) for k in r["pass@k"]]
        ax.plot(ks, list(r["pass@k"].values()), marker="o", label=f"α={r['alpha']:g}")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("k")
    ax.set_ylabel("pass@k")
    ax.set_title("pass@k per alpha")
    ax.legend(fontsize=8, ncol=2)
    fig.savefig(path, dpi=110)


def plot_pools(summary: dict, path: Path) -> None:
    """pass@B of the three pools against the total budget B, each pool spreading B over its members."""
    by_budget = summary["ensemble"]["by_budget"]
    budgets = [p["budget"] for p in by_budget]
    fig = _figure(6.5, 4.5)
    ax = fig.subplots()
    for key, color, label in (
        ("best_single", "#868e96", "best single checkpoint (at each B)"),
        ("interpolation", "#1c7ed6", "interpolation pool (0 ≤ α ≤ 1)"),
        ("interpolation_extrapolation", "#e8590c", "interpolation + extrapolation pool"),
    ):
        ax.plot(budgets, [p[key]["pass@B"] for p in by_budget], marker="o", color=color, label=label)
        hard = [p for p in (summary["ensemble"].get("hard") or {}).get("by_budget") or [] if p]
        if hard:  # the same pools on the hard problems only
            ax.plot(
                [p["budget"] for p in hard],
                [p[key]["pass@B"] for p in hard],
                marker="x",
                linestyle="--",
                color=color,
                label=f"{label}, hard problems",
            )
    ax.set_xscale("log", base=2)
    ax.set_xlabel("total samples per problem B")
    ax.set_ylabel("pass@B")
    ax.set_title("Pools at matched budget")
    ax.legend(fontsize=8)
    fig.savefig(path, dpi=110)


def plot_churn(summary: dict, path: Path) -> None:
    """Problems (rows) solved by each alpha (columns)."""
    solved = summary["churn"]["solved"]
    names = [r["name"] for r in summary["sweep"]]
    problems = sorted(set().union(*map(set, solved.values()))) or ["(none solved)"]
    grid = [[1.0 if p in solved.get(n, []) else 0.0 for n in names] for p in problems]
    fig = _figure(1.2 + 0.7 * len(names), 1.2 + 0.3 * len(problems))
    ax = fig.subplots()
    ax.imshow(grid, cmap="Greens", vmin=0, vmax=1, aspect="auto")
    ax.set_xticks(range(len(names)), [f"α={r['alpha']:g}" for r in summary["sweep"]], rotation=45)
    ax.set_yticks(range(len(problems)), problems, fontsize=8)
    ax.set_title("Problems solved (any correct sample) per alpha")
    fig.savefig(path, dpi=110)


PLOTS = {
    "training": plot_training,
    "outcomes_by_alpha": plot_outcomes_by_alpha,
    "frontier": plot_frontier,
    "pass_at_k": plot_pass_at_k,
    "pools": plot_pools,
    "churn": plot_churn,
}
