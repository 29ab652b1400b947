"""The difficulty pilot's rule (docs/spec.md 12.9), as pure functions: the design is the first rung of
the ladder, in its order, whose SFT policy's correct share on the pilot's tier lies in the window; when
no rung's does, the run is "difficulty not matched" and decides no claim (every verdict `not
measured`, with that reason), while every figure is still reported.
"""

from __future__ import annotations

from collections.abc import Sequence

from trainer.replication.claims import ABSENT

NOT_MATCHED = "difficulty not matched"


def correct_share(outcomes: Sequence[str | None]) -> float | None:
    """The correct share of judged samples (None: a judge error, left out); None without any."""
    judged = [o for o in outcomes if o is not None]
    return sum(o == "correct" for o in judged) / len(judged) if judged else None


def in_window(share: float | None, window: Sequence[float]) -> bool:
    return share is not None and window[0] <= share <= window[1]


def choose_rung(rungs: Sequence[dict], window: Sequence[float]) -> dict:
    """`rungs`: in the ladder's order, each `{"efficient": n, "correct": share or None}` (None: not
    measured). Returns `{"design": n or None, "matched": bool, "reason": str or None}`."""
    for rung in rungs:
        if in_window(rung.get("correct"), window):
            return {"design": rung["efficient"], "matched": True, "reason": None}
    shares = ", ".join(f"{r['efficient']}: {_share(r.get('correct'))}" for r in rungs)
    return {
        "design": None,
        "matched": False,
        "reason": f"{NOT_MATCHED}: no rung's correct share lies in [{window[0]:.2f}, {window[1]:.2f}] "
        f"(efficient programs per problem: share; {shares})",
    }


def _share(share: float | None) -> str:
    return "not run" if share is None else f"{share:.3f}"


def next_rung_needed(rungs: Sequence[dict], window: Sequence[float], end_below: bool = False) -> bool:
    """Whether the pilot goes on to the next rung: no rung measured so far matched (the first that
    matches is the design, so the rungs after it are never needed) and, with `end_below` (spec 12.10),
    none lay below the window (fewer efficient programs are not expected to do better)."""
    if any(in_window(r.get("correct"), window) for r in rungs):
        return False
    return not (end_below and any(_below(r.get("correct"), window) for r in rungs))


def _below(share: float | None, window: Sequence[float]) -> bool:
    return share is not None and share < window[0]


def unmatched_claims(claims: Sequence[dict], reason: str) -> list[dict]:
    """The claims table of a run whose difficulty was not matched: every verdict `not measured`, the
    reason beside it, the figures kept (they are still reported)."""
    out = []
    for c in claims:
        parts = [{**p, "verdict": ABSENT} for p in c.get("parts") or []]
        # the figure as the claims table writes it (trainer/replication/claims.py), each part now
        # `not measured`: the numbers stay, no part's verdict by the rule is shown as decided
        figure = (
            "; ".join(f"{p['part']}: {p['figure']} ({ABSENT})" for p in parts) if parts else c.get("figure")
        )
        out.append({**c, "verdict": ABSENT, "reason": reason, "parts": parts, "figure": figure})
    return out


def difficulty_markdown(difficulty: dict | None) -> list[str]:
    """report.md's first section: the pilot's rungs and shares, and the design it chose (or not)."""
    if not difficulty:
        return []
    lo, hi = difficulty["window"]
    lines = [
        f"## Difficulty: the pilot (docs/spec.md 12.9; SFT only, correct share on {difficulty['tier']})",
        "",
        "| efficient programs per training problem | SFT fit on the training prompts (spec 12.10) "
        "| judged | correct share | in the window |",
        "| ---: | --- | ---: | ---: | --- |",
    ]
    for r in difficulty["rungs"]:
        share = r.get("correct")
        lines.append(
            f"| {r['efficient']} | {fit_text(r.get('fit'))} | {r.get('judged', 0)} | {_share(share)} | "
            f"{'yes' if in_window(share, (lo, hi)) else 'no'} |"
        )
    lines.append("")
    if difficulty["matched"]:
        lines.append(
            f"The design: {difficulty['design']} efficient programs per training problem, the first rung "
            f"whose correct share lies in [{lo:.2f}, {hi:.2f}]; the rungs after it were not needed."
        )
    else:
        lines.append(f"**{difficulty['reason']}**: no claim is decided (every verdict is `not measured`).")
    return [*lines, ""]


def fit_text(fit: dict | None) -> str:
    """A rung's training-fit checks as one cell: the parse share at each checked epoch, and the end."""
    if not fit:
        return "-"
    checks = ", ".join(f"{c['parse_share']:.2f} @ {c['epoch']:g}" for c in fit.get("checks", []))
    target = fit["rule"]["parse_share"]
    end = "reached" if fit.get("reached") else "not reached"
    return f"parse {checks} (target {target:.2f} {end})"
