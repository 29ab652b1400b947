"""The evaluator end to end (issue 6): tiny checkpoints evaluated on bundled problems through the real judge
service (API and worker processes, real sandboxes), a killed eval resumed, sweeps requested over HTTP
(in place, and through the merger service), bad requests refused, and the report rebuilt.

Two kinds of checkpoints: random ones, which write noise (format errors), and "planted" ones whose
weights are set by hand to write one program (services.testing.checkpoints), so that real verdicts come back: the
linear solution of prefix_range_sums is correct, the quadratic one too slow on its large tests.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from redis import Redis
from rq.job import Job
from rq.serializers import JSONSerializer
from typer.testing import CliRunner

from services.evaluator.config import EvalConfig
from services.evaluator.pipeline import EvalError, evaluate
from services.evaluator.records import SAMPLES_FILE, SampleRecord, read_samples
from services.judge.client import JudgeClient
from services.testing.checkpoints import make_planted_checkpoints, make_tiny_checkpoint
from tests.support import BUNDLED, ROOT
from tests.support.redis import claim_redis_db
from tests.support.stack import judge_stack

PROBLEM = "prefix_range_sums"


@pytest.fixture(scope="module")
def redis_url():
    """An empty database of the machine's Redis (1-7 first: the judge's tests use 8-15), claimed for
    this module and flushed after it."""
    yield from claim_redis_db([*range(1, 8), *range(15, 7, -1)])


@pytest.fixture(scope="module")
def stack(redis_url, tmp_path_factory):
    """Judge, evaluator and merger, each an API and one worker, on a Redis database of their own."""
    tmp = tmp_path_factory.mktemp("stack")
    with judge_stack(
        tmp,
        "ev",
        redis_url=redis_url,
        services=("judge", "evaluator", "merger"),
        slots=1,
        eval_dir=tmp / "eval",
        job_lease_s=3,
        # checkpoints, benchmarks and runs of these tests live under pytest's temporary directory
        data_roots=tmp_path_factory.getbasetemp(),
    ) as s:
        yield s


@pytest.fixture(scope="module")
def judge(stack):
    with JudgeClient(stack.judge_url) as client:
        yield client


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    programs = {
        "quadratic": (BUNDLED / PROBLEM / "zoo" / "naive.py").read_text(),
        "linear": (BUNDLED / PROBLEM / "ref.py").read_text(),
    }
    return make_planted_checkpoints(tmp_path_factory.mktemp("planted"), programs)


@pytest.fixture(scope="module")
def random_pair(tmp_path_factory):
    root = tmp_path_factory.mktemp("random")
    return make_tiny_checkpoint(root / "low", seed=1), make_tiny_checkpoint(root / "high", seed=2)


def _wait_job(evaluator_url: str, job_id: str, timeout_s: float = 240) -> dict:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        state = httpx.get(f"{evaluator_url}/eval/{job_id}", timeout=10).json()
        if state["status"] in ("finished", "failed"):
            return state
        time.sleep(0.5)
    raise AssertionError(f"job {job_id} not done after {timeout_s} s: {state}")


def _raw_keys(run_dir: Path) -> list[tuple]:
    """Every line of samples.jsonl as a key: a sample judged twice would show twice."""
    lines = (run_dir / SAMPLES_FILE).read_text().splitlines()
    return [SampleRecord.model_validate_json(line).key for line in lines if line.strip()]


# -- an eval through the judge service --------------------------------------------------------------
@pytest.fixture(scope="module")
def evaluated(stack, judge, planted, random_pair, tmp_path_factory):
    run_dir = tmp_path_factory.mktemp("runs") / "eval"
    checkpoints = [str(planted["quadratic"]), str(planted["linear"]), str(random_pair[0])]
    result = evaluate(
        checkpoints,
        EvalConfig(n_samples=2, temperature=0.8, max_tokens=64, problems=[PROBLEM, "bracket_depth"]),
        run_dir=run_dir,
        judge=judge,
        show_progress=False,
    )
    return run_dir, result


def test_tiny_checkpoints_are_evaluated_through_the_judge_service(evaluated):
    run_dir, result = evaluated
    assert (result.already_judged, result.judged, result.judge_errors) == (0, 12, 0)
    records = read_samples(run_dir / SAMPLES_FILE)
    by_cell: dict[tuple[str, str], set[str]] = {}
    for r in records:
        by_cell.setdefault((r.checkpoint, r.problem_id), set()).add(r.outcome.value)
    assert by_cell[("linear", PROBLEM)] == {"correct"}
    assert by_cell[("quadratic", PROBLEM)] == {"optimization_failure"}
    # a stdin program for a functional problem runs, and fails
    assert by_cell[("linear", "bracket_depth")] == {"correctness_failure"}
    assert by_cell[("low", PROBLEM)] == by_cell[("low", "bracket_depth")] == {"format_error"}
    slow = [r for r in records if r.checkpoint == "quadratic" and r.problem_id == PROBLEM]
    assert all(r.first_failure["verdict"] == "TLE" for r in slow)
    # every checkpoint drew sample i of a problem with the same seed (common random numbers)
    seeds = {(r.problem_id, r.sample_index): set() for r in records}
    for r in records:
        seeds[(r.problem_id, r.sample_index)].add(r.seed)
    assert all(len(s) == 1 and None not in s for s in seeds.values())
    report = json.loads((run_dir / "report.json").read_text())
    assert report["pass_at_k"]["linear"]["overall"][0]["value"] == 0.5  # one of two problems solved
    assert all((run_dir / p).is_file() for p in report["plots"].values())


def test_a_finished_run_started_again_judges_nothing(evaluated, judge, planted, random_pair):
    run_dir, _ = evaluated
    again = evaluate(
        [str(planted["quadratic"]), str(planted["linear"]), str(random_pair[0])],
        EvalConfig(n_samples=2, temperature=0.8, max_tokens=64, problems=[PROBLEM, "bracket_depth"]),
        run_dir,
        judge=judge,
        show_progress=False,
        build=False,
    )
    assert (again.already_judged, again.judged) == (12, 0)


def test_a_run_directory_holding_another_run_is_refused(evaluated, judge, planted):
    run_dir, _ = evaluated
    with pytest.raises(EvalError, match="holds a different run.*n_samples"):
        config = EvalConfig(n_samples=3, temperature=0.8, max_tokens=64, problems=[PROBLEM])
        evaluate([str(planted["linear"])], config, run_dir, judge=judge)


def test_the_report_is_rebuilt_from_the_samples(evaluated):
    from services.cli import app

    run_dir, _ = evaluated
    before = json.loads((run_dir / "report.json").read_text())
    for name in ("report.json", "report.md"):
        (run_dir / name).unlink()
    shutil.rmtree(run_dir / "plots")
    out = CliRunner().invoke(app, ["report", str(run_dir)])
    assert out.exit_code == 0, out.output
    assert json.loads((run_dir / "report.json").read_text()) == before
    assert (run_dir / "report.md").is_file() and len(list((run_dir / "plots").glob("*.png"))) == 4


# -- resuming after a kill --------------------------------------------------------------------------
def test_a_killed_eval_resumes_without_judging_any_sample_twice(stack, judge, random_pair, tmp_path):
    run_dir = tmp_path / "killed"
    problems = ["bracket_depth", PROBLEM, "pair_sum_count"]
    args = ["-b", "bundled", "-n", "4", "--batch-size", "1", "--max-tokens", "16", "-o", str(run_dir)]
    for p in problems:
        args += ["-p", p]
    cmd = [sys.executable, "-m", "services.cli", "eval", *map(str, random_pair), *args]
    env = {**stack.env, "FRONTIER_JUDGE_URL": stack.judge_url}
    total = 2 * len(problems) * 4
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    samples = run_dir / SAMPLES_FILE
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if samples.exists() and samples.read_text().count("\n") >= 3:
            break
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    judged_before = {r.key for r in read_samples(samples) if r.status == "ok"}
    assert 3 <= len(judged_before) < total, proc.stderr.read().decode()[-2000:]

    result = evaluate(
        [str(p) for p in random_pair],
        EvalConfig(n_samples=4, temperature=0.8, max_tokens=16, problems=problems, batch_size=1),
        run_dir,
        judge=judge,
        show_progress=False,
        build=False,
    )
    assert result.already_judged == len(judged_before)
    assert result.judged == total - len(judged_before)
    keys = _raw_keys(run_dir)
    assert len(keys) == len(set(keys)) == total, "a sample was recorded twice or is missing"


# -- the evaluator service --------------------------------------------------------------------------
def test_a_sweep_request_over_http_loads_each_alpha_in_place(stack, planted):
    body = {
        "low": str(planted["quadratic"]),
        "high": str(planted["linear"]),
        "alphas": [0, 1, 1.5],
        "problems": [PROBLEM],
        "n_samples": 2,
        "max_tokens": 64,
    }
    accepted = httpx.post(f"{stack.evaluator_url}/sweep", json=body, timeout=30)
    assert accepted.status_code == 202, accepted.text
    job = accepted.json()
    state = _wait_job(stack.evaluator_url, job["job_id"])
    assert state["status"] == "finished", state["error"]
    assert state["kind"] == "sweep" and state["progress"]["judged"] == state["progress"]["total"] == 6
    fractions = {ck: f["overall"]["fractions"] for ck, f in state["report"]["outcome_fractions"].items()}
    assert fractions["alpha_0.0"]["optimization_failure"] == 1.0
    assert fractions["alpha_1.0"]["correct"] == fractions["alpha_1.5"]["correct"] == 1.0
    assert [ck["region"] for ck in state["report"]["checkpoints"]] == [
        "interpolation",
        "interpolation",
        "extrapolation",
    ]
    assert state["report"]["pass_at_k"]["alpha_1.5"]["overall"][0]["value"] == 1.0
    assert "samples" not in state["report"]
    assert all(Path(p).is_file() for p in state["plots"].values()) and len(state["plots"]) == 4
    assert Path(state["run_dir"]).parent == Path(stack.env["FRONTIER_EVAL_DIR"])
    assert not (Path(state["run_dir"]) / "checkpoints").exists()  # in place: nothing written
    with_samples = httpx.get(f"{stack.evaluator_url}/sweep/{job['job_id']}", params={"samples": True}).json()
    assert len(with_samples["report"]["samples"]) == 6


def test_a_sweep_request_can_merge_through_the_merger_service(stack, random_pair, tmp_path):
    body = {
        "low": str(random_pair[0]),
        "high": str(random_pair[1]),
        "alphas": [0.5, 1.5],
        "mode": "merger",
        "problems": ["bracket_depth"],
        "n_samples": 1,
        "max_tokens": 8,
        "run_dir": str(tmp_path / "merged-sweep"),
    }
    accepted = httpx.post(f"{stack.evaluator_url}/sweep", json=body, timeout=30)
    assert accepted.status_code == 202, accepted.text
    state = _wait_job(stack.evaluator_url, accepted.json()["job_id"])
    assert state["status"] == "finished", state["error"]
    for alpha in ("0.5", "1.5"):
        merged = tmp_path / "merged-sweep" / "checkpoints" / f"alpha_{alpha}"
        assert json.loads((merged / "merge_config.json").read_text())["alpha"] == float(alpha)
    assert [ck["alpha"] for ck in state["report"]["checkpoints"]] == [0.5, 1.5]


def test_an_eval_request_over_http(stack, planted):
    body = {"checkpoints": [str(planted["linear"])], "problems": [PROBLEM], "n_samples": 1, "max_tokens": 64}
    accepted = httpx.post(f"{stack.evaluator_url}/eval", json=body, timeout=30)
    assert accepted.status_code == 202, accepted.text
    state = _wait_job(stack.evaluator_url, accepted.json()["job_id"])
    assert state["status"] == "finished", state["error"]
    assert state["report"]["outcome_fractions"]["linear"]["overall"]["fractions"]["correct"] == 1.0


def test_the_evaluator_client_runs_a_job_to_its_end_and_names_a_refusal(stack, planted):
    """EvalClient (what `frontier eval --service` and the replication driver use): submit, follow to the
    end, the report's run names the checkpoints; a refused request or an unknown job is an EvalClientError
    with the service's status and reason."""
    from services.evaluator.client import EvalClient, EvalClientError

    body = {"checkpoints": [str(planted["linear"])], "problems": [PROBLEM], "n_samples": 1, "max_tokens": 64}
    accepted: list[dict] = []
    with EvalClient(stack.evaluator_url) as client:
        state = client.run("/eval", body, poll_s=0.2, on_accepted=accepted.append)
        assert state["status"] == "finished", state["error"]
        assert [a["job_id"] for a in accepted] == [state["job_id"]] and accepted[0]["kind"] == "eval"
        assert [c["name"] for c in state["report"]["run"]["checkpoints"]] == ["linear"]
        assert state["report"]["outcome_fractions"]["linear"]["overall"]["fractions"]["correct"] == 1.0
        with pytest.raises(EvalClientError, match="answered 404") as refused:
            client.submit("/eval", {**body, "problems": ["no_such_problem"]})
        assert refused.value.status_code == 404 and "no_such_problem" in str(refused.value)
        with pytest.raises(EvalClientError, match="answered 404"):
            client.status("no-such-job")


