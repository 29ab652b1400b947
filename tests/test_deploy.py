"""Deployments beyond `make up` (issue 27): compose as users run it, the Helm chart, the Slurm script and
the GPU check script, each tested here as far as this machine (no Docker daemon needed, no cluster, no
GPU) allows; README "Beyond one machine" says what was not run."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import yaml

from services.settings import Settings

ROOT = Path(__file__).resolve().parent.parent


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
