"""Environments for trainers over judge sessions (docs/spec.md section 13.5), each adapter against a
running judge (a real Redis, a real judge API and worker holding real session sandboxes): state
persists across steps, one session per rollout (counted with GET /sessions), release / close deletes
it, and the reward is what POST /judge gives for the same program. Then real multi-turn rollouts in
both settings with a planted tiny model, and one GRPO step on them through TRL."""

from __future__ import annotations

import asyncio
import gc
import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from services.judge.client import JudgeClient
from services.testing.checkpoints import program_pieces
from tests.support import BUNDLED, ROOT
from tests.support.models import bigram_checkpoint
from tests.support.redis import claim_redis_db
from tests.support.stack import judge_stack
from trainer.envs.core import FORMATS, STOP_STRINGS, SessionEnv, parse_action
from trainer.envs.rollout import SessionRollout, SessionSettings
from trainer.envs.step import AgentInstance, SkyRLSessionEnv
from trainer.envs.trl import AgenticEnvironment, ToolUseEnvironment, environment_factory
from trainer.envs.verl import JudgeSessionTool

PROBLEM = "prefix_range_sums"
REF = (BUNDLED / PROBLEM / "ref.py").read_text()
WRONG = "print(0)\n"


@pytest.fixture(scope="module")
def redis_url():
    yield from claim_redis_db([*range(1, 8), *range(15, 7, -1)])


