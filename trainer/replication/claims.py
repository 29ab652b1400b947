"""The paper's findings 1-6, each decided for one run by a rule fixed in docs/spec.md 12.6.

Pure functions of summary.json's content. A setting (single-turn "single", "tool", "agentic") is
`{"endpoints": {"lax": [row per seed], "strict": [row per seed]}, "sweep": [row per alpha]}`, each row
`trainer.replication.report.checkpoint_row`'s output; one function decides a finding for any setting.

Verdicts: "holds", "does not hold", "not measured" (the data the rule needs is absent). A finding of
several parts holds when every part holds; it does not hold when a measured part does not; otherwise
it is not measured.
"""

from __future__ import annotations

import math
from typing import Any

from services.evaluator.metrics import bootstrap_interval

HOLDS, FAILS, ABSENT = "holds", "does not hold", "not measured"
OPT, CORR, CORRECT, FORMAT = "optimization_failure", "correctness_failure", "correct", "format_error"

PAPER = {
    1: "Endpoints: low coverage (lax) has more optimization failures, high coverage (strict) more "
    "correctness failures, with the solve rate nearly unchanged between them.",
    2: "Independent runs for several k form an ordered family, and linear interpolation between the "
    "endpoints passes through the family's failure-mode mix.",
    3: "Extrapolation continues the trade-off beyond both endpoints, stably over about [-0.5, 1.5]; far out "
    "(|alpha| > 2) it degrades mainly through format errors.",
    4: "Per-problem churn along alpha; a pool along the extended frontier beats the best single checkpoint "
    "at a matched sample budget on the hard problems; extrapolated checkpoints solve problems "
    "interpolated ones miss.",
    5: "Partial credit (discrete and continuous) stays on the same frontier; failure-conditioned repair "
    "training moves it outward.",
    6: "The same holds in the tool-use and agentic settings: findings 1-5, each by its rule on the "
    "setting's own runs (finding 3 without its far-out part: the session sweep stays in [-0.5, 1.5]).",
}

DEFAULTS = {
    "unchanged_tolerance": 0.10,  # finding 1: |Δ correct| at most this
    "stable_format_margin": 0.10,  # finding 3: format errors in [-0.5, 1.5] at most the endpoints' + this
    "order_rho": -0.5,  # finding 2: Spearman rho(k, optimization failures) at most this
    "hard_max_sft_correct": 0.5,  # finding 4: a problem is hard when the SFT policy's correct share <= this
}


def combine(parts: list[dict]) -> str:
    verdicts = [p["verdict"] for p in parts]
    if FAILS in verdicts:
        return FAILS
    if not verdicts or ABSENT in verdicts:
        return ABSENT
    return HOLDS


def _part(name: str, verdict: str, figure: str, **extra) -> dict:
    return {"part": name, "verdict": verdict, "figure": figure, **extra}


def _pct(x: float) -> str:
    return f"{100 * x:+.1f} pts" if x is not None else "n/a"


def _iv(lo: float, hi: float) -> str:
    return f"[{100 * lo:+.1f}, {100 * hi:+.1f}]"


# -- finding 1: the endpoints -------------------------------------------------------------------------
def endpoint_difference(
    lax: list[dict], strict: list[dict], outcome: str, *, resamples: int = 1000, seed: int = 0
) -> dict:
    """lax minus strict in one outcome's share: the point estimate (mean over seeds), a 95% bootstrap
    interval over problems (each problem's share averaged over seeds first), and the per-seed
    differences (seed i of lax against seed i of strict)."""
    point = sum(r[outcome] for r in lax) / len(lax) - sum(r[outcome] for r in strict) / len(strict)
    per_seed = [a[outcome] - b[outcome] for a, b in zip(lax, strict, strict=False)]
    if all(r.get("per_problem") for r in (*lax, *strict)):
        problems = sorted(set.intersection(*(set(r["per_problem"]) for r in (*lax, *strict))))

        def mean_share(rows: list[dict], p: str) -> float:
            return sum(r["per_problem"][p][outcome] for r in rows) / len(rows)

        diffs = [mean_share(lax, p) - mean_share(strict, p) for p in problems]
        lo, hi = bootstrap_interval(diffs, resamples=resamples, seed=seed) if diffs else (point, point)
        basis = "bootstrap over problems"
    else:  # rows without per-problem shares: the envelope of the rows' own intervals (wider)
        lo = min(r["interval95"][outcome][0] for r in lax) - max(r["interval95"][outcome][1] for r in strict)
        hi = max(r["interval95"][outcome][1] for r in lax) - min(r["interval95"][outcome][0] for r in strict)
        basis = "envelope of the rows' intervals"
    return {"point": point, "interval95": [lo, hi], "per_seed": per_seed, "basis": basis}


