"""The session arm that learns (trainer/replication/session_arm.py, docs/spec.md 12.6), against a running judge (a
real Redis, judge API and worker holding real session sandboxes): scripted episodes of programs in
real sessions recorded as the rollout formats them, the warm-up's masking, a warm-up that turns a
policy that never calls a tool into one that does, and the evaluation of a checkpoint's episodes
with the judge's verdicts in `checkpoint_row`'s format."""

from __future__ import annotations

import json

import pytest

from services.judge.client import JudgeClient
from services.testing.checkpoints import byte_tokenizer, make_tiny_checkpoint
from tests.support import BUNDLED
from tests.support.redis import claim_redis_db
from tests.support.stack import judge_stack
from trainer.envs.core import FORMATS
from trainer.envs.rollout import SessionSettings
from trainer.replication.corpus import CorpusExample, fence
from trainer.replication.report import checkpoint_row
from trainer.replication.session_arm import (
    Transcript,
    build_transcripts,
    evaluate_checkpoint,
    scripted_turns,
    tokenize_transcript,
    warmup,
)

PROBLEM = "prefix_range_sums"
HELD_OUT = "bracket_depth"  # the session arm's evaluation set: never trained on
REF = (BUNDLED / PROBLEM / "ref.py").read_text()
WRONG = "print(0)\n"
PROMPT = "Solve the problem.\n"


@pytest.fixture(scope="module")
def redis_url():
    yield from claim_redis_db([*range(1, 8), *range(15, 7, -1)])


