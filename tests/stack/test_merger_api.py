"""The merger service end to end: HTTP requests, the real Redis, and a real RQ worker process on a
queue of the test's own, merging real tiny checkpoints."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid

import psutil
import pytest
import torch
from fastapi.testclient import TestClient
from redis import Redis
from rq import Queue
from rq.job import Job
from rq.registry import StartedJobRegistry

from services.merger.api import create_app
from services.settings import Settings
from tests.support import ROOT
from tests.support.models import big_checkpoint, save_tiny, tensors_of

REDIS_URL = "redis://127.0.0.1:6379/0"
REPO = ROOT
ALPHAS9 = [-1.0, -0.5, 0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0]


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    """A worker process on a fresh queue, and a client of an API bound to that queue."""
    queue_name = f"merge-test-{uuid.uuid4().hex[:10]}"
    redis = Redis.from_url(REDIS_URL)
    worker = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "services.merger.cli",
            "worker",
            "--queue",
            queue_name,
            "--redis-url",
            REDIS_URL,
        ],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    root = tmp_path_factory.mktemp("api")
    ckpts = {
        "low": save_tiny(root / "low", "qwen2", 10, torch.bfloat16),
        "high": save_tiny(root / "high", "qwen2", 11, torch.bfloat16),
        "llama": save_tiny(root / "llama", "llama", 12, torch.bfloat16),
    }
    # the test's checkpoints and outputs live under pytest's temporary directory: its only data root
    settings = Settings(data_roots=[tmp_path_factory.getbasetemp()])
    client = TestClient(create_app(REDIS_URL, queue_name, settings))
    yield client, ckpts, root
    worker.send_signal(signal.SIGTERM)  # RQ's warm shutdown
    try:
        worker.wait(timeout=15)
    except subprocess.TimeoutExpired:
        worker.kill()
        worker.wait()
    queue = Queue(queue_name, connection=redis)
    for job_id in (
        queue.job_ids + queue.finished_job_registry.get_job_ids() + queue.failed_job_registry.get_job_ids()
    ):
        Job(job_id, connection=redis).delete()
    queue.delete(delete_jobs=True)
    for key in redis.scan_iter(f"*{queue_name}*"):  # the registries of the test's queue
        redis.delete(key)


def _wait(client: TestClient, job_id: str, timeout_s: float = 60) -> dict:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        body = client.get(f"/merge/{job_id}").json()
        if body["status"] in ("finished", "failed"):
            return body
        time.sleep(0.2)
    raise AssertionError(f"job {job_id} did not end in {timeout_s} s: {body}")


def test_alpha_sweep_job_completes_with_right_outputs(service):
    client, ckpts, root = service
    out = root / "sweep"
    r = client.post(
        "/merge",
        json={
            "low": str(ckpts["low"]),
            "high": str(ckpts["high"]),
            "alphas": [-0.5, 0, 1, 2],
            "output_dir": str(out),
        },
    )
    assert r.status_code == 202, r.text
    job_id = r.json()["job_id"]
    queued = client.get(f"/merge/{job_id}").json()
    assert [o["path"] for o in queued["outputs"]] == [
        str(out / f"alpha_{a}") for a in ("-0.5", "0.0", "1.0", "2.0")
    ]
    body = _wait(client, job_id)
    assert body["status"] == "finished", body
    assert body["error"] is None
    progress = body["progress"]
    assert progress["tensors_done"] == progress["tensors_total"] > 0 and progress["fraction"] == 1.0
    assert [o["status"] for o in body["outputs"]] == ["done"] * 4
    assert [o["alpha"] for o in body["outputs"]] == [-0.5, 0.0, 1.0, 2.0]
    lo, hi = tensors_of(ckpts["low"]), tensors_of(ckpts["high"])
    a0, a1, a2 = (tensors_of(out / f"alpha_{a}") for a in ("0.0", "1.0", "2.0"))
    for name in lo:
        assert torch.equal(a0[name], lo[name]) and torch.equal(a1[name], hi[name])
        ref = 2 * hi[name].double() - lo[name].double()
        bound = 2**-8 * ref.abs() + 2**-21 * (
            lo[name].double().abs() + 2 * (hi[name].double() - lo[name].double()).abs()
        )
        assert ((a2[name].double() - ref).abs() <= bound + 1e-30).all(), name
    record = json.loads((out / "alpha_2.0" / "merge_config.json").read_text())
    assert record["alpha"] == 2.0 and record["base"]["path"] == str(ckpts["low"])


def test_general_form_job(service):
    client, ckpts, root = service
    out = root / "general"
    body = {"base": str(ckpts["low"]), "models": [{"path": str(ckpts["high"]), "weight": 0.25}],
            "output_dir": str(out), "dtype": "float32"}  # fmt: skip
    r = client.post("/merge", json=body)
    assert r.status_code == 202, r.text
    status = _wait(client, r.json()["job_id"])
    assert status["status"] == "finished", status
    assert status["outputs"] == [
        {
            "alpha": None,
            "weights": [0.25],
            "path": str(out),
            "status": "done",
            "fraction": 1.0,
            "warnings": [],
        }
    ]
    lo, hi = tensors_of(ckpts["low"]), tensors_of(ckpts["high"])
    merged = tensors_of(out)
    for name in lo:
        ref = lo[name].double() + 0.25 * (hi[name].double() - lo[name].double())
        assert merged[name].dtype == torch.float32
        assert ((merged[name].double() - ref).abs() <= 2**-21 * (ref.abs() + 1)).all(), name


def test_job_refused_by_the_worker_reports_the_reason_not_a_traceback(service):
    client, ckpts, root = service
    r = client.post(
        "/merge",
        json={
            "low": str(ckpts["low"]),
            "high": str(ckpts["llama"]),
            "alphas": [0.5],
            "output_dir": str(root / "bad"),
        },
    )
    assert r.status_code == 202
    body = _wait(client, r.json()["job_id"])
    assert body["status"] == "failed"
    assert "model_type is 'qwen2'" in body["error"] and "Traceback" not in body["error"]
    assert [o["status"] for o in body["outputs"]] == ["failed"]
    assert not (root / "bad" / "alpha_0.5").exists()


@pytest.mark.parametrize(
    "case,body,status,message",
    [
        ("malformed json", "{not json", 422, "JSON"),
        ("no output_dir", {"low": "/a", "high": "/b", "alphas": [0.5]}, 422, "output_dir"),
        ("both forms", {"low": "/a", "high": "/b", "alphas": [1], "base": "/a", "models": [], "output_dir": "/o"},
         422, "not both"),
        ("half an alpha form", {"low": "/a", "alphas": [1], "output_dir": "/o"}, 422, "needs all of low, high"),
        ("no alphas", {"low": "/a", "high": "/b", "alphas": [], "output_dir": "/o"}, 422, "no alphas"),
        ("repeated alphas", {"low": "/a", "high": "/b", "alphas": [1, 1.0], "output_dir": "/o"}, 422, "repeat"),
        ("NaN alpha", '{"low": "/a", "high": "/b", "alphas": [NaN], "output_dir": "/o"}', 422, "finite"),
        ("unknown dtype", {"low": "/a", "high": "/b", "alphas": [1], "output_dir": "/o", "dtype": "int8"}, 422,
         "bfloat16"),
        ("unknown field", {"low": "/a", "high": "/b", "alphas": [1], "output_dir": "/o", "beta": 1}, 422, "beta"),
        ("zero weight sum", {"base": "/a", "models": [{"path": "/b", "weight": 1}, {"path": "/c", "weight": -1}],
                             "normalize": True, "output_dir": "/o"}, 422, "sum to zero"),
        ("relative output_dir", {"low": "LOW", "high": "HIGH", "alphas": [1], "output_dir": "rel/out"}, 422,
         "absolute"),
        ("missing input", {"low": "MISSING", "high": "HIGH", "alphas": [1], "output_dir": "OUT"}, 422,
         "low: no such directory"),
        ("existing output", {"low": "LOW", "high": "HIGH", "alphas": [0.5], "output_dir": "EXISTING"}, 409,
         "already exists"),
    ],
)  # fmt: skip
def test_bad_requests_get_clear_4xx(service, case, body, status, message):
    client, ckpts, root = service
    if isinstance(body, dict):
        (root / "existing" / "alpha_0.5").mkdir(parents=True, exist_ok=True)
        subs = {
            "LOW": str(ckpts["low"]),
            "HIGH": str(ckpts["high"]),
            "EXISTING": str(root / "existing"),
            "MISSING": str(root / "nonexistent" / "ckpt"),
            "OUT": str(root / "out-of-a-refused-request"),
        }
        body = json.dumps({k: subs.get(v, v) if isinstance(v, str) else v for k, v in body.items()})
    r = client.post("/merge", content=body, headers={"content-type": "application/json"})
    assert r.status_code == status, r.text
    assert message in r.text
    assert "Traceback" not in r.text


def test_unknown_job_is_404_and_health_reports_the_worker(service):
    client, _, _ = service
    r = client.get(f"/merge/{uuid.uuid4()}")
    assert r.status_code == 404 and "no merge job" in r.json()["detail"]
    health = client.get("/healthz")
    assert health.status_code == 200
    assert health.json()["status"] == "ok" and health.json()["workers"] >= 1


def test_a_killed_worker_loses_nothing_the_job_is_redone(tmp_path):
    queue_name = f"merge-test-{uuid.uuid4().hex[:10]}"
    redis = Redis.from_url(REDIS_URL)
    low, high = big_checkpoint(tmp_path / "low", 1), big_checkpoint(tmp_path / "high", 2)
    client = TestClient(create_app(REDIS_URL, queue_name, Settings(data_roots=[tmp_path])))
    cmd = [
        sys.executable,
        "-m",
        "services.merger.cli",
        "worker",
        "--queue",
        queue_name,
        "--redis-url",
        REDIS_URL,
    ]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    first = subprocess.Popen(cmd, cwd=REPO, env=env, start_new_session=True, stdout=subprocess.DEVNULL)
    second = None
    try:
        body = {"low": str(low), "high": str(high), "alphas": ALPHAS9, "output_dir": str(tmp_path / "out")}
        job_id = client.post("/merge", json=body).json()["job_id"]
        deadline = time.monotonic() + 60
        while client.get(f"/merge/{job_id}").json()["status"] != "started":
            assert time.monotonic() < deadline, "the job never started"
            time.sleep(0.02)
        # the worker and its work horse (RQ puts the horse in a session of its own), mid-merge
        for proc in [*psutil.Process(first.pid).children(recursive=True), psutil.Process(first.pid)]:
            proc.kill()
        first.wait()
        assert client.get(f"/merge/{job_id}").json()["status"] == "started"
        assert not list((tmp_path / "out").glob("alpha_*")), (
            "a killed merge left an output that looks complete"
        )
        # what RQ's maintenance does once the dead worker's heartbeat has lapsed
        StartedJobRegistry(queue_name, connection=redis).cleanup(timestamp=time.time() + 10**6)
        assert client.get(f"/merge/{job_id}").json()["status"] == "queued"
        second = subprocess.Popen(cmd, cwd=REPO, env=env, start_new_session=True, stdout=subprocess.DEVNULL)
        status = _wait(client, job_id, timeout_s=120)
        assert status["status"] == "finished", status
        assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(f"alpha_{a!r}" for a in ALPHAS9)
        assert torch.equal(
            tensors_of(tmp_path / "out" / "alpha_1.0")["model.layers.3.mlp.up_proj.weight"],
            tensors_of(high)["model.layers.3.mlp.up_proj.weight"],
        )
    finally:
        for proc in (first, second):
            if proc is not None and proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                proc.wait(timeout=30)
        for key in redis.scan_iter(f"*{queue_name}*"):
            redis.delete(key)
        redis.delete(f"rq:job:{job_id}", f"rq:results:{job_id}")


def test_the_job_reads_a_relative_source_as_a_hub_id_never_as_a_local_directory(tmp_path, monkeypatch):
    """The API takes a non-absolute source only as a hub id; the worker's job must not read a
    directory of that name from its own current directory (outside the data roots)."""
    import huggingface_hub

    from services.merger.worker import run_merge_job

    hub = {"org/low": save_tiny(tmp_path / "hub_low", "qwen2", 20, torch.bfloat16)}
    cwd = tmp_path / "worker_cwd"
    (cwd / "org").mkdir(parents=True)
    save_tiny(cwd / "org" / "high", "qwen2", 21, torch.bfloat16)  # a directory outside every data root
    hub["org/high"] = save_tiny(tmp_path / "hub_high", "qwen2", 22, torch.bfloat16)
    monkeypatch.chdir(cwd)
    asked = []

    def fake_snapshot_download(repo_id, **kwargs):
        asked.append(repo_id)
        return str(hub[repo_id])

    monkeypatch.setattr(huggingface_hub, "snapshot_download", fake_snapshot_download)
    out = tmp_path / "out"
    payload = {"low": "org/low", "high": "org/high", "alphas": [1.0], "output_dir": str(out)}
    summary = run_merge_job(payload)
    assert asked == ["org/low", "org/high"]
    assert summary["outputs"][0]["path"] == str(out / "alpha_1.0")
    merged = tensors_of(out / "alpha_1.0")
    expected = tensors_of(hub["org/high"])
    assert all(torch.equal(merged[k], expected[k]) for k in expected)


def test_the_merge_client_submits_follows_and_says_why_it_failed(service):
    """services/merger/client.py, what the evaluator and the replication use: a merge followed to its
    end with each state seen, a refusal as MergeClientError with its status and reason, a job that
    failed as MergeClientError, and no service at all as MergerUnreachable."""
    from services.merger.client import MergeClient, MergeClientError, MergerUnreachable
    from services.stack import free_port

    http, ckpts, root = service
    client = MergeClient(http=http)
    seen: list[dict] = []
    body = {
        "low": str(ckpts["low"]),
        "high": str(ckpts["high"]),
        "alphas": [0.5],
        "output_dir": str(root / "c"),
    }
    state = client.merge(body, seen.append, poll_s=0.1)
    assert state["status"] == "finished" and state["job_id"] and seen[-1]["status"] == "finished"
    assert (root / "c" / "alpha_0.5" / "config.json").is_file()
    with pytest.raises(MergeClientError) as refused:
        client.submit({**body, "alphas": []})
    assert refused.value.status_code == 422 and "alphas" in str(refused.value)
    llama = {**body, "high": str(ckpts["llama"]), "output_dir": str(root / "mixed")}
    with pytest.raises(MergeClientError, match="failed"):  # the worker refuses two architectures
        client.merge(llama, poll_s=0.1)
    with MergeClient(f"http://127.0.0.1:{free_port()}", timeout_s=5) as nobody:
        with pytest.raises(MergerUnreachable, match="unreachable"):
            nobody.submit(body)