def _directional(name: str, d: dict, sign: int) -> dict:
    """Holds when the interval over problems excludes 0 on the paper's side and every seed agrees."""
    lo, hi = d["interval95"]
    beyond = lo > 0 if sign > 0 else hi < 0
    seeds_agree = all((x > 0) if sign > 0 else (x < 0) for x in d["per_seed"])
    figure = f"{_pct(d['point'])} {_iv(lo, hi)} over problems; per seed " + ", ".join(
        _pct(x) for x in d["per_seed"]
    )
    return _part(name, HOLDS if beyond and seeds_agree else FAILS, figure, difference=d)


def endpoints_claim(setting: dict | None, params: dict, *, resamples: int = 1000, seed: int = 0) -> dict:
    ends = (setting or {}).get("endpoints") or {}
    lax, strict = ends.get("lax") or [], ends.get("strict") or []
    names = (
        "lax has more optimization failures",
        "strict has more correctness failures",
        "solve rate nearly unchanged",
    )
    if not lax or not strict:
        return {"verdict": ABSENT, "seeds": 0, "parts": [_part(n, ABSENT, "no endpoints") for n in names]}
    opt = endpoint_difference(lax, strict, OPT, resamples=resamples, seed=seed)
    corr = endpoint_difference(lax, strict, CORR, resamples=resamples, seed=seed)
    corr = {**corr, "note": "lax minus strict"}
    correct = endpoint_difference(lax, strict, CORRECT, resamples=resamples, seed=seed)
    tol = params["unchanged_tolerance"]
    lo, hi = correct["interval95"]
    unchanged = -tol <= lo and hi <= tol  # equivalence: the whole interval within the tolerance
    parts = [
        _directional(names[0], opt, +1),
        _directional(names[1], corr, -1),
        _part(
            names[2],
            HOLDS if unchanged else FAILS,
            f"Δ correct (lax - strict) {_pct(correct['point'])} {_iv(lo, hi)}; rule: the interval within "
            f"+-{100 * tol:.0f} pts",
            difference=correct,
        ),
    ]
    return {"verdict": combine(parts), "seeds": min(len(lax), len(strict)), "parts": parts}


# -- finding 2: the k-family against the interpolation path -------------------------------------------
def _point(row: dict) -> tuple[float, float]:
    return row[CORR], row[OPT]


def _segment_distance(p, a, b, scale=(1.0, 1.0)) -> float:
    px, py = p[0] / scale[0], p[1] / scale[1]
    ax, ay = a[0] / scale[0], a[1] / scale[1]
    bx, by = b[0] / scale[0], b[1] / scale[1]
    dx, dy = bx - ax, by - ay
    length2 = dx * dx + dy * dy
    t = 0.0 if length2 == 0 else max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / length2))
    return math.hypot(px - (ax + t * dx), py - (ay + t * dy))


def path_distance(p, path: list[tuple[float, float]], scale=(1.0, 1.0)) -> float:
    """Distance from a point to a polyline (one point: to that point), in the (correctness-failure,
    optimization-failure) plane, each axis divided by `scale`."""
    if len(path) == 1:
        return _segment_distance(p, path[0], path[0], scale)
    return min(_segment_distance(p, a, b, scale) for a, b in zip(path, path[1:], strict=False))


