"""The claims table's rules (docs/spec.md 12.6) on rows built by hand: each rule decides holds, does not
hold, or not measured, and one function serves the single-turn, tool-use and agentic settings."""

from __future__ import annotations

import pytest

from trainer.replication.claims import (
    ABSENT,
    DEFAULTS,
    FAILS,
    HOLDS,
    by_setting,
    claims,
    claims_markdown,
    endpoints_claim,
    extrapolation_claim,
    k_family,
    k_family_claim,
    line_distance,
    path_distance,
    pools_claim,
    spearman,
)

PROBLEMS = [f"p{i}" for i in range(8)]


def row(opt, corr, fmt=0.0, *, alpha=None, name="x", spread=0.0, width=0.05):
    """A checkpoint row (checkpoint_row's keys) whose problems scatter by +-spread around the shares."""
    correct = 1 - opt - corr - fmt
    per_problem = {}
    for i, p in enumerate(PROBLEMS):
        d = spread if i % 2 else -spread
        per_problem[p] = {
            "correct": correct,
            "optimization_failure": opt + d,
            "correctness_failure": corr - d,
            "format_error": fmt,
        }
    shares = {
        "correct": correct,
        "optimization_failure": opt,
        "correctness_failure": corr,
        "format_error": fmt,
    }
    return {
        "name": name,
        "alpha": alpha,
        "checkpoint": name,
        "judged": 64,
        "judge_errors": 0,
        **shares,
        "interval95": {o: [max(0.0, v - width), min(1.0, v + width)] for o, v in shares.items()},
        "pass@1": correct,
        "pass@k": {},
        "solved": [],
        "per_problem": per_problem,
    }


def setting(lax, strict, sweep=()):
    return {"endpoints": {"lax": lax, "strict": strict}, "sweep": list(sweep)}


def test_the_endpoint_rule_holds_when_every_seed_and_the_problems_agree():
    lax = [row(0.30, 0.10, spread=0.02), row(0.28, 0.12, spread=0.02), row(0.32, 0.09, spread=0.02)]
    strict = [row(0.05, 0.33, spread=0.02), row(0.07, 0.31, spread=0.02), row(0.06, 0.34, spread=0.02)]
    c = endpoints_claim(setting(lax, strict), DEFAULTS)
    assert c["verdict"] == HOLDS and c["seeds"] == 3
    opt = c["parts"][0]["difference"]
    assert opt["point"] == pytest.approx((0.30 + 0.28 + 0.32 - 0.05 - 0.07 - 0.06) / 3)
    assert len(opt["per_seed"]) == 3 and opt["interval95"][0] > 0


def test_one_seed_the_other_way_and_a_changed_solve_rate_each_fail_the_rule():
    lax = [row(0.30, 0.10), row(0.30, 0.10), row(0.02, 0.10)]  # seed 2: fewer optimization failures
    strict = [row(0.05, 0.33)] * 3
    c = endpoints_claim(setting(lax, strict), DEFAULTS)
    assert c["parts"][0]["verdict"] == FAILS and c["verdict"] == FAILS
    # the strict run simply learns more: correct 91% against 61% (the demo's measured case)
    c = endpoints_claim(setting([row(0.30, 0.09)], [row(0.0, 0.09)]), DEFAULTS)
    assert c["parts"][1]["verdict"] == FAILS and c["parts"][2]["verdict"] == FAILS


def test_rows_without_per_problem_shares_use_the_wider_envelope_of_their_intervals():
    lax, strict = row(0.30, 0.10), row(0.05, 0.33)
    for r in (lax, strict):
        del r["per_problem"]
    d = endpoints_claim(setting([lax], [strict]), DEFAULTS)["parts"][0]["difference"]
    assert d["basis"].startswith("envelope") and d["interval95"] == pytest.approx([0.15, 0.35])


