"""Deployments beyond `make up` (issue 27): compose as users run it, the Helm chart, the Slurm script and
the GPU check script, each tested here as far as this machine (no Docker daemon needed, no cluster, no
GPU) allows; docs/deploy.md says what was not run."""

from __future__ import annotations

import base64
import os
import subprocess
from pathlib import Path

import pytest
import yaml

from services.settings import Settings
from tests.support import ROOT


# -- compose ----------------------------------------------------------------------------------------
def _shim(bin_dir: Path, name: str, body: str) -> None:
    """A stand-in command on PATH for the compose detection below (only its exit status matters)."""
    path = bin_dir / name
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)


def _detected(tmp_path: Path, shims: dict[str, str], **env: str) -> str:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(parents=True, exist_ok=True)
    for name, body in shims.items():
        _shim(bin_dir, name, body)
    script = (
        'source scripts/compose_lib.sh; if detect_compose; then echo "${COMPOSE_BIN[*]}"; else echo none; fi'
    )
    r = subprocess.run(
        ["/bin/bash", "-c", script],
        cwd=ROOT,
        env={"PATH": str(bin_dir), **env},  # only the stand-ins: whatever this machine has installed
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert r.returncode == 0, r.stderr
    return r.stdout.strip().splitlines()[-1]


def test_compose_v2_is_preferred_and_v1_used_where_it_is_all_there_is(tmp_path):
    v2 = 'if [ "$1" = compose ] && [ "$2" = version ]; then exit 0; fi; exit 1'
    no_v2 = "exit 1"  # a docker without the compose plugin
    v1 = "exit 0"
    assert _detected(tmp_path / "a", {"docker": v2, "docker-compose": v1}) == "docker compose"
    assert _detected(tmp_path / "b", {"docker": no_v2, "docker-compose": v1}) == "docker-compose"
    assert _detected(tmp_path / "c", {"docker": no_v2}) == "none"
    assert _detected(tmp_path / "d", {"docker": v2}, FRONTIER_COMPOSE="docker-compose") == "docker-compose"


def test_compose_up_builds_and_scales_on_ports_apart_from_make_up(tmp_path):
    r = subprocess.run(
        ["bash", "scripts/compose_up.sh"],
        cwd=ROOT,
        env={**os.environ, "COMPOSE_UP_DRY_RUN": "1", "COMPOSE_WORKERS": "3"},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert r.returncode == 0, r.stderr
    assert "-p codefrontier build judge-api merger-api" in r.stdout
    assert "-p codefrontier up -d --scale judge-worker=3" in r.stdout
    assert (
        "judge http://127.0.0.1:8100 merger http://127.0.0.1:8101 evaluator http://127.0.0.1:8102" in r.stdout
    )
    for script in ("compose_up.sh", "compose_down.sh", "compose_test.sh", "compose_lib.sh"):
        subprocess.run(["bash", "-n", f"scripts/{script}"], cwd=ROOT, check=True, timeout=30)


def test_compose_ports_do_not_clash_with_make_up_and_workers_drain_within_their_grace():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    s = Settings()
    make_up = {s.judge_port, s.merger_port, s.evaluator_port}
    published = {}
    for name, service in compose["services"].items():
        for port in service.get("ports", []):
            host, _, container = port.rpartition(":")
            host = host.removeprefix(PUBLISHED_ON + ":")
            variable, _, default = host.strip("${}").partition(":-")
            assert variable.startswith("FRONTIER_COMPOSE_"), (name, port)
            published[name] = (variable, int(default), int(container))
    assert {d for _, d, _ in published.values()}.isdisjoint(make_up), published
    assert {v for v, _, _ in published.values()} == {
        "FRONTIER_COMPOSE_JUDGE_PORT",
        "FRONTIER_COMPOSE_MERGER_PORT",
        "FRONTIER_COMPOSE_EVALUATOR_PORT",
    }
    worker = compose["services"]["judge-worker"]
    grace_s = int(worker["stop_grace_period"].rstrip("s"))
    assert float(worker["environment"]["FRONTIER_DRAIN_S"]) + 5 <= grace_s
    assert (
        worker["environment"]["FRONTIER_REDIS_URL"] == compose["x-judge"]["environment"]["FRONTIER_REDIS_URL"]
    )


PUBLISHED_ON = "${FRONTIER_COMPOSE_ADDRESS:-127.0.0.1}"


def test_compose_publishes_on_loopback_unless_an_address_is_given_and_tells_the_services():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    published = [(n, p) for n, svc in compose["services"].items() for p in svc.get("ports", [])]
    assert len(published) == 3
    for name, port in published:
        assert port.startswith(PUBLISHED_ON + ":"), (name, port)
        env = compose["services"][name]["environment"]
        assert env["FRONTIER_PUBLISHED_ADDRESS"] == PUBLISHED_ON, name


def _serve(*args: str, **env: str) -> subprocess.CompletedProcess:
    import sys

    clean = {k: v for k, v in os.environ.items() if not k.startswith("FRONTIER_")}
    return subprocess.run(
        [sys.executable, "-m", *args],
        cwd=ROOT,
        env={**clean, "PYTHONPATH": str(ROOT), "FRONTIER_REDIS_URL": "redis://127.0.0.1:1/0", **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize(
    "service", [("services.judge.cli", "serve"), ("services.merger.cli", "serve", "--port", "1")]
)
def test_a_service_published_beyond_loopback_without_a_token_refuses_to_start(service, tmp_path):
    r = _serve(*service, FRONTIER_PUBLISHED_ADDRESS="0.0.0.0", FRONTIER_STATE_DIR=str(tmp_path))
    assert r.returncode != 0
    assert (
        "refusing to start: its port is published on 0.0.0.0" in r.stderr and "FRONTIER_API_TOKEN" in r.stderr
    )


@pytest.mark.parametrize(
    "address, token, refused",
    [("0.0.0.0", None, True), ("192.0.2.7", None, True), ("::", None, True), ("127.0.0.1", None, False),
     ("0.0.0.0", "a-token-of-sixteen+", False), (None, None, False)],
)  # fmt: skip
def test_which_published_addresses_need_a_token(address, token, refused):
    from services.security import refuse_if_published_open

    settings = Settings(published_address=address, api_token=token)
    if refused:
        with pytest.raises(SystemExit, match="WITHOUT A TOKEN"):
            refuse_if_published_open("the judge", settings)
    else:
        refuse_if_published_open("the judge", settings)


# -- the Helm chart ---------------------------------------------------------------------------------
CHART = ROOT / "deploy" / "helm" / "codefrontier"
K8S_VERSION = "1.37.0"


TOKEN_KEYS = ("apiToken", "apiTokens", "operatorToken", "existingSecret")


def _render(values: dict | None = None) -> list[dict]:
    """The chart rendered with `values`, and a token where they set none (it renders none without)."""
    from services.testing.helm import render_chart

    values = dict(values or {})
    if not any(values.get(k) for k in TOKEN_KEYS):
        values["apiToken"] = "chart-test-token"
    return render_chart(CHART, values, release="cf")


def _validate(docs: list[dict]) -> set[str]:
    """Every manifest of a Kubernetes kind against that kind's schema (strict: no unknown field)."""
    import kubernetes_validate

    kinds = set()
    for doc in docs:
        if doc["apiVersion"].startswith("keda.sh/"):
            continue  # a CRD, not in the Kubernetes schemas: checked field by field below
        kubernetes_validate.validate(doc, K8S_VERSION, strict=True)
        kinds.add(doc["kind"])
    return kinds


def _by(docs: list[dict], kind: str, name: str) -> dict:
    found = [d for d in docs if d["kind"] == kind and d["metadata"]["name"] == name]
    assert len(found) == 1, [(d["kind"], d["metadata"]["name"]) for d in docs]
    return found[0]


def _container(doc: dict) -> dict:
    return doc["spec"]["template"]["spec"]["containers"][0]


def _env(container: dict) -> dict:
    return {e["name"]: e.get("value", e.get("valueFrom")) for e in container["env"]}


def test_the_chart_renders_manifests_that_the_kubernetes_schemas_accept():
    docs = _render()
    kinds = _validate(docs)
    assert kinds == {"Deployment", "Service", "PersistentVolumeClaim", "Secret"}
    names = {d["metadata"]["name"] for d in docs if d["kind"] == "Deployment"}
    assert names == {
        f"cf-codefrontier-{n}"
        for n in (
            "redis",
            "judge",
            "judge-worker",
            "merger-api",
            "merger-worker",
            "evaluator-api",
            "evaluator-worker",
        )
    }
    # every Service selects the pods of one Deployment, on a port those pods name
    deployments = [d for d in docs if d["kind"] == "Deployment"]
    for svc in (d for d in docs if d["kind"] == "Service"):
        selector = svc["spec"]["selector"]
        pods = [
            d for d in deployments if selector.items() <= d["spec"]["template"]["metadata"]["labels"].items()
        ]
        assert len(pods) == 1, svc["metadata"]["name"]
        port_names = {p["name"] for p in _container(pods[0]).get("ports", [])}
        assert {p["targetPort"] for p in svc["spec"]["ports"]} <= port_names, svc["metadata"]["name"]
    # each Deployment's selector matches its own pods
    for d in deployments:
        assert (
            d["spec"]["selector"]["matchLabels"].items()
            <= d["spec"]["template"]["metadata"]["labels"].items()
        )
    # one Redis URL everywhere, the chart's own Redis Service
    urls = {
        _env(_container(d))["FRONTIER_REDIS_URL"]
        for d in deployments
        if d["metadata"]["name"] != "cf-codefrontier-redis"
    }
    assert urls == {"redis://cf-codefrontier-redis:6379/0"}


def test_the_worker_pod_has_what_the_sandbox_needs_and_drains_within_its_grace_period():
    docs = _render()
    worker = _by(docs, "Deployment", "cf-codefrontier-judge-worker")
    pod = worker["spec"]["template"]["spec"]
    c = _container(worker)
    sc = c["securityContext"]
    assert set(sc["capabilities"]["add"]) == {"SYS_ADMIN", "NET_ADMIN"}
    assert sc["seccompProfile"] == {"type": "Unconfined"} and sc["appArmorProfile"] == {"type": "Unconfined"}
    assert sc["runAsUser"] == 0 and sc["privileged"] is False
    env = _env(c)
    assert float(env["FRONTIER_DRAIN_S"]) + 10 <= pod["terminationGracePeriodSeconds"]
    assert "--slots 2" in " ".join(c["command"])
    assert {"/run/codefrontier", "/var/lib/codefrontier"} <= {m["mountPath"] for m in c["volumeMounts"]}
    # readiness: the worker's own loops beat in Redis; the API's: a worker is alive
    assert "local_loops" in " ".join(c["readinessProbe"]["exec"]["command"])
    api = _container(_by(docs, "Deployment", "cf-codefrontier-judge"))
    assert api["readinessProbe"]["httpGet"]["path"] == "/healthz?min_workers=1"
    # requests sized from the benchmarks: one core per slot
    assert c["resources"]["requests"]["cpu"] == "2"
    # cgroup v1 nodes: the host's cgroup tree bound read-write, no remount
    v1 = _container(
        _by(
            _render({"judgeWorker": {"remountCgroupRW": False, "hostCgroupV1": True}}),
            "Deployment",
            "cf-codefrontier-judge-worker",
        )
    )
    assert v1["command"][:4] == ["python", "-m", "services.judge.cli", "worker"]
    assert "/sys/fs/cgroup" in {m["mountPath"] for m in v1["volumeMounts"]}


def test_keda_scales_the_workers_on_the_rq_list_of_judge_jobs():
    import redis
    from rq import Queue

    docs = _render({"autoscaling": {"keda": {"enabled": True}}})
    _validate(docs)
    worker = _by(docs, "Deployment", "cf-codefrontier-judge-worker")
    assert "replicas" not in worker["spec"]  # KEDA owns the count
    so = _by(docs, "ScaledObject", "cf-codefrontier-judge-worker")
    assert so["apiVersion"] == "keda.sh/v1alpha1"
    assert so["spec"]["scaleTargetRef"] == {"name": "cf-codefrontier-judge-worker"}
    assert so["spec"]["minReplicaCount"] == 1 and so["spec"]["maxReplicaCount"] == 32
    (trigger,) = so["spec"]["triggers"]
    assert trigger["type"] == "redis"
    meta = trigger["metadata"]
    # the list RQ keeps the judge's queued jobs in, on the chart's Redis Service
    assert meta["listName"] == Queue(Settings().judge_queue, connection=redis.Redis()).key == "rq:queue:judge"
    assert meta["address"] == "cf-codefrontier-redis:6379"
    assert all(isinstance(v, str) for v in meta.values())  # KEDA's trigger metadata is strings only
    assert set(meta) <= {"address", "listName", "listLength", "databaseIndex", "activationListLength"}


def test_the_hpa_fallback_validates_and_one_autoscaler_at_a_time():
    import pytest

    from services.testing.helm import TemplateError

    docs = _render({"autoscaling": {"hpa": {"enabled": True}}})
    assert "HorizontalPodAutoscaler" in _validate(docs)
    hpa = _by(docs, "HorizontalPodAutoscaler", "cf-codefrontier-judge-worker")
    assert hpa["spec"]["metrics"][0]["external"]["metric"]["name"] == "frontier_judge_queue_jobs"
    with pytest.raises(TemplateError, match="not both"):
        _render({"autoscaling": {"hpa": {"enabled": True}, "keda": {"enabled": True}}})


def test_an_external_redis_by_url_and_a_token_secret():
    import pytest

    from services.testing.helm import TemplateError

    with pytest.raises(TemplateError, match="redis.externalUrl is required"):
        _render({"redis": {"enabled": False}})
    url = "redis://redis.infra:6379/3"
    docs = _render({"redis": {"enabled": False, "externalUrl": url}, "apiToken": "s3cret"})
    kinds = _validate(docs)
    assert "Secret" in kinds and not any(d["metadata"]["name"].endswith("-redis") for d in docs)
    for d in (d for d in docs if d["kind"] == "Deployment"):
        env = _env(_container(d))
        assert env["FRONTIER_REDIS_URL"] == url
        assert env["FRONTIER_API_TOKEN"] == {
            "secretKeyRef": {"name": "cf-codefrontier-token", "key": "token"}
        }
    secret = _by(docs, "Secret", "cf-codefrontier-token")
    assert secret["data"]["token"] == "czNjcmV0"  # base64 of s3cret
    with pytest.raises(TemplateError, match="redisAddress"):
        _render({"redis": {"enabled": False, "externalUrl": url}, "autoscaling": {"keda": {"enabled": True}}})


def test_the_chart_refuses_to_render_without_a_token():
    import pytest

    from services.testing.helm import TemplateError, render_chart

    for values in (None, {"apiToken": ""}, {"apiToken": "", "apiTokens": "", "existingSecret": ""}):
        with pytest.raises(TemplateError, match="no token set. Set apiToken"):
            render_chart(CHART, values, release="cf")
    for values in ({"apiTokens": "a:0123456789abcdef"}, {"existingSecret": "mine"}, {"operatorToken": "op"}):
        assert any(d["kind"] == "Deployment" for d in render_chart(CHART, values, release="cf"))


def test_the_operator_token_travels_in_the_secret_to_every_service():
    docs = _render({"apiToken": "s3cret", "operatorToken": "op3rator"})
    assert _by(docs, "Secret", "cf-codefrontier-token")["data"]["operatorToken"] == "b3AzcmF0b3I="
    for d in (d for d in docs if d["kind"] == "Deployment" and not d["metadata"]["name"].endswith("-redis")):
        assert _env(_container(d))["FRONTIER_OPERATOR_TOKEN"] == {
            "secretKeyRef": {"name": "cf-codefrontier-token", "key": "operatorToken", "optional": True}
        }
    assert "FRONTIER_OPERATOR_TOKEN" not in _env(
        _container(_by(_render(), "Deployment", "cf-codefrontier-judge"))
    )


def test_the_renderer_refuses_what_it_does_not_know_rather_than_guess(tmp_path):
    import pytest

    from services.testing.helm import TemplateError, render_chart

    chart = tmp_path / "c"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    (chart / "values.yaml").write_text("a: {b: 1}\n")
    (chart / "templates" / "x.yaml").write_text("kind: {{ .Values.a.b | sha256sum }}\n")
    with pytest.raises(TemplateError, match="sha256sum"):
        render_chart(chart)
    (chart / "templates" / "x.yaml").write_text("{{- if .Values.a }}\nkind: {{ .Values.a.b | quote }}\n")
    with pytest.raises(TemplateError, match="not closed"):
        render_chart(chart)
    (chart / "templates" / "x.yaml").write_text('kind: {{ printf "%s-%v" "k" .Values.a.b | quote }}\n')
    assert render_chart(chart) == [{"kind": "k-1"}]


# -- Slurm ------------------------------------------------------------------------------------------
SBATCH = ROOT / "deploy" / "slurm" / "codefrontier.sbatch"


def _slurm_env(tmp_path: Path, nodes: str, **extra: str) -> dict[str, str]:
    import sys

    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLURM_", "FRONTIER_", "CF_"))}
    return {
        **env,
        "CF_SLURM_LOCAL": "1",
        "SLURM_JOB_NODELIST": nodes,
        "SLURM_JOB_NUM_NODES": str(len(nodes.split(","))),
        "CF_ROOT": str(ROOT),
        "CF_PYTHON": sys.executable,
        "CF_RUN_DIR": str(tmp_path / "run"),
        "CF_STATE_ROOT": str(tmp_path / "state"),
        **extra,
    }


def test_the_sbatch_script_is_valid_bash_with_slurm_directives():
    subprocess.run(["bash", "-n", str(SBATCH)], check=True, timeout=30)
    text = SBATCH.read_text()
    assert "#SBATCH --ntasks-per-node=1" in text and "srun --nodes=" in text


def test_the_first_node_gets_redis_and_the_api_and_the_others_workers(tmp_path):
    def roles(nodes: str, **extra: str) -> list[list[str]]:
        r = subprocess.run(
            ["bash", str(SBATCH), "--print-roles"],
            env=_slurm_env(tmp_path, nodes, CF_REDIS_PORT="7000", **extra),
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert r.returncode == 0, r.stderr
        return [line.split() for line in r.stdout.splitlines()]

    assert roles("gpu1,cpu1,cpu2") == [
        ["0", "gpu1", "head", "redis://127.0.0.1:7000/0"],
        ["1", "cpu1", "worker", "redis://127.0.0.1:7000/0"],
        ["2", "cpu2", "worker", "redis://127.0.0.1:7000/0"],
    ]
    assert [r[2] for r in roles("a,b", CF_WORKERS_ON_HEAD="1")] == ["head+worker", "worker"]
    assert [r[2] for r in roles("solo")] == ["head+worker"]  # one node: it judges too
    assert roles("a,b", CF_REDIS_PASSWORD="pw")[1][3] == "redis://:pw@127.0.0.1:7000/0"


TRAINER = """
import os
from services.judge.client import JudgeClient
with JudgeClient(os.environ["FRONTIER_JUDGE_URL"], timeout_s=120) as judge:
    print("workers", judge.healthz()["workers"])
    tests = [{"name": "1", "input": "3\\n", "output": "6\\n"}, {"name": "2", "input": "21\\n", "output": "42\\n"}]
    judge.put_problem("double", {"time_limit_ms": 2000, "memory_limit_mb": 64, "tests": tests})
    subs = [
        {"id": "ok", "problem_id": "double", "language": "python", "code": "print(2 * int(input()))"},
        {"id": "wa", "problem_id": "double", "language": "python", "code": "print(6)"},
    ]
    print("outcomes", " ".join(f"{r.id}={r.outcome}" for r in judge.judge(subs)))
"""


def test_the_sbatch_script_runs_a_judge_cluster_and_the_trainer_against_it_locally(tmp_path):
    import socket
    import sys

    ports = []
    for _ in range(2):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            ports.append(s.getsockname()[1])
    trainer = tmp_path / "trainer.py"
    trainer.write_text(TRAINER)
    env = _slurm_env(
        tmp_path, "n1,n2,n3", CF_SLOTS="1", CF_REDIS_PORT=str(ports[0]), CF_JUDGE_PORT=str(ports[1])
    )
    r = subprocess.run(
        ["bash", str(SBATCH), sys.executable, str(trainer)],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=180,
    )
    logs = "\n".join(f"--- {p.name}\n{p.read_text()[-2000:]}" for p in (tmp_path / "run").glob("*.log"))
    assert r.returncode == 0, r.stdout + r.stderr + logs
    assert "workers 2" in r.stdout, r.stdout  # two worker nodes of one slot, none on the head
    assert "outcomes ok=correct wa=correctness_failure" in r.stdout, r.stdout
    cluster = (tmp_path / "run" / "cluster.env").read_text()
    assert f"FRONTIER_JUDGE_URL=http://127.0.0.1:{ports[1]}" in cluster
    # every node's processes are gone with the job: nothing answers on its ports any more
    for port in ports:
        with socket.socket() as s:
            assert s.connect_ex(("127.0.0.1", port)) != 0, port


# -- the GPU check ----------------------------------------------------------------------------------
def test_the_gpu_check_stops_with_a_clear_message_where_there_is_no_gpu(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _shim(bin_dir, "nvidia-smi", "echo 'NVIDIA-SMI has failed: no devices were found' >&2; exit 9")
    for path in (f"{bin_dir}:/usr/bin:/bin", "/usr/bin:/bin"):  # a driver without a device; no driver at all
        r = subprocess.run(
            ["bash", "scripts/gpu_check.sh"],
            cwd=ROOT,
            env={**os.environ, "PATH": path},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert r.returncode == 3, r.stdout + r.stderr
        assert "no NVIDIA GPU here" in r.stderr and "--dry-run" in r.stderr, r.stderr
        assert "installing" not in r.stdout  # nothing installed on a machine that cannot use it


def test_the_gpu_check_dry_run_runs_every_step_on_the_cpu(tmp_path):
    """Everything the GPU check does up to CUDA: checkpoints, a judge started here, the evaluator, the
    in-place alpha swaps, the evaluator's sweep, two GRPO steps, the paper's setting on fixtures of
    both formats with its split, the figures written out."""
    import json
    import sys

    env = {k: v for k, v in os.environ.items() if not k.startswith("FRONTIER_")}
    env.update(
        PYTHONPATH=str(ROOT),
        PY=sys.executable,
        FRONTIER_REDIS_URL="redis://127.0.0.1:1/0",  # nothing there: the check starts a Redis of its own
        FRONTIER_STATE_DIR=str(tmp_path / "state"),
        HF_HUB_OFFLINE="1",
    )
    r = subprocess.run(
        ["bash", "scripts/gpu_check.sh", "--dry-run", "--run-dir", str(tmp_path / "run")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-4000:]
    figures = json.loads((tmp_path / "run" / "gpu_check.json").read_text())
    assert figures["backend"] == "transformers" and figures["dry_run"] is True
    assert figures["checkpoints"]["architecture"] == "Qwen2ForCausalLM"
    assert figures["evaluator"]["judge_errors"] == 0 and figures["evaluator"]["judged"] == 2
    assert figures["generation"]["tokens"] > 0 and figures["generation"]["tokens_per_s"] > 0
    assert sorted(figures["alpha_swap"]["per_alpha"]) == ["0.0", "0.5", "1.0", "1.5"]
    assert all(a["swap_s"] >= 0 for a in figures["alpha_swap"]["per_alpha"].values())
    assert figures["evaluator_sweep"]["judged"] == 4 and figures["grpo"]["steps"] == 2
    assert "swap" in r.stdout and "tokens/s" in r.stdout
    # the paper's setting (configs/replicate_gpu.toml) on the fixtures: trained on the CodeContests+
    # import, measured on the LiveCodeBench problems of the release window only, hard by difficulty
    paper = figures["paper_setting"]
    assert paper["split"]["train"] == paper["imported"]["train"] == ["ccplus-9001_A", "ccplus-9002_B"]
    assert paper["split"]["eval"] == ["lcb-fx_maximum", "lcb-fx_reverse"]  # fx_old: before the window
    assert paper["hard_problems"] == ["lcb-fx_maximum"] and paper["hard_basis"] == "difficulty hard"
    assert paper["judged"] == {"alpha_0.0": 4, "alpha_1.0": 4}


# -- trainers' settings (issue 23): tokens per client, fair shares, deadlines --------------------------
TRAINER_SETTINGS = {
    "FRONTIER_API_TOKENS": "api_tokens",
    "FRONTIER_CLIENT_WEIGHTS": "client_weights",
    "FRONTIER_MAX_CLIENT_QUEUE_DEPTH": "max_client_queue_depth",
    "FRONTIER_DEADLINE_MARGIN_S": "deadline_margin_s",
    "FRONTIER_SANDBOXFUSION_CLIENT_SLACK_S": "sandboxfusion_client_slack_s",
    "FRONTIER_DEADLINE_START_RULE": "deadline_start_rule",
    "FRONTIER_DEADLINE_CARRY_S": "deadline_carry_s",
    "FRONTIER_SANDBOXFUSION_CLIENT_ATTEMPTS": "sandboxfusion_client_attempts",
    "FRONTIER_MAX_CHECKS": "max_checks",  # an operator's, beside them: checker compiles in flight
}


def test_compose_passes_the_trainers_settings_to_the_api_and_the_workers_with_the_judges_defaults():
    """Each is `${NAME:-default}` in the API's and the workers' environment, the name is the setting's,
    and the defaults are the judge's own: an unset variable changes nothing."""
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    defaults = Settings(_env_file=None)
    for service in ("judge-api", "judge-worker"):
        env = compose["services"][service]["environment"]
        for name, field in TRAINER_SETTINGS.items():
            variable, _, default = env[name].strip("${}").partition(":-")
            assert variable == name, (service, name, env[name])
            loaded = Settings(_env_file=None, **{field: default})
            assert getattr(loaded, field) == getattr(defaults, field), (service, name, default)
    # the merger and the evaluator accept the named tokens too (the token in the URL opens every service)
    assert compose["x-stack"]["environment"]["FRONTIER_API_TOKENS"] == "${FRONTIER_API_TOKENS:-}"


def test_helm_passes_the_trainers_settings_and_keeps_the_named_tokens_in_the_secret():
    docs = _render()
    defaults = Settings(_env_file=None)
    for name in ("judge", "judge-worker"):
        env = _env(_container(_by(docs, "Deployment", f"cf-codefrontier-{name}")))
        assert "FRONTIER_API_TOKENS" not in env  # none configured: nothing to mount
        for var, field in TRAINER_SETTINGS.items():
            if var != "FRONTIER_API_TOKENS":
                assert getattr(Settings(_env_file=None, **{field: env[var]}), field) == getattr(
                    defaults, field
                )
    values = {
        "apiTokens": "trainer-a:aaaaaaaaaaaaaaaaaaaa,trainer-b:bbbbbbbbbbbbbbbbbbbb",
        "clientWeights": "trainer-a:3,trainer-b:1",
        "maxClientQueueDepth": 500,
        "maxChecks": 9,
        "deadlines": {
            "marginS": 3,
            "sandboxfusionClientSlackS": 20,
            "startRule": "limits",
            "carryS": 0,
            "sandboxfusionClientAttempts": 5,
        },
    }
    docs = _render(values)
    _validate(docs)
    secret = _by(docs, "Secret", "cf-codefrontier-token")
    assert base64.b64decode(secret["data"]["tokens"]).decode() == values["apiTokens"]
    assert "token" not in secret["data"]  # no FRONTIER_API_TOKEN given
    for d in (d for d in docs if d["kind"] == "Deployment" and not d["metadata"]["name"].endswith("-redis")):
        env = _env(_container(d))
        assert env["FRONTIER_API_TOKENS"] == {
            "secretKeyRef": {"name": "cf-codefrontier-token", "key": "tokens", "optional": True}
        }
        assert "FRONTIER_API_TOKEN" not in env
        loaded = Settings(
            _env_file=None,
            api_tokens=values["apiTokens"],
            **{f: env[v] for v, f in TRAINER_SETTINGS.items() if v != "FRONTIER_API_TOKENS"},
        )
        assert loaded.client_weights == "trainer-a:3,trainer-b:1"
        assert loaded.max_client_queue_depth == 500 and loaded.deadline_margin_s == 3
        assert loaded.sandboxfusion_client_slack_s == 20 and loaded.deadline_start_rule == "limits"
        assert loaded.deadline_carry_s == 0 and loaded.max_checks == 9
        assert set(loaded.named_tokens()) == {"trainer-a", "trainer-b"}