def line_distance(p, a, b) -> float:
    """Distance from a point to the straight line through a and b (the null: a mix linear in nothing)."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    n = math.hypot(dx, dy)
    if n == 0:
        return math.hypot(p[0] - a[0], p[1] - a[1])
    return abs(dx * (a[1] - p[1]) - dy * (a[0] - p[0])) / n


def _half_widths(row: dict) -> tuple[float, float]:
    floor = 1.0 / max(1, row.get("judged") or 1)  # an interval of width 0: one sample's worth
    return tuple(max(floor, (row["interval95"][o][1] - row["interval95"][o][0]) / 2) for o in (CORR, OPT))


def _rank(values: list[float]) -> list[float]:
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for m in range(i, j + 1):
            ranks[order[m]] = (i + j) / 2
        i = j + 1
    return ranks


def spearman(xs: list[float], ys: list[float]) -> float | None:
    rx, ry = _rank(xs), _rank(ys)
    n = len(xs)
    mx, my = sum(rx) / n, sum(ry) / n
    sx = math.sqrt(sum((x - mx) ** 2 for x in rx))
    sy = math.sqrt(sum((y - my) ** 2 for y in ry))
    if sx == 0 or sy == 0:
        return None
    return sum((x - mx) * (y - my) for x, y in zip(rx, ry, strict=True)) / (sx * sy)


def k_value(k: Any) -> float:
    return math.inf if k == "inf" else float(k)


def k_family(family: list[dict], sweep: list[dict]) -> list[dict]:
    """Each k-run's distance from the sweep's path (the polyline through every alpha, in alpha order)
    and from the straight line through the endpoints' (alpha 0 and 1) mixes; `normalized`: the path's
    distance with each axis in units of the k-run's 95% half-interval (<= 1: the path passes through
    the run's interval ellipse)."""
    by_alpha = {r["alpha"]: r for r in sweep}
    path = [_point(r) for r in sorted(sweep, key=lambda r: r["alpha"])]
    lo, hi = by_alpha.get(0.0), by_alpha.get(1.0)
    out = []
    for entry in family:
        row = entry["row"]
        p = _point(row)
        out.append(
            {
                **entry,
                "distance_to_path": path_distance(p, path) if path else None,
                "normalized_distance_to_path": path_distance(p, path, _half_widths(row)) if path else None,
                "distance_to_null": line_distance(p, _point(lo), _point(hi)) if lo and hi else None,
            }
        )
    return out


def k_family_claim(family: list[dict], params: dict) -> dict:
    names = ("ordered family", "the path passes through each intermediate k-run", "path closer than the null")
    if len(family) < 3:
        return {"verdict": ABSENT, "parts": [_part(n, ABSENT, "fewer than 3 k-runs") for n in names]}
    ks = [k_value(e["k"]) for e in family]
    finite = [k if k != math.inf else max(k for k in ks if k != math.inf) + 1 for k in ks]
    rho = spearman(finite, [e["row"][OPT] for e in family])
    ordered = rho is not None and rho <= params["order_rho"]
    inner = [e for e in family if not e.get("endpoint")] or family
    worst = max(e["normalized_distance_to_path"] for e in inner)
    mean_path = sum(e["distance_to_path"] for e in inner) / len(inner)
    nulls = [e["distance_to_null"] for e in inner if e["distance_to_null"] is not None]
    mean_null = sum(nulls) / len(nulls) if nulls else None
    parts = [
        _part(
            names[0],
            HOLDS if ordered else FAILS,
            f"Spearman rho(k, optimization failures) = {'n/a' if rho is None else f'{rho:.2f}'} over "
            f"{len(family)} runs; rule: <= {params['order_rho']}",
            rho=rho,
        ),
        _part(
            names[1],
            HOLDS if worst <= 1 else FAILS,
            f"largest normalized distance {worst:.2f} over {len(inner)} run(s); rule: <= 1 (inside the run's "
            "95% interval)",
            worst=worst,
        ),
        _part(
            names[2],
            ABSENT if mean_null is None else HOLDS if mean_path <= mean_null else FAILS,
            f"mean distance to the path {100 * mean_path:.1f} pts, to the straight line "
            + ("n/a" if mean_null is None else f"{100 * mean_null:.1f} pts"),
            path=mean_path,
            null=mean_null,
        ),
    ]
    return {"verdict": combine(parts), "seeds": 1, "parts": parts}