def test_absent_settings_are_not_measured_and_present_ones_use_the_same_rule():
    sweep = [row(0.30, 0.10, alpha=0.0), row(0.05, 0.33, alpha=1.0)]
    summary = {"settings": {"single": setting([sweep[0]], [sweep[1]], sweep)}, "churn": {}}
    table = claims(summary)
    assert [c["finding"] for c in table] == [1, 2, 3, 4, 5, 6]
    assert table[0]["verdict"] == HOLDS and table[5]["verdict"] == ABSENT
    assert table[1]["verdict"] == ABSENT  # no k-family
    tool_sweep = [
        row(0.35, 0.08, alpha=-0.5),
        row(0.30, 0.10, alpha=0.0),
        row(0.05, 0.33, alpha=1.0),
        row(0.03, 0.36, alpha=1.5),
    ]
    summary["settings"]["tool"] = setting([row(0.3, 0.1)], [row(0.05, 0.33)], tool_sweep)
    summary["settings"]["agentic"] = setting([row(0.3, 0.1)], [row(0.3, 0.1)])  # no difference, no sweep
    table = claims(summary)
    assert table[5]["verdict"] == FAILS
    parts = {p["part"]: p["verdict"] for p in table[5]["parts"]}
    assert parts == {
        "tool: finding 1's rule": HOLDS,
        "tool: finding 2's rule": ABSENT,  # no k-family, pools or arms in these settings
        "tool: finding 3's rule": HOLDS,  # its near parts: the far one needs |alpha| > 2
        "tool: finding 4's rule": ABSENT,
        "tool: finding 5's rule": ABSENT,
        "agentic: finding 1's rule": FAILS,
        "agentic: finding 2's rule": ABSENT,
        "agentic: finding 3's rule": ABSENT,
        "agentic: finding 4's rule": ABSENT,
        "agentic: finding 5's rule": ABSENT,
    }
    assert by_setting(table)["tool"] == {1: HOLDS, 2: ABSENT, 3: HOLDS, 4: ABSENT, 5: ABSENT}
    assert by_setting(table)["agentic"][1] == FAILS
    # a session sweep that breaks the trade-off beyond alpha 1 fails finding 3 there
    tool_sweep[3] = row(0.20, 0.10, alpha=1.5)
    summary["settings"]["tool"] = setting([row(0.3, 0.1)], [row(0.05, 0.33)], tool_sweep)
    table = claims(summary)
    assert {p["part"]: p["verdict"] for p in table[5]["parts"]}["tool: finding 3's rule"] == FAILS
    lines = claims_markdown(table)
    assert lines[0].startswith("## The paper's findings") and len(lines) == 4 + 6 + 5 + 5 + 1


