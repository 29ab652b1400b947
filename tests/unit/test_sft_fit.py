"""The families miniature's revision 1 (docs/spec.md 12.10): the SFT training-fit rule as a table (the
parse share at each check, the target, the cap -> when SFT stops and whether it reached the target),
what counts as parsing, its config keys, and the pilot's ladder ending at a rung below the window."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from trainer.replication.config import PilotSection, SFTSection
from trainer.replication.fit import FitRule, check_epochs, fit_decision, parses
from trainer.replication.pilot import choose_rung, difficulty_markdown, fit_text, next_rung_needed


@pytest.mark.parametrize(
    ("check_every", "max_epochs", "epochs"),
    [
        (4, 16, [4, 8, 12, 16]),
        (4, 18, [4, 8, 12, 16, 18]),  # the cap is always a check
        (5, 5, [5]),
        (3, 2, [2]),
        (0.5, 1.5, [0.5, 1.0, 1.5]),
    ],
)
def test_the_checks_fall_every_check_every_epochs_and_at_the_cap(check_every, max_epochs, epochs):
    assert check_epochs(check_every, max_epochs) == pytest.approx(epochs)


@pytest.mark.parametrize(
    ("shares", "target", "stop", "reached", "epochs"),
    [
        ([], 0.9, False, False, 0.0),  # nothing checked yet: go on
        ([0.3], 0.9, False, False, 4),
        ([0.3, 0.95], 0.9, True, True, 8),  # the first check at or over the target stops SFT
        ([0.3, 0.9], 0.9, True, True, 8),  # the target itself is enough
        ([0.89, 0.899, 0.5], 0.9, False, False, 12),  # under it by any margin is not
        ([0.1, 0.2, 0.3, 0.4], 0.9, True, False, 16),  # the cap: stops without the target
        ([0.95, 0.2], 0.9, True, True, 4),  # a later share does not undo the stop
        ([0.5, 0.6, 0.7, 0.91], 0.9, True, True, 16),  # reached at the cap's own check
        ([0.0], 0.0001, False, False, 4),
    ],
)
def test_the_training_fit_rule(shares, target, stop, reached, epochs):
    decision = fit_decision(shares, FitRule(parse_share=target, check_every=4, max_epochs=16))
    assert decision == {"stop": stop, "reached": reached, "epochs": pytest.approx(epochs)}


@pytest.mark.parametrize(
    ("completion", "ok"),
    [
        ("```python\nx = int(input())\nprint(x)\n```", True),
        ("```python\nprint(1)\n```\nthat is all", True),
        ("```python\nfor i in range(3)\n    print(i)\n```", False),  # does not compile
        ("```python\nprint(1)\n", False),  # the fence never closes: no program
        ("print(1)", False),  # no fence: the judge's extractor finds nothing
        ("```python\n\n```", False),
    ],
)
def test_parses_is_the_judges_extractor_and_compile(completion, ok):
    assert parses(completion) is ok


def test_the_config_keys():
    assert SFTSection().fit_parse_share is None  # off unless a config sets it
    s = SFTSection(fit_parse_share=0.9, fit_check_every=4, fit_max_epochs=16)
    assert (s.fit_parse_share, s.fit_check_every, s.fit_max_epochs) == (0.9, 4, 16)
    for bad in ({"fit_parse_share": 0}, {"fit_parse_share": 1.2}, {"fit_check_every": 0}):
        with pytest.raises(ValidationError):
            SFTSection(**bad)
    with pytest.raises(ValidationError, match="fit_check_every is more than fit_max_epochs"):
        SFTSection(fit_parse_share=0.9, fit_check_every=8, fit_max_epochs=4)
    assert PilotSection().end_below_window is True


@pytest.mark.parametrize(
    ("shares", "end_below", "needed"),
    [
        ([], True, True),
        ([0.8], True, True),  # above the window: the next rung (fewer efficient programs)
        ([0.1], True, False),  # below it: the ladder ends (12.10)
        ([0.1], False, True),  # 12.9's rule goes on
        ([0.8, 0.1], True, False),
        ([0.3], True, False),  # in it: the design
        ([None], True, True),  # not measured is neither
    ],
)
def test_the_ladder_ends_below_the_window(shares, end_below, needed):
    rungs = [{"efficient": e, "correct": s} for e, s in zip([4, 3, 2, 1], shares, strict=False)]
    assert next_rung_needed(rungs, (0.2, 0.6), end_below) is needed


def test_the_pilot_table_shows_each_rungs_fit():
    fit = {
        "rule": {"parse_share": 0.9},
        "checks": [{"epoch": 4.0, "parse_share": 0.5}, {"epoch": 8.0, "parse_share": 0.925}],
        "reached": True,
    }
    assert fit_text(fit) == "parse 0.50 @ 4, 0.93 @ 8 (target 0.90 reached)"
    assert fit_text(None) == "-"
    rungs = [
        {"efficient": 4, "correct": 0.1, "judged": 48, "fit": fit},
        {"efficient": 2, "correct": None, "judged": 0},
    ]
    difficulty = {"window": [0.2, 0.6], "tier": "tier1", "rungs": rungs, **choose_rung(rungs, (0.2, 0.6))}
    table = "\n".join(difficulty_markdown(difficulty))
    assert "| 4 | parse 0.50 @ 4, 0.93 @ 8 (target 0.90 reached) | 48 | 0.100 | no |" in table
    assert "| 2 | - | 0 | not run | no |" in table