# -- finding 3: extrapolation ---------------------------------------------------------------------------
def extrapolation_claim(sweep: list[dict], params: dict) -> dict:
    by_alpha = {r["alpha"]: r for r in sweep}
    lax, strict = by_alpha.get(0.0), by_alpha.get(1.0)
    below = [r for r in sweep if -0.5 <= r["alpha"] < 0]
    above = [r for r in sweep if 1 < r["alpha"] <= 1.5]
    far = [r for r in sweep if abs(r["alpha"]) > 2]
    names = (
        "the trade-off continues beyond both endpoints",
        "stable over [-0.5, 1.5]",
        "far out: mainly format errors",
    )
    if not lax or not strict or not below or not above:
        return {"verdict": ABSENT, "parts": [_part(n, ABSENT, "alphas missing") for n in names]}
    near = [min(below, key=lambda r: r["alpha"]), max(above, key=lambda r: r["alpha"])]
    lo_r, hi_r = near
    continues = (
        lo_r[OPT] >= lax[OPT]
        and lo_r[CORR] <= lax[CORR]
        and hi_r[OPT] <= strict[OPT]
        and hi_r[CORR] >= strict[CORR]
    )
    inside = [r for r in sweep if -0.5 <= r["alpha"] <= 1.5]
    limit = max(lax[FORMAT], strict[FORMAT]) + params["stable_format_margin"]
    worst = max(inside, key=lambda r: r[FORMAT])
    parts = [
        _part(
            names[0],
            HOLDS if continues else FAILS,
            f"alpha {lo_r['alpha']:g}: opt {100 * lo_r[OPT]:.0f}% vs {100 * lax[OPT]:.0f}% at 0, corr "
            f"{100 * lo_r[CORR]:.0f}% vs {100 * lax[CORR]:.0f}%; alpha {hi_r['alpha']:g}: opt "
            f"{100 * hi_r[OPT]:.0f}% vs {100 * strict[OPT]:.0f}% at 1, corr {100 * hi_r[CORR]:.0f}% vs "
            f"{100 * strict[CORR]:.0f}%",
        ),
        _part(
            names[1],
            HOLDS if worst[FORMAT] <= limit else FAILS,
            f"most format errors in [-0.5, 1.5]: {100 * worst[FORMAT]:.0f}% at alpha {worst['alpha']:g}; rule: "
            f"<= {100 * limit:.0f}%",
        ),
    ]
    if far:
        base = {o: (lax[o] + strict[o]) / 2 for o in (OPT, CORR, FORMAT, CORRECT)}
        rise = {o: sum(r[o] for r in far) / len(far) - base[o] for o in (OPT, CORR, FORMAT, CORRECT)}
        mainly = rise[CORRECT] < 0 and rise[FORMAT] > max(rise[OPT], rise[CORR])
        parts.append(
            _part(
                names[2],
                HOLDS if mainly else FAILS,
                f"over |alpha| > 2 ({len(far)} alphas) against the endpoints' mean: correct {_pct(rise[CORRECT])}, "
                f"format {_pct(rise[FORMAT])}, opt {_pct(rise[OPT])}, corr {_pct(rise[CORR])}",
                rise=rise,
            )
        )
    else:
        parts.append(_part(names[2], ABSENT, "no alpha with |alpha| > 2"))
    return {"verdict": combine(parts), "seeds": 1, "parts": parts}


