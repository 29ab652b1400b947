"""The judge and OpenRLHF's reward service as real processes, for the reward tests (module-scoped
fixtures: a test module imports them, and each module gets its own): a judge on a claimed Redis
database with the bundled prefix_range_sums problem and a problem whose test data is lost."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import httpx
import pytest
import redis

from tests.support import ROOT
from tests.support.redis import claim_redis_db
from tests.support.stack import free_port, judge_stack

PROBLEM = "prefix_range_sums"
PROBLEM_DIR = ROOT / "problems" / "bundled" / PROBLEM
REF = (PROBLEM_DIR / "ref.py").read_text()
TOKEN = "reward-test-token"


def fenced(code: str) -> str:
    return f"Here is my solution.\n```python\n{code}\n```\n"


@pytest.fixture(scope="module")
def redis_url():
    yield from claim_redis_db([*range(8, 16), *range(1, 8)])


@pytest.fixture(scope="module")
def judge(redis_url, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("reward-stack")
    from services.judge.client import JudgeClient

    with judge_stack(tmp, "rw", redis_url=redis_url, slots=2, job_retries=0, job_lease_s=30) as stack:
        with JudgeClient(stack.judge_url) as client:
            client.put_problem_dir(PROBLEM_DIR)
            # a problem whose test data is lost from Redis: judging it is a judge error
            client.put_problem(
                "lost",
                {
                    "time_limit_ms": 1000,
                    "memory_limit_mb": 64,
                    "tests": [{"name": "1", "input": "lost input\n", "output": "x\n"}],
                    "public_tests": ["1"],  # so GET /problems shows its hashes
                },
            )
            sha = client.problem("lost")["tests"][0]["input_sha256"]
            redis.Redis.from_url(redis_url).delete(f"rw{os.getpid()}:blob:{sha}")
            yield client


@pytest.fixture(scope="module")
def reward_service(judge, tmp_path_factory):
    port = free_port()
    log = (tmp_path_factory.mktemp("reward-service") / "reward.log").open("w")
    env = {**os.environ, "FRONTIER_API_TOKEN": TOKEN}  # the judge here has no token: it ignores ours
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "services.cli",
            "serve",
            "reward",
            "--port",
            str(port),
            "--judge-url",
            judge.base_url,
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while True:
        assert proc.poll() is None, "the reward service exited at start"
        try:
            if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                break
        except httpx.TransportError:
            pass
        assert time.monotonic() < deadline, "the reward service did not answer /healthz"
        time.sleep(0.2)
    yield url
    proc.terminate()
    proc.wait(timeout=30)
    log.close()