@pytest.fixture(scope="module")
def judge(redis_url, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("session-arm-stack")
    with judge_stack(tmp, "sarm", redis_url=redis_url, slots=2, job_retries=0, job_lease_s=30) as stack:
        with JudgeClient(stack.judge_url) as client:
            client.put_problem_dir(BUNDLED / PROBLEM)
            client.put_problem_dir(BUNDLED / HELD_OUT)
            yield client


def judged(judge: JudgeClient, code: str) -> str:
    [r] = judge.judge([{"id": "d", "problem_id": PROBLEM, "language": "python", "code": code}])
    return r.outcome.value


def corpus() -> list[CorpusExample]:
    return [
        CorpusExample(PROBLEM, "efficient", "ref.py", "p", fence(REF)),
        CorpusExample(PROBLEM, "wrong", "wrong", "p", fence(WRONG)),
    ]


def first_public_output(files: list[str] | None = None) -> str:
    ins = sorted(p for p in (BUNDLED / PROBLEM / "tests").iterdir() if p.suffix == ".in")
    return ins[0].with_suffix(".out").read_text()


@pytest.fixture(scope="module")
def transcripts(judge):
    out = {}
    for setting in ("tool", "agentic"):
        out[setting] = build_transcripts(
            judge, corpus(), {PROBLEM: PROMPT}, SessionSettings(setting, turns=3)
        )
    return out


def test_scripted_episodes_in_real_sessions_record_the_real_output_and_verdict(judge, transcripts):
    before = {s["id"] for s in judge.sessions()}
    tool_ref, tool_wrong = transcripts["tool"]
    assert tool_ref.prompt == PROMPT + f"\n\n{FORMATS['tool']}\n\n"
    assert tool_ref.actions == ["run", "submit"] and tool_ref.turns[-1] == fence(REF)
    # the interpreter ran the program on the first public test: its real output, as the rollout appends it
    assert tool_ref.observations == ["\n<output>\n" + first_public_output() + "</output>\n"]
    assert tool_wrong.observations == ["\n<output>\n0\n</output>\n"]
    assert (tool_ref.outcome, tool_wrong.outcome) == (judged(judge, REF), judged(judge, WRONG))
    assert (tool_ref.reward, tool_wrong.reward) == (1.0, 0.0)

    agent_ref, agent_wrong = transcripts["agentic"]
    assert agent_ref.actions == ["write", "run", "submit"]
    assert agent_ref.observations[0] == f"\n<output>\nwrote {len(REF)} bytes to solution.py\n</output>\n"
    assert agent_ref.observations[1] == "\n<output>\nPASS\n</output>\n"  # diff found nothing
    assert "[exit code 1]" in agent_wrong.observations[1] and "0" in agent_wrong.observations[1]
    assert agent_ref.turns[-1] == '<submit path="solution.py"/>'
    assert (agent_ref.outcome, agent_wrong.outcome) == (judged(judge, REF), judged(judge, WRONG))
    assert "statement.md" in agent_ref.prompt  # the instructions name the session's files
    assert {s["id"] for s in judge.sessions()} <= before  # every episode's session was deleted


def test_partial_credit_and_retry_episodes_in_real_sessions(judge):
    """The session arm's partial-credit and repair rollouts (SessionEnv's `credit` and `retry`): the
    credit is the judge's partial credit of the submission; with `retry` a failed submission's
    verdict and feedback come back with the rollout still open, and the next submission is judged."""
    from trainer.envs.core import SessionEnv

    [judged_wrong] = judge.judge([{"id": "w", "problem_id": PROBLEM, "language": "python", "code": WRONG}])
    with SessionEnv(judge, "tool", k="inf", max_turns=3, credit="discrete") as env:
        env.reset(PROBLEM)
        step = env.step(fence(WRONG))
        assert step.done and env.reward == pytest.approx(
            sum(judged_wrong.rewards.values()) / len(judged_wrong.rewards)
        )
        env.reset(PROBLEM)
        assert env.step(fence(REF)).reward == 1.0
    with SessionEnv(judge, "agentic", k="inf", max_turns=5, retry=True) as env:
        env.reset(PROBLEM)
        env.step(f'<write path="solution.py">\n{WRONG}</write>')
        step = env.step('<submit path="solution.py"/>')
        assert not step.done and env.submissions == 1 and "submit again" in step.observation
        assert "outcome: correctness_failure" in step.observation and env.reward == 0.0
        env.step(f'<write path="solution.py">\n{REF}</write>')
        step = env.step('<submit path="solution.py"/>')
        assert step.done and step.reward == 1.0 and env.submissions == 2 and env.outcome == "correct"
    with SessionEnv(judge, "tool", k="inf", max_turns=2, retry=True) as env:  # no turn left: done
        env.reset(PROBLEM)
        assert not env.step(fence(WRONG)).done
        step = env.step(fence(WRONG))
        assert step.done and step.reward == 0.0 and env.submissions == 2
    with pytest.raises(ValueError, match="unknown credit"):
        SessionEnv(judge, "tool", credit="half")


def test_a_tokenized_transcript_trains_on_the_policy_turns_only():
    t = Transcript(
        PROBLEM,
        "agentic",
        "efficient",
        "x",
        "Q\n",
        ["<bash>\nls\n</bash>", '<submit path="a.py"/>'],
        ["\n<output>\nstatement.md\n</output>\n"],
        "correct",
        1.0,
    )
    tok = byte_tokenizer()
    row = tokenize_transcript(tok, t)
    ids, mask = row["input_ids"], row["completion_mask"]
    assert len(ids) == len(mask)
    assert tok.decode([i for i, m in zip(ids, mask, strict=True) if m]) == "".join(t.turns) + tok.eos_token
    assert tok.decode([i for i, m in zip(ids, mask, strict=True) if not m]) == t.prompt + t.observations[0]
    assert ids == tok(t.prompt + t.turns[0] + t.observations[0] + t.turns[1]).input_ids + [tok.eos_token_id]
    with pytest.raises(ValueError, match="unknown setting"):
        scripted_turns("chess", "x", None)


def test_the_warm_up_makes_a_policy_call_its_tools_and_submit(judge, transcripts, tmp_path):
    """A random policy (whole turns as tokens of its vocabulary) never calls a tool; after the warm-up on
    the agentic transcripts its episodes in real sessions write, run the test, and submit a program
    the judge finds correct. The evaluation's rows are checkpoint_row's, outcomes from the judge."""
    [ref, _] = transcripts["agentic"]
    pieces = [*ref.turns, "</output>\n"]
    init = make_tiny_checkpoint(tmp_path / "init", seed=0, hidden=64, tokenizer=byte_tokenizer(pieces))
    settings = SessionSettings("agentic", turns=3)
    prompts = {PROBLEM: PROMPT}
    kw = dict(n_samples=2, temperature=0.2, max_turn_tokens=8, seed=0)
    before, before_stats = evaluate_checkpoint(init, "init", None, prompts, settings, judge, **kw)
    assert before_stats["tool_call"] < 1.0 and before_stats["submitted"] < 1.0
    warm = warmup(init, [ref] * 8, tmp_path / "warm", epochs=6, learning_rate=1e-2, batch_size=4)
    after, stats = evaluate_checkpoint(warm, "warm", None, prompts, settings, judge, **kw)
    assert stats["tool_call"] == stats["submitted"] == stats["parseable_submission"] == 1.0
    assert [r.outcome.value for r in after] == ["correct", "correct"]
    assert after[0].completion.endswith(ref.completion())  # the same episode the warm-up saw
    row = checkpoint_row("warm", None, after, 200, 0)
    assert row["correct"] == 1.0 and row["judged"] == 2 and row["solved"] == [PROBLEM]
    assert checkpoint_row("init", None, before, 200, 0)["format_error"] > 0  # no submission: format error


def test_the_session_section_lists_both_settings_and_takes_the_older_spelling():
    from pydantic import ValidationError

    from trainer.replication.config import SessionSection
    from trainer.replication.replicate import ROOT, load_config

    assert SessionSection().settings == ["tool", "agentic"]
    assert SessionSection.model_validate({"setting": "tool"}).settings == ["tool"]
    for bad in ({"settings": ["tool", "tool"]}, {"settings": ["chess"]}, {"seeds": []}, {"turns": 2}):
        with pytest.raises(ValidationError):
            SessionSection.model_validate(bad)
    s = load_config(ROOT / "configs" / "replicate_session.toml").grpo.session
    assert s.settings == ["tool", "agentic"] and 0.0 in s.alphas and 1.0 in s.alphas


def test_the_session_arm_refuses_to_evaluate_on_a_training_problem(tmp_path):
    from trainer.replication.replicate import ROOT, load_config
    from trainer.replication.session_arm import run_session_arm

    config = load_config(ROOT / "configs" / "replicate_session.toml")
    policy = {"checkpoint": str(tmp_path), "corpus": str(tmp_path / "corpus.jsonl")}
    for held_out in ([BUNDLED / PROBLEM], [BUNDLED / HELD_OUT, BUNDLED / PROBLEM], []):
        with pytest.raises(ValueError, match="held-out problems only"):
            run_session_arm(
                config,
                policy,
                [BUNDLED / PROBLEM],
                tmp_path,
                None,
                None,
                None,
                grpo_hash={},
                eval_dirs=held_out,
            )


@pytest.mark.slow
@pytest.mark.timeout(900)  # about 2 minutes unloaded, 5 on the loaded 2-core machine
def test_the_arms_stages_write_rows_per_setting_in_the_summarys_shape(judge, tmp_path):
    """run_session_arm end to end at the smallest size (configs/replicate_session.toml, one problem, one
    GRPO step): for each setting, endpoints per seed and a sweep row per alpha in checkpoint_row's
    format with the tool-use shares, the warm-up's before and after; a second run reuses every stage."""
    from types import SimpleNamespace

    from trainer.replication.config import RepairSection
    from trainer.replication.corpus import write_corpus
    from trainer.replication.replicate import OPTIONAL_ARMS, ROOT, Stages, load_config
    from trainer.replication.session_arm import run_session_arm

    config = load_config(ROOT / "configs" / "replicate_session.toml")
    small = {"n_samples": 1, "alphas": [-0.5, 0.0, 1.0], "max_turn_tokens": 8}
    session = config.grpo.session.model_copy(update=small)
    grpo = config.grpo.model_copy(update={"num_generations": 2, "session": session})
    train = config.train.model_copy(update={"problems": [PROBLEM]})
    held_out = config.eval.model_copy(update={"problems": [HELD_OUT]})
    config = config.model_copy(update={"train": train, "eval": held_out, "grpo": grpo})
    # the first run as before the further arms existed; the second adds them (one step each)
    extras = config.grpo.model_copy(
        update={
            "partial_credit": "discrete",
            "repair": RepairSection(turns=2, warmup_epochs=0),
            "session": session.model_copy(update={"k_family": [1, 2, "inf"]}),
        }
    )
    extended = config.model_copy(update={"grpo": extras})
    init = make_tiny_checkpoint(tmp_path / "init", seed=0, hidden=64, tokenizer=byte_tokenizer())
    policy = {"checkpoint": str(init), "corpus": str(write_corpus(corpus(), tmp_path / "corpus.jsonl"))}
    stack = SimpleNamespace(url=lambda service: judge.base_url)
    console = SimpleNamespace(rule=lambda *a: None, print=lambda *a: None)
    logged: list[str] = []
    run = tmp_path / "run"
    run.mkdir()
    grpo_hash = config.grpo.model_dump(exclude=OPTIONAL_ARMS)

    def arm(cfg=config, hashed=grpo_hash) -> dict:
        stages = Stages(run, logged.append)
        return run_session_arm(
            cfg,
            policy,
            [BUNDLED / PROBLEM],
            run,
            stages,
            stack,
            console,
            grpo_hash=hashed,
            eval_dirs=[BUNDLED / HELD_OUT],
        )

    out = arm()
    s = config.grpo.session
    assert sorted(out["settings"]) == sorted(out["runs"]) == ["agentic", "tool"]
    keys = set(checkpoint_row("x", None, [], 100, 0)) | {"tool_use"}
    for setting, summary in out["settings"].items():
        assert [len(summary["endpoints"][e]) for e in ("lax", "strict")] == [len(s.seeds)] * 2
        assert [r["alpha"] for r in summary["sweep"]] == s.alphas
        rows = [*summary["endpoints"]["lax"], *summary["endpoints"]["strict"], *summary["sweep"]]
        for row in rows:
            assert set(row) == keys and row["judged"] + row["judge_errors"] == s.n_samples
            total = sum(
                row[o] for o in ("correct", "optimization_failure", "correctness_failure", "format_error")
            )
            assert total == pytest.approx(1.0)
        assert summary["warmup"]["transcripts"]["count"] == 2
        assert summary["warmup"]["transcripts"]["outcomes"] == {"correct": 1, "correctness_failure": 1}
        assert set(summary["runs"]) == {f"{e}_s{sd}" for e in ("lax", "strict") for sd in s.seeds}
        assert (run / f"session_{setting}" / "transcripts.jsonl").is_file()
    assert all("arms" not in summary for summary in out["settings"].values())  # none asked for
    first_stages = list(json.loads((run / "stages.json").read_text()))
    logged.clear()
    again = arm(extended, extras.model_dump(exclude=OPTIONAL_ARMS))
    # a run made before the further arms resumes by running only theirs: every earlier stage reused
    stages = json.loads((run / "stages.json").read_text())
    new = [
        f"session_{st}_{a}"
        for st in ("tool", "agentic")
        for a in ("k_1_s0", "partial_s0", "repair_s0", "arms_eval")
    ]
    assert list(stages) == first_stages + new
    reused = [line.removeprefix("[dim]").split(":")[0] for line in logged if "reused" in line]
    ran = [line.split(":")[0] for line in logged if "reused" not in line]
    assert reused == first_stages and ran == new
    for setting, summary in again["settings"].items():
        assert {k: summary[k] for k in out["settings"][setting]} == out["settings"][setting]
        assert sorted(summary["arms"]) == ["k_1", "partial", "repair"] and summary["k_family_ks"] == [
            1,
            2,
            "inf",
        ]
        for arm, r in summary["arms"].items():
            assert set(r) == keys and r["judged"] + r["judge_errors"] == s.n_samples and r["alpha"] is None
            assert summary["arm_runs"][arm]["steps"] == s.steps
        assert summary["arm_runs"]["repair"]["k"] == "repair-session-R_inf"
        samples = (run / f"session_{setting}" / "arms_samples.jsonl").read_text().splitlines()
        assert len(samples) == 3 * s.n_samples
        # every episode measured is on the held-out problem, none on the one trained on
        for name in ("samples.jsonl", "arms_samples.jsonl"):
            lines = (run / f"session_{setting}" / name).read_text().splitlines()
            assert {json.loads(line)["problem_id"] for line in lines} == {HELD_OUT}
    # the report's measures of findings 2, 4 and 5 in the setting, then the claims table's rows
    from trainer.replication.claims import claims
    from trainer.replication.report import session_measures

    tool = again["settings"]["tool"]
    measured = session_measures(tool, extras, 1.0, s.n_samples, 100, 0)
    assert [e["k"] for e in measured["k_family"]["runs"]] == [1, 2, "inf"]
    assert [e["endpoint"] for e in measured["k_family"]["runs"]] == [None, "lax", "strict"]
    assert sorted(measured["frontier_position"]) == ["partial", "repair"]
    assert set(measured["churn"]["solved"]) == {r["name"] for r in tool["sweep"]}
    assert measured["hard"]["budget"] == s.n_samples and measured["hard"]["hard_problems"] == [HELD_OUT]
    table = claims({"settings": {"tool": {**tool, **measured}}, "churn": {}})
    six = {p["part"]: p["verdict"] for p in table[5]["parts"]}
    for n in (2, 4, 5):  # measured: a verdict by the rule, whichever way it came out
        assert six[f"tool: finding {n}'s rule"] in ("holds", "does not hold"), table[5]
    # and the setting's own frontier plot: its sweep, its k-run, its arms and its warm-up drawn
    from trainer.replication.plots import plot_setting_frontier

    labels = plot_setting_frontier({**tool, **measured}, "tool", tmp_path / "frontier_tool.png")
    assert (tmp_path / "frontier_tool.png").read_bytes()[:4] == b"\x89PNG"
    drawn = sorted(t.split(" (")[0] for t in labels if not t.startswith("null"))
    # the k-family's every run, its endpoints (R_2 lax, R_inf strict here) included
    assert drawn == ["R_1 run", "R_2 run", "R_inf run", "partial credit", "repair-trained", "warm-up"], labels