# -- finding 6: the session settings -------------------------------------------------------------------
SESSIONS = ("tool", "agentic")
# what of finding 3 a session sweep decides: its alphas stay inside [-0.5, 1.5] (the far-out part
# needs |alpha| > 2, which the session arm's budget does not reach)
SESSION_EXTRAPOLATION_PARTS = ("the trade-off continues beyond both endpoints", "stable over [-0.5, 1.5]")


def session_findings(setting: dict | None, params: dict, resamples: int = 1000, seed: int = 0) -> dict:
    """Findings 1-5 in one session setting, by the single-turn rules on the setting's own data
    (`trainer.replication.report.session_measures`): {n: claim}. Finding 3 takes its near parts only."""
    setting = setting or {}
    first = endpoints_claim(setting, params, resamples=resamples, seed=seed)
    sweep = setting.get("sweep") or []
    if sweep:
        third = extrapolation_claim(sweep, params)
        near = [p for p in third["parts"] if p["part"] in SESSION_EXTRAPOLATION_PARTS]
        third = {"verdict": combine(near), "seeds": third.get("seeds", 1), "parts": near}
    else:
        third = {"verdict": ABSENT, "seeds": 0, "parts": [_part("sweep", ABSENT, "the setting did not run")]}
    second = k_family_claim((setting.get("k_family") or {}).get("runs") or [], params)
    fourth = (
        pools_claim(setting.get("churn") or {}, setting.get("hard"))
        if sweep
        else {
            "verdict": ABSENT,
            "seeds": 0,
            "parts": [_part("sweep", ABSENT, "the setting did not run")],
        }
    )
    fifth = arms_claim(setting.get("frontier_position") or {})
    return {1: first, 2: second, 3: third, 4: fourth, 5: fifth}


def by_setting(rows: list[dict]) -> dict[str, dict[int, str]]:
    """The verdict of findings 1-5 in each setting (the table's second part): single-turn's rows, and
    each session setting's from finding 6's parts ("<setting>: finding <n>'s rule"); a finding a
    setting has no part for is not measured there."""
    out = {"single": {r["finding"]: r["verdict"] for r in rows if r["finding"] <= 5}}
    six = next((r for r in rows if r["finding"] == 6), None)
    for name in SESSIONS:
        verdicts = dict.fromkeys(range(1, 6), ABSENT)
        for part in (six or {}).get("parts", []):
            prefix = f"{name}: finding "
            if part["part"].startswith(prefix):
                verdicts[int(part["part"][len(prefix)])] = part["verdict"]
        out[name] = verdicts
    return out


# -- finding 4: churn and pools on the hard problems ------------------------------------------------------
def pools_claim(churn: dict, hard: dict | None) -> dict:
    names = (
        "per-problem churn along alpha",
        "pool beats best single on the hard problems",
        "solved only by extrapolation",
    )
    solved = churn.get("solved") or {}
    everything = set().union(*map(set, solved.values())) if solved else set()
    common = set.intersection(*map(set, solved.values())) if solved else set()
    changing = sorted(everything - common)
    parts = [
        _part(
            names[0],
            (HOLDS if changing else FAILS) if solved else ABSENT,
            f"{len(changing)} of {len(everything)} solved problems are solved at some alphas and not others",
        )
    ]
    if hard and hard.get("problems"):
        d = hard["difference"]
        lo, hi = d["interval95"]
        parts.append(
            _part(
                names[1],
                HOLDS if lo > 0 else FAILS,
                f"pass@{hard['budget']} on {hard['problems']} hard problems: pool "
                f"{hard['interpolation_extrapolation']['pass@B']:.3f}, best single "
                f"{hard['best_single']['pass@B']:.3f}, difference {_pct(d['point'])} {_iv(lo, hi)} over problems",
            )
        )
    else:
        parts.append(_part(names[1], ABSENT, "no hard problems"))
    only = churn.get("solved_only_by_extrapolation")
    parts.append(
        _part(
            names[2],
            ABSENT if only is None else HOLDS if only else FAILS,
            f"{len(only or [])} problem(s)" + (f": {', '.join(only)}" if only else ""),
        )
    )
    return {"verdict": combine(parts), "seeds": 1, "parts": parts}


