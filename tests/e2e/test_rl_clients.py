"""The real RL clients against a live judge with tokens (issue 23, docs/spec.md 6.7 and 9.7): verl's own
`verl.utils.reward_score.sandbox_fusion.compute_score` (its `call_sandbox_api`: one POST per test case,
HTTP timeout compile + run + API_TIMEOUT, up to 3 attempts retrying only a 504), OpenRLHF's own
remote reward client (`SingleTurnAgentExecutor._fetch_rewards_via_http`) and SkyRL-Agent's two
SandboxFusion clients (its `code_interpreter` tool's `sandbox_fusion.utils` and its coder1 reward with
`CODER1_EXEC=sandboxfusion`), each given nothing but a URL with the token in its path (`/t/<token>/`),
as their users configure them.

All are test-only dependencies installed with `--no-deps` (pyproject.toml's `rl-clients` extra): their
package `__init__` files import the training stack (verl: Ray, tensordict, omegaconf; OpenRLHF:
DeepSpeed; SkyRL-Agent: omegaconf and its agent runners), which the reward code never uses, so
`_import_skipping_inits` loads the client modules from the installed package without running those
`__init__` files (an empty package module in their place, with the real path); no client code is
replaced. SkyRL-Agent comes in the `skyrl` 0.3.0 wheel, which puts it at `site-packages/skyrl-agent/
skyrl_agent` (a folder not on `sys.path`), so its root is found through the distribution's files.
The `code_interpreter` tool class itself is not imported: its base class imports litellm and json5,
not installed here; the tests make the one call its `_execute_code_retool` makes
(`_process_single_case(0, None, None, SANDBOX_FUSION_URL + "/run_code", code, 30, 1024, language)`).
skyrl-gym 0.4.0 (also inside that wheel) holds no SandboxFusion client: its code environments run
programs in-process."""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import json
import sys
import threading
import types
from pathlib import Path

import httpx
import pytest

from tests.support.rewards import (  # the judge and reward_service fixtures: the conftest
    PROBLEM,
    REF,
    TOKEN,
    fenced,
)
from tests.support.stack import eventually, judge_stack, metric

TOKEN_VERL = "verl-run1-0123456789abcdef"
TOKEN_OPS = "ops-fedcba9876543210-token"
TOKEN_SKYRL = "skyrl-run2-13579bdf2468ace0"
ADD = "a, b = map(int, input().split())\nprint(a + b)\n"
SPIN = "while True:\n    pass\n"


def _import_skipping_inits(module: str, packages: list[str], base: Path | None = None):
    """Import `module` from its installed package, with each of `packages` (its parents) an empty
    package module on the real path instead of running its `__init__` (which imports the training
    stack). `base` is the top package's folder where it is not on `sys.path` (SkyRL-Agent). The
    modules put in place are removed again, so no other test sees them."""
    if base is None:
        root = importlib.util.find_spec(packages[0])  # finds the package without importing it
        assert root is not None and root.submodule_search_locations, f"{packages[0]} is not installed"
        base = Path(next(iter(root.submodule_search_locations)))
    saved = {name: sys.modules.get(name) for name in [*packages, module]}
    try:
        for name in packages:
            pkg = types.ModuleType(name)
            pkg.__path__ = [str(base.joinpath(*name.split(".")[1:]))]
            sys.modules[name] = pkg
        return importlib.import_module(module)
    finally:
        for name, old in saved.items():
            if name != module:
                if old is None:
                    sys.modules.pop(name, None)
                else:
                    sys.modules[name] = old


@pytest.fixture(scope="module")
def verl_sf():
    return _import_skipping_inits(
        "verl.utils.reward_score.sandbox_fusion", ["verl", "verl.utils", "verl.utils.reward_score"]
    )


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    """A judge with named tokens, one worker of one slot, verl's own slack (API_TIMEOUT, 10 s)."""
    with judge_stack(
        tmp_path_factory,
        "rl",
        api_tokens=f"verl-run1:{TOKEN_VERL},ops:{TOKEN_OPS},skyrl-run2:{TOKEN_SKYRL}",
        sandboxfusion_client_slack_s=10,
        deadline_margin_s=2,
    ) as s:
        yield s


@pytest.fixture(scope="module")
def ops(stack):
    with httpx.Client(base_url=stack.url, timeout=60, headers={"Authorization": f"Bearer {TOKEN_OPS}"}) as c:
        yield c


def test_verl_uses_the_judge_clients_own_slack():
    """The judge's default slack is verl's API_TIMEOUT: verl's request timeout and the judge's rule agree."""
    from services.settings import Settings

    utils = sys.modules.get("verl.utils.reward_score.sandbox_fusion.utils")
    if utils is None:
        utils = _import_skipping_inits(
            "verl.utils.reward_score.sandbox_fusion.utils",
            ["verl", "verl.utils", "verl.utils.reward_score", "verl.utils.reward_score.sandbox_fusion"],
        )
    assert Settings(_env_file=None).sandboxfusion_client_slack_s == utils.API_TIMEOUT == 10
    assert utils.MAX_RETRIES == 3