def test_an_eval_request_with_repair_turns_reports_the_repair_rate(stack, planted, tmp_path_factory):
    """repair_turns=2: after the eval, each failed first attempt gets one repair turn with the judge's
    feedback. The repairing model (tests/e2e/test_repair.py) fixes prefix_range_sums on its second attempt
    and never bracket_depth; the job's result, report.json and report.md carry the figures that
    repair.jsonl's records give, and the first attempts are the eval's own samples."""
    from tests.support.models import repairing_checkpoint

    fixer = repairing_checkpoint(tmp_path_factory.mktemp("repairing") / "fixer")
    bad = {"checkpoints": [str(fixer)], "problems": [PROBLEM], "repair_turns": 6}
    refused = httpx.post(f"{stack.evaluator_url}/eval", json=bad, timeout=30)
    assert refused.status_code == 422 and "repair_turns" in refused.text
    sweep = {"low": str(fixer), "high": str(fixer), "alphas": [0.5], "repair_turns": 2}
    refused = httpx.post(f"{stack.evaluator_url}/sweep", json=sweep, timeout=30)
    assert refused.status_code == 422 and "mode 'merger'" in refused.text

    body = {
        "checkpoints": [str(fixer), str(planted["linear"])],
        "problems": [PROBLEM, "bracket_depth"],
        "n_samples": 2,
        "temperature": 0.5,
        "max_tokens": 64,
        "backend": "transformers",
        "repair_turns": 2,
    }
    accepted = httpx.post(f"{stack.evaluator_url}/eval", json=body, timeout=30)
    assert accepted.status_code == 202, accepted.text
    state = _wait_job(stack.evaluator_url, accepted.json()["job_id"])
    assert state["status"] == "finished", state["error"]
    run_dir = Path(state["run_dir"])
    lines = [json.loads(x) for x in (run_dir / "repair.jsonl").read_text().splitlines()]
    assert len(lines) == 2 * 2 * 2  # checkpoints x problems x samples
    # the first attempts are the eval's samples, drawn again with the same seeds
    evaluated = {
        (r.checkpoint, r.problem_id, r.sample_index): r for r in read_samples(run_dir / SAMPLES_FILE)
    }
    for x in lines:
        record = evaluated[(x["checkpoint"], x["problem_id"], x["sample_index"])]
        assert x["attempts"][0]["completion"] == record.completion
        assert x["attempts"][0]["outcome"] == record.outcome.value
    fixer_chains = {
        (x["problem_id"], tuple(a["outcome"] for a in x["attempts"]))
        for x in lines
        if x["checkpoint"] == "fixer"
    }
    assert fixer_chains == {
        (PROBLEM, ("correctness_failure", "correct")),
        ("bracket_depth", ("correctness_failure", "correctness_failure")),
    }

    def from_records(name: str) -> dict:
        mine = [x for x in lines if x["checkpoint"] == name]
        problems = sorted({x["problem_id"] for x in mine})
        first = [
            sum(x["attempts"][0]["outcome"] == "correct" for x in mine if x["problem_id"] == p) / 2
            for p in problems
        ]
        failed = [x for x in mine if x["attempts"][0]["outcome"] != "correct"]
        repaired = [x for x in failed if x["attempts"][-1]["outcome"] == "correct"]
        return {
            "first_attempt_pass@1": sum(first) / len(first),
            "repair_rate": len(repaired) / len(failed) if failed else None,
            "failed_first": len(failed),
            "repaired": len(repaired),
        }

    report = state["report"]
    assert report["run"]["repair_turns"] == 2 and report["repair"]["records_file"] == "repair.jsonl"
    assert from_records("fixer") == {
        "first_attempt_pass@1": 0.0,
        "repair_rate": 0.5,
        "failed_first": 4,
        "repaired": 2,
    }
    job = Job.fetch(
        state["job_id"], connection=Redis.from_url(stack.env["FRONTIER_REDIS_URL"]), serializer=JSONSerializer
    )
    result = {ck["name"]: ck for ck in job.return_value()["summary"]["checkpoints"]}
    assert job.return_value()["repair_json"] == str(run_dir / "repair.json")
    markdown = (run_dir / "report.md").read_text()
    assert "## Repair" in markdown
    for name in ("fixer", "linear"):
        want = from_records(name)
        in_report = report["repair"]["checkpoints"][name]
        assert {key: in_report[key] for key in want} == want
        assert in_report["turns"] == result[name]["repair"]["turns"] == 2
        for key in ("first_attempt_pass@1", "repair_rate"):
            assert result[name]["repair"][key] == want[key]
            interval = in_report["interval95"][key]
            assert result[name]["repair"]["interval95"][key] == interval
            if want[key] is not None:
                assert interval[0] <= want[key] <= interval[1]
        assert f"| {name} | 2 | 4 | {want['first_attempt_pass@1']:.3f} [" in markdown