def test_distances_to_the_path_and_to_the_null_line():
    path = [(0.1, 0.3), (0.15, 0.1), (0.35, 0.05)]  # bent: (corr, opt)
    assert path_distance((0.15, 0.1), path) == pytest.approx(0.0)
    assert path_distance((0.25, 0.1), path) == pytest.approx(
        0.005 / (0.2**2 + 0.05**2) ** 0.5
    )  # to the second segment
    assert line_distance((0.15, 0.1), (0.1, 0.3), (0.35, 0.05)) > 0.05
    assert path_distance((0.5, 0.5), [(0.5, 0.4)], scale=(0.1, 0.05)) == pytest.approx(2.0)
    assert spearman([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    assert spearman([1, 2, 3], [1, 1, 1]) is None


def test_a_family_on_the_bent_path_holds_and_one_off_it_does_not():
    sweep = [
        row(0.30, 0.10, alpha=0.0),
        row(0.10, 0.15, alpha=0.5),
        row(0.05, 0.35, alpha=1.0),
    ]
    on = [
        {"k": 2, "row": sweep[0], "endpoint": "lax"},
        {"k": 3, "row": row(0.12, 0.15, width=0.03), "endpoint": None},
        {"k": "inf", "row": sweep[2], "endpoint": "strict"},
    ]
    placed = k_family(on, sweep)
    assert placed[0]["distance_to_path"] == pytest.approx(0.0)
    assert placed[1]["distance_to_path"] < placed[1]["distance_to_null"]
    c = k_family_claim(placed, DEFAULTS)
    assert c["verdict"] == HOLDS, c
    off = [on[0], {"k": 3, "row": row(0.30, 0.35, width=0.03), "endpoint": None}, on[2]]
    c = k_family_claim(k_family(off, sweep), DEFAULTS)
    assert c["parts"][1]["verdict"] == FAILS and c["verdict"] == FAILS
    assert k_family_claim(placed[:2], DEFAULTS)["verdict"] == ABSENT


def test_extrapolation_far_out_degrading_through_format_errors():
    sweep = [
        row(0.10, 0.05, 0.60, alpha=-3.0),
        row(0.35, 0.08, alpha=-0.5),
        row(0.30, 0.10, alpha=0.0),
        row(0.05, 0.33, alpha=1.0),
        row(0.03, 0.36, alpha=1.5),
        row(0.02, 0.10, 0.70, alpha=4.0),
    ]
    c = extrapolation_claim(sweep, DEFAULTS)
    assert [p["verdict"] for p in c["parts"]] == [HOLDS, HOLDS, HOLDS]
    sweep[1] = row(0.20, 0.08, 0.30, alpha=-0.5)  # unstable inside [-0.5, 1.5], and the trade-off breaks
    c = extrapolation_claim(sweep, DEFAULTS)
    assert [p["verdict"] for p in c["parts"]] == [FAILS, FAILS, HOLDS]
    assert extrapolation_claim(sweep[2:4], DEFAULTS)["verdict"] == ABSENT


def test_pools_churn_and_extrapolation_only_problems():
    churn = {"solved": {"a": ["p1", "p2"], "b": ["p1"]}, "solved_only_by_extrapolation": ["p2"]}
    hard = {
        "problems": 4,
        "budget": 8,
        "best_single": {"pass@B": 0.4},
        "interpolation_extrapolation": {"pass@B": 0.5},
        "difference": {"point": 0.1, "interval95": [0.02, 0.2]},
    }
    assert pools_claim(churn, hard)["verdict"] == HOLDS
    hard["difference"]["interval95"] = [-0.05, 0.2]
    assert pools_claim(churn, hard)["parts"][1]["verdict"] == FAILS
    assert pools_claim(churn, None)["parts"][1]["verdict"] == ABSENT
    churn = {"solved": {"a": ["p1"], "b": ["p1"]}, "solved_only_by_extrapolation": []}
    assert [p["verdict"] for p in pools_claim(churn, None)["parts"]] == [FAILS, ABSENT, FAILS]


def test_the_markdown_table_escapes_the_bars_in_its_cells():
    table = claims({"settings": {}, "churn": {}})
    row = next(line for line in claims_markdown(table) if line.startswith("| 3 |"))
    assert "(\\|alpha\\| > 2)" in row
    assert row.replace("\\|", "").count("|") == 6  # five cells


def session_setting_with_every_arm(tool_sweep):
    """A tool setting with what `trainer.replication.report.session_measures` adds: a k-family on its path, the
    arms' frontier positions, churn and pools on its hard problems."""
    family = k_family(
        [
            {"k": 3, "row": tool_sweep[1], "endpoint": "lax"},
            {"k": 4, "row": row(0.10, 0.15, width=0.03), "endpoint": None},
            {"k": "inf", "row": tool_sweep[3], "endpoint": "strict"},
        ],
        tool_sweep,
    )
    return {
        **setting([row(0.3, 0.1)], [row(0.05, 0.33)], tool_sweep),
        "k_family": {"runs": family},
        "frontier_position": {
            "partial": {"moves_frontier_outward": False, "correct_vs_best": "within", "dominated_by": [1.0]},
            "repair": {"moves_frontier_outward": True, "correct_vs_best": "above", "dominated_by": []},
        },
        "churn": {"solved": {"a": ["p1", "p2"], "b": ["p1"]}, "solved_only_by_extrapolation": ["p2"]},
        "hard": {
            "problems": 4,
            "budget": 2,
            "best_single": {"pass@B": 0.4},
            "interpolation_extrapolation": {"pass@B": 0.5},
            "difference": {"point": 0.1, "interval95": [0.02, 0.2]},
        },
    }


def test_a_session_setting_with_its_k_family_pools_and_arms_measures_every_finding():
    """Findings 2, 4 and 5 in a session setting by the single-turn rules (docs/spec.md 12.6, 12.7): all
    five measured there, shown in the by-setting table; one failing part fails that finding only."""
    tool_sweep = [
        row(0.35, 0.08, alpha=-0.5),
        row(0.30, 0.10, alpha=0.0),
        row(0.10, 0.15, alpha=0.5),  # the path bends here, off the straight line (the null)
        row(0.05, 0.33, alpha=1.0),
        row(0.03, 0.36, alpha=1.5),
    ]
    sweep = [row(0.30, 0.10, alpha=0.0), row(0.05, 0.33, alpha=1.0)]
    summary = {
        "settings": {
            "single": setting([sweep[0]], [sweep[1]], sweep),
            "tool": session_setting_with_every_arm(tool_sweep),
        },
        "churn": {},
    }
    table = claims(summary)
    assert by_setting(table)["tool"] == dict.fromkeys(range(1, 6), HOLDS)
    assert by_setting(table)["agentic"] == dict.fromkeys(range(1, 6), ABSENT)
    tool = summary["settings"]["tool"]
    tool["hard"]["difference"]["interval95"] = [-0.05, 0.2]  # the pool does not beat the best single
    tool["frontier_position"]["partial"]["moves_frontier_outward"] = True  # partial credit moves it
    verdicts = by_setting(claims(summary))["tool"]
    assert verdicts == {1: HOLDS, 2: HOLDS, 3: HOLDS, 4: FAILS, 5: FAILS}
    six = next(r for r in claims(summary) if r["finding"] == 6)
    assert six["verdict"] == FAILS and "tool: finding 4's rule" in {p["part"] for p in six["parts"]}
    rows = [line for line in claims_markdown(claims(summary)) if line.startswith("| 4 | ")]
    assert rows[-1] == "| 4 | not measured | does not hold | not measured |"  # single: no churn here


def test_session_measures_read_the_settings_samples_and_the_report_shows_them(tmp_path):
    """`trainer.replication.report.session_measures` on a session setting's own samples: churn along its sweep,
    pools on its hard problems (the warm-up's correct share at most the threshold) at its budget, the
    k-family and the arms placed against its sweep; `session_markdown` shows them."""
    from types import SimpleNamespace

    from services.evaluator.records import SampleRecord
    from trainer.replication.report import checkpoint_row, session_markdown, session_measures

    solved = {-0.5: {"p1"}, 0.0: {"p0"}, 1.0: {"p0"}, 1.5: set()}  # p1 only at an extrapolated alpha
    records, sweep = [], []
    for alpha, good in solved.items():
        name = f"alpha_{alpha:g}"
        recs = [
            SampleRecord(
                checkpoint=name,
                alpha=alpha,
                problem_id=p,
                sample_index=i,
                status="ok",
                outcome="correct" if p in good and i == 0 else "correctness_failure",
                rewards={},
                completion="x",
                seed=0,
            )
            for p in ("p0", "p1")
            for i in range(2)
        ]
        records += recs
        sweep.append(checkpoint_row(name, alpha, recs, 100, 0))
    samples = tmp_path / "samples.jsonl"
    samples.write_text("".join(r.model_dump_json() + "\n" for r in records))
    warm = {"per_problem": {"p0": {"correct": 1.0}, "p1": {"correct": 0.0}}}
    arm = {**sweep[1], "name": "k_4", "alpha": None}
    setting_ = {
        **setting([sweep[1]], [sweep[2]], sweep),
        "rows": {"warmup": warm},
        "samples": str(samples),
        "arms": {"k_4": arm, "partial": {**arm, "name": "partial"}},
        "k_family_ks": [3, 4, "inf"],
    }
    grpo = SimpleNamespace(lax_k=3, strict_k="inf")
    m = session_measures(setting_, grpo, 0.5, 2, 100, 0)
    assert m["churn"]["solved_only_by_extrapolation"] == ["p1"]
    assert m["hard"]["hard_problems"] == ["p1"] and m["hard"]["budget"] == 2
    # p1: alpha -0.5 solves it once in 2 (both drawn: 1.0); the pool of four alphas draws one sample
    # from two of them: -0.5 among them half the time, its one sample correct half the time
    assert m["hard"]["best_single"]["pass@B"] == pytest.approx(1.0)
    assert m["hard"]["interpolation_extrapolation"]["pass@B"] == pytest.approx(0.25)
    assert [e["endpoint"] for e in m["k_family"]["runs"]] == ["lax", None, "strict"]
    assert list(m["frontier_position"]) == ["partial"]
    # no sample reports a reward (each read as 0): the setting's ks, its k-family's and endpoints', agree
    assert m["reward_agreement"] == {
        "ks": [3, 4, "inf"],
        "samples": 16,
        "left_out": 0,
        "groups": [[3, 4, "inf"]],
    }
    four = pools_claim(m["churn"], m["hard"])
    assert [p["verdict"] for p in four["parts"]] == [HOLDS, FAILS, HOLDS]
    text = "\n".join(session_markdown({"settings": {"tool": {**setting_, **m}}}))
    assert "## The tool setting" in text and "| k_4 | 4 |" in text and "only by extrapolation: p1" in text