def test_verl_compute_score_through_the_token_in_the_url(stack, ops, verl_sf):
    url = f"{stack.url}/t/{TOKEN_VERL}/run_code"
    cases = {"inputs": ["1 2\n", "3 4\n"], "outputs": ["3\n", "7\n"]}
    sem = threading.Semaphore(4)
    score, meta = verl_sf.compute_score(url, sem, 256, fenced(ADD), cases)
    assert score == 1.0, meta
    wrong, _ = verl_sf.compute_score(url, sem, 256, fenced("print(0)\n"), cases)
    assert wrong == 0.0
    # the token's name is the client in /metrics; the token itself never shows
    text = ops.get("/metrics").text
    assert 'client="verl-run1"' in text and TOKEN_VERL not in text
    # a wrong token in the URL: every test case an API error (401), never a score
    refused = metric(ops, "frontier_judge_client_requests_total", client="unauthenticated", code="401")
    bad, meta = verl_sf.compute_score(
        f"{stack.url}/t/not-the-token-000000/run_code", sem, 256, fenced(ADD), cases
    )
    assert bad == 0.0 and all(m.get("status") == "api_error" for m in meta), meta
    assert (
        metric(ops, "frontier_judge_client_requests_total", client="unauthenticated", code="401")
        >= refused + 2
    )


def test_verl_retries_the_judges_504_and_scores_a_sample_queued_behind_a_busy_slot(stack, ops, verl_sf):
    """The issue's failure, with verl itself: its request for a correct sample waits behind a program
    that holds the one slot (15 s of CPU). verl's own timeout (1 + 1 + 10 s) never fires: the judge
    answers 504 by its deadline (less the margin), verl retries, the retry is judged: score 1.0."""
    body = {"source_code": SPIN, "language_id": 71, "cpu_time_limit": 15, "wall_time_limit": 17}
    token = ops.post("/judge0/submissions", json=body).json()["token"]
    eventually(lambda: ops.get(f"/judge0/submissions/{token}").json()["status"]["id"] >= 2)
    late = metric(ops, "frontier_judge_deadline_events_total", endpoint="/run_code", event="deadline")
    url = f"{stack.url}/t/{TOKEN_VERL}/run_code"
    cases = {"inputs": ["20 22\n"], "outputs": ["42\n"]}
    score, meta = verl_sf.compute_score(url, threading.Semaphore(1), 256, fenced(ADD), cases, timeout=1)
    assert score == 1.0, meta
    # at least one attempt was answered 504 at its deadline (and retried), none timed out
    assert (
        metric(ops, "frontier_judge_deadline_events_total", endpoint="/run_code", event="deadline")
        >= late + 1
    )


@pytest.fixture(scope="module")
def openrlhf_agent():
    return _import_skipping_inits("openrlhf.utils.agent", ["openrlhf", "openrlhf.utils"])


def test_openrlhf_remote_reward_through_the_token_in_the_url(reward_service, openrlhf_agent):  # noqa: F811
    """OpenRLHF's own HTTP reward client (`--remote_rm_url`), given the reward service's URL with the
    token in its path: it sends no header, and gets the reward of each sample."""
    executor = openrlhf_agent.SingleTurnAgentExecutor(remote_rm_url=f"{reward_service}/t/{TOKEN}/get_reward")
    prompt = "Solve it.\n"
    got = asyncio.run(
        executor._fetch_rewards_via_http(
            [prompt + fenced(REF), prompt + fenced("print(0)\n")], [prompt, prompt], [PROBLEM, PROBLEM]
        )
    )
    (answer,) = got
    assert answer["rewards"] == [1.0, 0.0], answer


def _skyrl_agent_root() -> Path:
    """SkyRL-Agent's package folder inside the installed `skyrl` wheel (`skyrl-agent/skyrl_agent`)."""
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        dist = distribution("skyrl")
    except PackageNotFoundError:  # pragma: no cover - the rl-clients extra is part of the install
        pytest.fail("skyrl is not installed (pip install --no-deps skyrl==0.3.0)")
    assert dist.version == "0.3.0", dist.version
    root = Path(dist.locate_file("skyrl-agent/skyrl_agent"))
    assert (root / "tasks" / "verifiers" / "sandbox_fusion" / "utils.py").is_file(), root
    return root


@pytest.fixture(scope="module")
def skyrl_sf():
    """The module SkyRL-Agent's `code_interpreter` tool calls (`tools/sandbox_fusion.py`)."""
    return _import_skipping_inits(
        "skyrl_agent.tasks.verifiers.sandbox_fusion.utils", ["skyrl_agent"], base=_skyrl_agent_root()
    )