def test_an_eval_job_whose_worker_is_killed_is_finished_by_another_worker(stack, random_pair, tmp_path):
    run_dir = tmp_path / "orphaned"
    body = {
        "checkpoints": [str(p) for p in random_pair],
        "problems": ["bracket_depth", PROBLEM],
        "n_samples": 3,
        "batch_size": 1,
        "max_tokens": 16,
        "run_dir": str(run_dir),
    }
    job_id = httpx.post(f"{stack.evaluator_url}/eval", json=body, timeout=30).json()["job_id"]
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if (run_dir / SAMPLES_FILE).exists() and (run_dir / SAMPLES_FILE).read_text().count("\n") >= 2:
            break
        time.sleep(0.05)
    worker = stack.procs["evaluator-worker"]
    # the worker and the work horse it forked (a process group of its own): a host going down
    horses = Path(f"/proc/{worker.pid}/task/{worker.pid}/children").read_text().split()
    worker.kill()
    for pid in horses:
        os.killpg(int(pid), signal.SIGKILL)
    worker.wait()
    judged_before = len(read_samples(run_dir / SAMPLES_FILE))
    assert 2 <= judged_before < 12
    stack.respawn("evaluator-worker")
    state = _wait_job(stack.evaluator_url, job_id)
    assert state["status"] == "finished", state["error"]
    keys = _raw_keys(run_dir)
    assert len(keys) == len(set(keys)) == 12, "a sample was recorded twice or is missing"