# -- finding 5: the arms against the frontier --------------------------------------------------------------
def arms_claim(positions: dict) -> dict:
    partial, repair = positions.get("partial"), positions.get("repair")
    parts = [
        _part(
            "partial credit stays on the frontier",
            ABSENT if partial is None else FAILS if partial["moves_frontier_outward"] else HOLDS,
            "not run"
            if partial is None
            else f"correct {partial['correct_vs_best']} the best sweep point; dominated by "
            f"{len(partial['dominated_by'])} sweep point(s)",
        ),
        _part(
            "repair training moves the frontier outward",
            ABSENT if repair is None else HOLDS if repair["moves_frontier_outward"] else FAILS,
            "not run"
            if repair is None
            else f"correct {repair['correct_vs_best']} the best sweep point; dominated by "
            f"{len(repair['dominated_by'])} sweep point(s)",
        ),
    ]
    return {"verdict": combine(parts), "seeds": 1, "parts": parts}


# -- the table ------------------------------------------------------------------------------------------
def claims(summary: dict, params: dict | None = None) -> list[dict]:
    params = {**DEFAULTS, **(params or {})}
    resamples = (summary.get("config") or {}).get("bootstrap_resamples", 1000)
    seed = (summary.get("config") or {}).get("seed", 0)
    settings = summary.get("settings") or {}
    single = settings.get("single") or {}
    sweep = single.get("sweep") or []
    found = {
        1: endpoints_claim(single, params, resamples=resamples, seed=seed),
        2: k_family_claim((summary.get("k_family") or {}).get("runs") or [], params),
        3: extrapolation_claim(sweep, params) if sweep else {"verdict": ABSENT, "parts": []},
        4: pools_claim(summary.get("churn") or {}, (summary.get("ensemble") or {}).get("hard")),
        5: arms_claim(summary.get("frontier_position") or {}),
    }
    sessions = {name: session_findings(settings.get(name), params, resamples, seed) for name in SESSIONS}
    parts = [
        _part(f"{name}: finding {n}'s rule", c["verdict"], "; ".join(p["figure"] for p in c["parts"]))
        for name, by in sessions.items()
        for n, c in by.items()
    ]
    found[6] = {
        "verdict": combine(parts),
        "seeds": min((c.get("seeds", 0) for by in sessions.values() for c in by.values()), default=0),
        "parts": parts,
    }
    return [
        {
            "finding": n,
            "paper": PAPER[n],
            "verdict": found[n]["verdict"],
            "seeds": found[n].get("seeds", 0),
            "figure": "; ".join(f"{p['part']}: {p['figure']} ({p['verdict']})" for p in found[n]["parts"]),
            "parts": found[n]["parts"],
        }
        for n in sorted(found)
    ]


def claims_markdown(rows: list[dict]) -> list[str]:
    lines = [
        "## The paper's findings, claim by claim (rule: docs/spec.md 12.6)",
        "",
        "| # | the paper | this run (95% intervals) | seeds | verdict |",
        "| ---: | --- | --- | ---: | --- |",
    ]
    for r in rows:
        paper, figure = (text.replace("|", "\\|") for text in (r["paper"], r["figure"]))
        lines.append(f"| {r['finding']} | {paper} | {figure} | {r['seeds']} | **{r['verdict']}** |")
    reasons = sorted({r["reason"] for r in rows if r.get("reason")})
    if reasons:  # a run that decides no claim (docs/spec.md 12.9's difficulty pilot)
        lines += ["", *(f"Every verdict is `not measured`: {reason}." for reason in reasons)]
    table = by_setting(rows)
    lines += [
        "",
        "By setting (findings 1-5; the session settings' verdicts are finding 6's parts):",
        "",
        "| finding | single-turn | tool use | agentic |",
        "| ---: | --- | --- | --- |",
    ]
    for n in range(1, 6):
        lines.append(f"| {n} | {table['single'][n]} | {table['tool'][n]} | {table['agentic'][n]} |")
    return [*lines, ""]