@pytest.fixture(scope="module")
def judge(redis_url, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("envs-stack")
    with judge_stack(tmp, "env", redis_url=redis_url, slots=2, job_retries=0, job_lease_s=30) as stack:
        with JudgeClient(stack.judge_url) as client:
            client.put_problem_dir(BUNDLED / PROBLEM)
            yield client


def live(judge: JudgeClient) -> set[str]:
    return {s["id"] for s in judge.sessions()}


def judged(judge: JudgeClient, code: str) -> float:
    """R_inf of POST /judge for the same program."""
    [r] = judge.judge([{"id": "d", "problem_id": PROBLEM, "language": "python", "code": code}])
    assert r.status == "ok"
    return float(r.rewards["R_inf"])


# -- the format --------------------------------------------------------------------------------------
def test_the_format_parser():
    call = parse_action("tool", "let me try <python>\nx = 1\n</python> and more")
    assert (call.kind, call.text) == ("run", "x = 1\n")
    answer = parse_action("tool", "done:\n```python\nprint(1)\n```\n")
    assert (answer.kind, answer.text) == ("submit", "print(1)\n")
    assert parse_action("tool", "no program").kind == "none"
    first = parse_action("agentic", '<write path="a.py">\nprint(1)\n</write>\n<bash>\nls\n</bash>')
    assert (first.kind, first.path, first.text) == ("write", "a.py", "print(1)\n")
    assert parse_action("agentic", '<submit path="b.py"/>').path == "b.py"
    assert parse_action("agentic", "<submit/>").path == "solution.py"
    assert parse_action("agentic", "```python\nprint(1)\n```").kind == "none"  # agentic: files only
    with pytest.raises(ValueError, match="unknown setting"):
        parse_action("chess", "e4")


# -- the core environment -----------------------------------------------------------------------------
def test_core_tool_setting_state_persists_one_session_and_the_judges_reward(judge):
    before = live(judge)
    with SessionEnv(judge, "tool") as env:
        tail = env.reset(PROBLEM)
        assert FORMATS["tool"] in tail
        assert live(judge) - before == {env.session_id}
        first = env.step("<python>\nx = 41\n</python>")
        assert (first.done, first.reward, first.observation) == (False, 0.0, "<output>\n</output>\n")
        second = env.step("<python>\nprint(x + 1)\n</python>")
        assert second.observation == "<output>\n42\n</output>\n"  # the interpreter kept x
        assert live(judge) - before == {env.session_id}  # still one session for the rollout
        final = env.step(f"Here it is:\n```python\n{REF}```\n")
        assert final.done and final.info["outcome"] == "correct"
        assert final.reward == judged(judge, REF) == 1.0
        sid = env.session_id
    assert sid not in live(judge)  # deleted by close


def test_core_agentic_setting_files_shell_and_submit(judge):
    with SessionEnv(judge, "agentic", max_turns=6) as env:
        env.reset(PROBLEM)
        ins = [f for f in env.files if f.endswith(".in")]
        assert "statement.md" in env.files and ins
        wrote = env.step(f'<write path="solution.py">\n{WRONG}</write>')
        assert "wrote" in wrote.observation and not wrote.done
        env.step("<bash>\ncd tests && export N=7\n</bash>")
        where = env.step('<bash>\necho "$N"; ls *.in | head -1\n</bash>')  # cwd and variables kept
        assert where.observation == f"<output>\n7\n{Path(ins[0]).name}\n</output>\n"
        ran = env.step("<bash>\npython3 ../solution.py < " + Path(ins[0]).name + "\n</bash>")
        assert ran.observation == "<output>\n0\n</output>\n"  # the public test, run by the policy
        final = env.step('<submit path="../solution.py"/>')
        # a path outside the working directory is refused: no program, and no crash
        assert final.done and final.info["outcome"] == "format_error" and final.reward == 0.0
    with SessionEnv(judge, "agentic") as env:
        env.reset(PROBLEM)
        env.step(f'<write path="solution.py">\n{WRONG}</write>')
        final = env.step('<submit path="solution.py"/>')
        assert final.done and final.reward == judged(judge, WRONG) == 0.0
        assert final.info["outcome"] == "correctness_failure"


def test_core_turn_limit_and_no_answer(judge):
    with SessionEnv(judge, "agentic", max_turns=2) as env:
        env.reset(PROBLEM)
        assert "no action" in env.step("I think...").observation
        last = env.step("<bash>\ntrue\n</bash>")
        assert last.done and last.reward == 0.0 and last.info["outcome"] == "no_submission"
        with pytest.raises(RuntimeError, match="done"):
            env.step("<bash>\ntrue\n</bash>")
    with SessionEnv(judge, "tool") as env:
        env.reset(PROBLEM)
        last = env.step("no program here")
        assert last.done and last.reward == 0.0 and last.info["outcome"] == "format_error"


def test_a_session_lost_under_the_rollout_ends_it_as_a_judge_error(judge):
    """A session that expired or whose worker died: the rollout is done with no reward (None, which
    trainers leave out), never an exception in the trainer."""
    for setting, turn in (("tool", "<python>\n1\n</python>"), ("agentic", '<submit path="solution.py"/>')):
        with SessionEnv(judge, setting) as env:
            env.reset(PROBLEM)
            assert judge.delete_session(env.session_id)  # behind the environment's back
            step = env.step(turn)
            assert step.done and step.reward is None and step.info["outcome"] == "judge_error"
            assert step.observation == "<output>\n[dead]\n</output>\n"


# -- TRL -----------------------------------------------------------------------------------------------
def test_trl_environment_tools_and_reward(judge):
    from transformers.utils import get_json_schema

    # what TRL exposes as tools: the public methods but reset / get_reward, with their schemas
    tools = {n for n in dir(ToolUseEnvironment) if not n.startswith("_")} - {"reset", "get_reward", "setting"}
    assert tools == {"python", "submit"}
    assert get_json_schema(AgenticEnvironment.write_file)["function"]["parameters"]["required"] == [
        "path",
        "content",
    ]

    before = live(judge)
    env = environment_factory("tool", judge)()
    tail = env.reset(problem_id=PROBLEM, prompt=[{"role": "user", "content": "q"}])
    assert FORMATS["tool"] in tail
    first_session = live(judge) - before
    env.reset(problem_id=PROBLEM)  # the instance is reused for the next rollout: a new session
    assert len(live(judge) - before) == 1 and live(judge) - before != first_session
    env.python("def f(x):\n    return 2 * x")
    assert env.python("print(f(21))") == "<output>\n42\n</output>\n"
    assert "outcome: correct" in env.submit(REF)
    assert env.get_reward() == judged(judge, REF)
    assert live(judge) == before  # get_reward ends the rollout and its session

    agent = environment_factory("agentic", judge)()
    agent.reset(problem_id=PROBLEM)
    agent.write_file("solution.py", WRONG)
    assert agent.read_file("solution.py") == f"<output>\n{WRONG}</output>\n"
    assert agent.bash("python3 solution.py < /dev/null") == "<output>\n0\n</output>\n"
    agent.submit("solution.py")
    assert agent.get_reward() == judged(judge, WRONG) == 0.0
    assert live(judge) == before
    with pytest.raises(ValueError, match="problem_id"):
        agent.reset(prompt="no id")


# -- verl ------------------------------------------------------------------------------------------------
class AgentData:
    """What verl's tool agent loop passes to execute: one object per rollout, with its request id."""

    def __init__(self, request_id: str):
        self.request_id = request_id


def test_verl_tool_keeps_one_session_per_rollout_across_per_call_instances(judge):
    tool = JudgeSessionTool({"setting": "tool"}, client=judge)
    assert tool.name == "python"
    before = live(judge)

    async def call(agent_data, parameters):
        # verl's tool agent loop: create, execute and release around every single call
        instance_id, _ = await tool.create(create_kwargs={"problem_id": PROBLEM})
        try:
            return await tool.execute(instance_id, parameters, agent_data=agent_data)
        finally:
            await tool.release(instance_id)

    async def main():
        a, b = AgentData("rollout-a"), AgentData("rollout-b")
        await call(a, {"code": "x = 41"})
        await call(b, {"code": "x = 1"})
        out_a, reward, _ = await call(a, {"code": "print(x + 1)"})
        out_b, _, _ = await call(b, {"code": "print(x + 1)"})
        # verl runs a turn's tool calls concurrently: on one session they take turns, none refused
        both = await asyncio.gather(
            call(a, {"code": "import time\ntime.sleep(0.2)\nprint(1)"}), call(a, {"code": "print(2)"})
        )
        assert [r[0].text for r in both] == ["<output>\n1\n</output>\n", "<output>\n2\n</output>\n"]
        sessions = live(judge) - before
        response, reward, metrics = await call(a, {"submit_code": REF})
        del a  # the rollout is over: verl drops its agent_data
        gc.collect()
        await tool.settle()
        after_a = live(judge) - before
        del b
        gc.collect()
        await tool.settle()
        return out_a.text, out_b.text, sessions, reward, response.text, after_a, live(judge) - before

    out_a, out_b, sessions, reward, verdict, after_a, after = asyncio.run(main())
    assert (out_a, out_b) == ("<output>\n42\n</output>\n", "<output>\n2\n</output>\n")
    assert len(sessions) == 2  # two rollouts, two sessions, though every call had its own instance
    assert reward == judged(judge, REF) == 1.0 and "correct" in verdict
    assert len(after_a) == 1 and after_a < sessions  # a's session deleted with its rollout
    assert after == set()


def test_verl_tool_instance_as_the_rollout(judge):
    """Rollout engines that create one instance per request: state across executes, calc_reward, and
    release deletes the session."""
    tool = JudgeSessionTool({"setting": "agentic", "k": 1}, client=judge)
    before = live(judge)

    async def main():
        iid, _ = await tool.create("req-1", create_kwargs={"problem_id": PROBLEM})
        await tool.execute(iid, {"path": "solution.py", "content": WRONG})
        await tool.execute(iid, {"command": "cd tests"})
        pwd, _, _ = await tool.execute(iid, {"command": "pwd"})
        during = live(judge) - before
        _, reward, _ = await tool.execute(iid, {"submit_path": "solution.py"})
        total = await tool.calc_reward(iid)
        await tool.release(iid)
        return pwd.text, during, reward, total, live(judge) - before

    pwd, during, reward, total, after = asyncio.run(main())
    assert pwd == "<output>\n/tmp/work/tests\n</output>\n"
    assert len(during) == 1 and after == set()
    [r] = judge.judge([{"id": "d", "problem_id": PROBLEM, "code": WRONG}], ks=[1])
    assert reward == total == float(r.rewards["R_1"])


# -- SkyRL-gym and OpenRLHF (step style) ------------------------------------------------------------------
def test_skyrl_env_steps_and_close(judge):
    before = live(judge)
    env = SkyRLSessionEnv(
        {"setting": "agentic", "max_turns": 4}, {"reward_spec": {"ground_truth": PROBLEM}}, client=judge
    )
    prompt, meta = env.init([{"role": "user", "content": "Solve it."}])
    assert prompt[-1]["content"].startswith("Solve it.") and FORMATS["agentic"] in prompt[-1]["content"]
    assert live(judge) - before == {meta["session"]}
    out = env.step(f'<write path="solution.py">\n{REF}</write>')
    assert (out["done"], out["reward"]) == (False, 0.0) and out["observations"][0]["role"] == "user"
    out = env.step("<bash>\nexport A=5\n</bash>")
    out = env.step("<bash>\necho $A\n</bash>")
    assert out["observations"][0]["content"] == "<output>\n5\n</output>\n"
    out = env.step('<submit path="solution.py"/>')
    assert out["done"] and out["observations"] == [] and out["reward"] == judged(judge, REF)
    env.close()
    assert live(judge) == before


def test_openrlhf_agent_instance(judge):
    before = live(judge)

    async def main():
        agent = AgentInstance(client=judge, config={"setting": "tool", "max_turns": 3})
        first = await agent.reset({"label": PROBLEM, "observation": "Q:"})
        step1 = await agent.step({"action_text": "<python>\ny = 6 * 7\n</python>"})
        step2 = await agent.step({"action_text": "<python>\nprint(y)\n</python>"})
        during = live(judge) - before
        step3 = await agent.step({"action_text": f"```python\n{WRONG}```"})
        return first, step1, step2, during, step3

    first, step1, step2, during, step3 = asyncio.run(main())
    assert first["observation"].startswith("Q:") and FORMATS["tool"] in first["observation"]
    assert step2["environment_feedback"] == "<output>\n42\n</output>\n" and not step2["done"]
    assert len(during) == 1
    assert step3["done"] and float(step3["rewards"]) == judged(judge, WRONG) == 0.0
    assert live(judge) == before  # the episode's end deleted its session


# -- real multi-turn rollouts with a planted tiny model ------------------------------------------------------
CALL = "<python>\nprint(6 * 7)\n</python>"
OUT_END = "</output>\n"  # how every observation ends
WROTE_END = "solution.py\n" + OUT_END  # how the write's observation ends
WRITE = f'<write path="solution.py">\n{REF}</write>'
RUN_TESTS = "<bash>\nfor f in tests/*.in; do python3 solution.py < $f; done\n</bash>"
SUBMIT = '<submit path="solution.py"/>'


def test_a_turn_ends_at_the_closing_tag_of_its_action(tmp_path):
    """sample_turns with stop strings: a policy that goes on writing after `</python>` has its turn cut
    right after the tag (the environment answers there); without them it runs to its end-of-text."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from trainer.repair import sample_turns

    path = bigram_checkpoint(tmp_path / "m", {None: CALL, CALL: "and then more", "and then more": None}, [])
    tok, model = AutoTokenizer.from_pretrained(path), AutoModelForCausalLM.from_pretrained(path)
    context = tok("Question?\n", add_special_tokens=False).input_ids
    torch.manual_seed(0)
    [cut] = sample_turns(model, tok, [context], 0.5, 16, STOP_STRINGS["tool"])
    [whole] = sample_turns(model, tok, [context], 0.5, 16)
    assert tok.decode(cut) == CALL
    assert tok.decode(whole) == CALL + "and then more" + tok.eos_token


@pytest.fixture(scope="module")
def tool_model(tmp_path_factory):
    ref = program_pieces(REF)
    chain = {None: CALL, CALL: None, OUT_END: ref[0], **dict(zip(ref, ref[1:], strict=False)), ref[-1]: None}
    return bigram_checkpoint(tmp_path_factory.mktemp("tool-model") / "m", chain, [])


@pytest.fixture(scope="module")
def agentic_model(tmp_path_factory):
    chain = {None: WRITE, WRITE: None, WROTE_END: RUN_TESTS, RUN_TESTS: None, OUT_END: SUBMIT, SUBMIT: None}
    return bigram_checkpoint(tmp_path_factory.mktemp("agentic-model") / "m", chain, [])


def roll(judge, model: Path, settings: SessionSettings, n: int = 2):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from trainer.train import build_dataset

    tok = AutoTokenizer.from_pretrained(model)
    prompt = build_dataset([BUNDLED], tok, [PROBLEM])["prompt"][0]
    trainer = SimpleNamespace(
        model=AutoModelForCausalLM.from_pretrained(model),
        temperature=0.5,
        accelerator=SimpleNamespace(unwrap_model=lambda m: m),
    )
    rollout = SessionRollout(judge, {prompt: PROBLEM}, tok, settings, max_turn_tokens=48)
    return tok, rollout, rollout([prompt] * n, trainer)


def split(tok, out: dict, i: int) -> tuple[str, str]:
    ids, mask = out["completion_ids"][i], out["env_mask"][i]
    assert len(ids) == len(mask)
    mine = tok.decode([t for t, m in zip(ids, mask, strict=True) if m], skip_special_tokens=True)
    theirs = tok.decode([t for t, m in zip(ids, mask, strict=True) if not m])
    return mine, theirs


def test_a_tool_use_rollout(judge, tool_model):
    """Turn 1 calls python (the real interpreter answers 42), turn 2 answers with the program: R = 1."""
    before = live(judge)
    tok, rollout, out = roll(judge, tool_model, SessionSettings("tool", turns=3))
    assert out["session_reward"] == [judged(judge, REF)] * 2 == [1.0, 1.0]
    assert out["session_outcome"] == ["correct", "correct"]
    assert out["session_stats"][0]["session/turns"] == 2.0
    mine, theirs = split(tok, out, 0)
    assert mine == CALL + "".join(program_pieces(REF))  # the policy's tokens: the call, then the answer
    assert theirs == "\n<output>\n42\n</output>\n"  # the environment's: the interpreter's real output
    assert all(e.session_id is None for e in rollout.last_envs)  # every rollout's session closed ...
    assert live(judge) == before  # ... and gone from the judge


def test_an_agentic_rollout(judge, agentic_model):
    """Write the program, run it on the public tests in the shell, submit: three turns, R = 1."""
    before = live(judge)
    tok, rollout, out = roll(judge, agentic_model, SessionSettings("agentic", turns=4), n=1)
    assert out["session_reward"] == [1.0] and out["session_outcome"] == ["correct"]
    mine, theirs = split(tok, out, 0)
    assert mine == WRITE + RUN_TESTS + SUBMIT
    public = sorted(f for f in rollout.last_envs[0].files if f.endswith(".out"))
    expected = "".join((BUNDLED / PROBLEM / "tests" / Path(f).name).read_text() for f in public)
    assert (
        theirs
        == f"\n<output>\nwrote {len(REF)} bytes to solution.py\n</output>\n\n<output>\n{expected}</output>\n"
    )
    assert live(judge) == before


def test_replicate_s_session_arm_runs_grpo_on_session_rollouts(judge, agentic_model, tmp_path):
    """The session arm's stage of `frontier replicate` (configs/replicate_session.toml): TRL's
    GRPOTrainer with the session rollout as its rollout_func, one step, R_k and session/* logged."""
    from trainer.replication.replicate import _grpo_stage, load_config

    config = load_config(ROOT / "configs" / "replicate_session.toml")
    assert config.grpo.session and config.grpo.session.settings == ["tool", "agentic"]
    grpo = config.grpo.model_copy(update={"steps": 1, "max_completion_length": 48})
    config = config.model_copy(update={"grpo": grpo, "problems": [PROBLEM]})
    stack = SimpleNamespace(url=lambda service: judge.base_url)
    console = SimpleNamespace(rule=lambda *a: None, print=lambda *a: None)
    out = _grpo_stage(
        config, str(agentic_model), [BUNDLED / PROBLEM], "agentic", "inf", tmp_path, stack, console
    )
    history = json.loads(Path(out["log"]).read_text())
    step = next(h for h in history if "reward" in h)
    assert step["reward"] == pytest.approx(1.0)
    assert step["session/pass"] == 1.0 and step["session/turns"] == 3.0
    assert step["judge/correct"] == 1.0


# -- TRL's environment_factory, end to end ----------------------------------------------------------------
def tool_calling_model(path: Path, calls: list[tuple[str, dict]]) -> Path:
    """A planted checkpoint with Qwen2.5's chat template (which TRL parses tool calls of) that answers any
    prompt with one assistant turn making `calls`, then <|im_end|>."""
    from trl.chat_template_utils import qwen2_5_chat_template

    text = "\n".join(
        f"<tool_call>\n{json.dumps({'name': name, 'arguments': args})}\n</tool_call>" for name, args in calls
    )
    path = bigram_checkpoint(path, {None: text, text: "<|im_end|>"}, ["<|im_start|>", "<|im_end|>"])
    from transformers import AutoTokenizer, Qwen2ForCausalLM

    tok = AutoTokenizer.from_pretrained(path)
    tok.chat_template = qwen2_5_chat_template
    tok.eos_token = "<|im_end|>"
    tok.save_pretrained(path)
    model = Qwen2ForCausalLM.from_pretrained(path)
    # <|im_end|> ends a turn: the planted chain maps the calls to it
    model.config.eos_token_id = model.generation_config.eos_token_id = tok.eos_token_id
    model.save_pretrained(path)
    return path


def test_trl_grpo_trainer_with_the_environment_factory(judge, tmp_path):
    """TRL's own tool loop over our environment: one instance per rollout, reset with the row, the
    model's tool calls run in the rollout's session (state kept between them), get_reward = R_k."""
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import GRPOConfig, GRPOTrainer

    from trainer.train import build_dataset

    calls = [("python", {"code": "x = 6 * 7"}), ("python", {"code": "print(x)"}), ("submit", {"code": REF})]
    model = tool_calling_model(tmp_path / "m", calls)
    outputs: list[str] = []

    class Recorded(ToolUseEnvironment):
        def python(self, code: str) -> str:
            out = super().python(code)
            outputs.append(out)
            return out

    Recorded.python.__doc__ = ToolUseEnvironment.python.__doc__
    tok = AutoTokenizer.from_pretrained(model)
    dataset = build_dataset([BUNDLED], tok, [PROBLEM])
    assert isinstance(dataset["prompt"][0], list)  # conversational: TRL applies the template with tools
    before = live(judge)
    args = GRPOConfig(
        output_dir=str(tmp_path / "out"),
        max_steps=1,
        per_device_train_batch_size=2,
        num_generations=2,
        max_completion_length=64,
        max_tool_calling_iterations=1,
        temperature=0.5,
        learning_rate=1e-4,
        logging_steps=1,
        save_strategy="no",
        report_to=[],
        use_cpu=True,
    )
    trainer = GRPOTrainer(
        model=AutoModelForCausalLM.from_pretrained(model),
        args=args,
        train_dataset=dataset,
        processing_class=tok,
        environment_factory=lambda: Recorded(judge),
    )
    trainer.train()
    step = next(h for h in trainer.state.log_history if "reward" in h)
    assert step["reward"] == pytest.approx(judged(judge, REF)) == 1.0  # get_reward: the submit's R_inf
    # two rollouts, each "x = 6 * 7" then "print(x)" in its own session: the interpreter kept x
    assert outputs.count("<output>\n42\n</output>\n") == 2 and len(outputs) == 4
    assert live(judge) == before  # get_reward deleted every rollout's session