BAD_REQUESTS = [
    (
        "unknown checkpoint path",
        "/eval",
        {"checkpoints": ["{root}/no/such/checkpoint"]},
        422,
        "no such directory",
    ),
    ("no checkpoints", "/eval", {"checkpoints": []}, 422, "checkpoints"),
    (
        "unknown problem",
        "/eval",
        {"checkpoints": ["{low}"], "problems": ["no_such_problem"]},
        404,
        "no_such_problem",
    ),
    (
        "unknown benchmark",
        "/eval",
        {"checkpoints": ["{low}"], "benchmark": "{root}/no/such/dir"},
        422,
        "benchmark",
    ),
    ("zero samples", "/eval", {"checkpoints": ["{low}"], "n_samples": 0}, 422, "n_samples"),
    ("unknown backend", "/eval", {"checkpoints": ["{low}"], "backend": "tpu"}, 422, "backend"),
    ("relative run_dir", "/eval", {"checkpoints": ["{low}"], "run_dir": "runs/x"}, 422, "absolute"),
    ("unknown field", "/eval", {"checkpoints": ["{low}"], "samples": 3}, 422, "samples"),
    ("alphas repeat", "/sweep", {"low": "{low}", "high": "{high}", "alphas": [0.5, 0.5]}, 422, "repeat"),
    ("no alphas", "/sweep", {"low": "{low}", "high": "{high}", "alphas": []}, 422, "alphas"),
    ("missing low", "/sweep", {"low": "{root}/no/such/low", "high": "{high}", "alphas": [1]}, 422, "low"),
    ("unmergeable pair", "/sweep", {"low": "{low}", "high": "{other}", "alphas": [1]}, 422, "hidden_size"),
]