@pytest.fixture(scope="module")
def skyrl_coder1():
    """SkyRL-Agent's coder1 reward (codegen tasks), which picks its executor at import from
    `CODER1_EXEC`: `sandboxfusion` posts each test case to `http://{server}:8080/run_code` for the
    servers of `SANDBOX_FUSION_SERVERS`."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CODER1_EXEC", "sandboxfusion")
        return _import_skipping_inits(
            "skyrl_agent.tasks.verifiers.coder1", ["skyrl_agent"], base=_skyrl_agent_root()
        )


def test_skyrl_uses_the_judge_clients_own_slack(skyrl_sf):
    """SkyRL-Agent's copy of verl's client has verl's API_TIMEOUT and retries: the judge's rule fits it."""
    from services.settings import Settings

    assert Settings(_env_file=None).sandboxfusion_client_slack_s == skyrl_sf.API_TIMEOUT == 10
    assert skyrl_sf.MAX_RETRIES == 3


def test_skyrl_code_interpreter_through_the_token_in_the_url(stack, ops, skyrl_sf):
    """`SANDBOX_FUSION_URL=http://<judge>:8000/t/<token>`: the tool appends `/run_code` and sends its
    request with compile and run timeout 30 s and 1024 MB; the same module's check_correctness scores
    each test case."""
    sandbox_url = f"{stack.url}/t/{TOKEN_SKYRL}"  # the value of SANDBOX_FUSION_URL
    before = metric(ops, "frontier_judge_client_requests_total", client="skyrl-run2", code="200")
    # the call CodeInterpreter._execute_code_retool makes, and what it returns to the model
    status, meta = skyrl_sf._process_single_case(
        0, None, None, sandbox_url + "/run_code", "print(6 * 7)", 30, 1024, "python"
    )
    assert meta["run_status"] == "Finished", meta
    assert meta["stdout"] + meta["stderr"] == "42\n"
    cases = {"inputs": ["1 2\n", "3 4\n"], "outputs": ["3\n", "7\n"]}
    right, meta = skyrl_sf.check_correctness(sandbox_url + "/run_code", cases, ADD, timeout=5)
    assert right == [True, True], meta
    wrong, meta = skyrl_sf.check_correctness(sandbox_url + "/run_code", cases, "print(0)\n", timeout=5)
    assert wrong == [False, False], meta
    text = ops.get("/metrics").text
    assert TOKEN_SKYRL not in text
    assert metric(ops, "frontier_judge_client_requests_total", client="skyrl-run2", code="200") >= before + 5
    # a wrong token: an API error (-1), never a result
    bad, meta = skyrl_sf.check_correctness(f"{stack.url}/t/not-the-token-000000/run_code", cases, ADD)
    assert bad == [-1, -1] and all(m["status"] == "api_error" for m in meta), meta


def test_skyrl_coder1_reward_through_the_token_in_the_url(stack, ops, skyrl_coder1, monkeypatch):
    """SkyRL-Agent's coder1 reward builds `http://{server}:8080/run_code` from each name in
    `SANDBOX_FUSION_SERVERS`, so the setting carries host, port, token and route, ended by `#`: what
    SkyRL appends (`:8080/run_code`) becomes the URL's fragment, which is never sent."""
    host = stack.url.removeprefix("http://")
    monkeypatch.setenv("SANDBOX_FUSION_SERVERS", f"{host}/t/{TOKEN_SKYRL}/run_code#")
    before = metric(ops, "frontier_judge_client_requests_total", client="skyrl-run2", code="200")
    truth = json.dumps({"inputs": ["1 2\n", "3 4\n"], "outputs": ["3\n", "7\n"]})
    right = skyrl_coder1.compute_score(fenced(ADD), truth, extra_info={})
    assert right == {"score": 1.0, "acc": 1.0}
    wrong = skyrl_coder1.compute_score(fenced("print(0)\n"), truth, extra_info={})
    assert wrong == {"score": 0.0, "acc": 0.0}
    # every test case of the right program and at least one of the wrong one reached the judge as
    # skyrl-run2 (the reward stops at the first failing case)
    assert metric(ops, "frontier_judge_client_requests_total", client="skyrl-run2", code="200") >= before + 3
    assert 'client="skyrl-run2"' in ops.get("/metrics").text
    # a wrong token is a 401, which coder1 counts as a failed server: score 0.0, never 1.0
    monkeypatch.setenv("SANDBOX_FUSION_SERVERS", f"{host}/t/not-the-token-000000/run_code#")
    refused = metric(ops, "frontier_judge_client_requests_total", client="unauthenticated", code="401")
    assert skyrl_coder1.compute_score(fenced(ADD), truth, extra_info={})["score"] == 0.0
    assert (
        metric(ops, "frontier_judge_client_requests_total", client="unauthenticated", code="401")
        >= refused + 1
    )