@pytest.mark.parametrize(
    ("case", "path", "body", "status", "says"), BAD_REQUESTS, ids=[c[0] for c in BAD_REQUESTS]
)
def test_bad_requests_get_a_clear_4xx(stack, random_pair, tmp_path_factory, case, path, body, status, says):
    other = tmp_path_factory.getbasetemp() / "other-shape"
    if not other.exists():
        make_tiny_checkpoint(other, seed=5, hidden=32)
    paths = {"low": str(random_pair[0]), "high": str(random_pair[1]), "other": str(other)}
    filled = json.loads(
        json.dumps(body)
        .replace("{low}", paths["low"])
        .replace("{high}", paths["high"])
        .replace("{other}", paths["other"])
        .replace("{root}", str(tmp_path_factory.getbasetemp()))  # inside FRONTIER_DATA_ROOTS
    )
    response = httpx.post(stack.evaluator_url + path, json=filled, timeout=30)
    assert response.status_code == status, response.text
    assert says in response.json()["detail"]


def test_malformed_json_and_unknown_jobs(stack):
    bad = httpx.post(
        f"{stack.evaluator_url}/eval", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert bad.status_code == 422 and "malformed JSON" in bad.json()["detail"]
    missing = httpx.get(f"{stack.evaluator_url}/eval/no-such-job")
    assert missing.status_code == 404 and "no-such-job" in missing.json()["detail"]
