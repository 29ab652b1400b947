"""Schemathesis against the judge's own OpenAPI schema (issue 9, item 8): every operation gets a
bounded, seeded set of generated requests, valid and invalid, and must never answer 5xx; the judge
still answers /healthz afterwards.

The app runs in process on a Redis database of its own (the machine's Redis), with small limits so
that generated bodies also reach the 413 paths; no worker runs, so an accepted POST /judge waits
FRONTIER_JUDGE_WAIT_S (1 s) and answers its documented 504 with the batch id, which is not a failure.
"""

from __future__ import annotations

import os

import pytest
import schemathesis
from hypothesis import HealthCheck, given, seed, settings
from schemathesis import GenerationMode

from services.settings import Settings
from tests.support.redis import claim_redis_db

MAX_EXAMPLES = 30
SEED = 2026


@pytest.fixture(scope="module")
def fuzz_redis_url():
    yield from claim_redis_db([*range(8, 16), *range(1, 8)])


@pytest.fixture(scope="module")
def judge_app(fuzz_redis_url, tmp_path_factory):
    from services.judge.api import create_app

    return create_app(
        Settings(
            state_dir=tmp_path_factory.mktemp("fuzz"),
            redis_url=fuzz_redis_url,
            redis_prefix=f"fz{os.getpid()}",
            judge_queue=f"judge-fz{os.getpid()}",
            judge_wait_s=1,
            max_body_mb=1,
            max_problem_mb=1,
            max_code_kb=4,
        )
    )


@pytest.fixture(scope="module")
def judge_schema(judge_app):
    return schemathesis.openapi.from_asgi("/openapi.json", judge_app)


# every operation of the judge's schema; the first test fails when an endpoint is added and not here
OPERATIONS = [
    "GET /healthz",
    "PUT /problems/{problem_id}",
    "GET /problems/{problem_id}",
    "GET /problems",
    "POST /judge",
    "POST /submissions",
    "GET /submissions/{batch_id}",
    "GET /metrics",
    "POST /run_code",
    "POST /run_jupyter",
    "GET /judge0/languages",
    "GET /judge0/languages/{language_id}",
    "GET /judge0/statuses",
    "GET /judge0/about",
    "GET /judge0/config_info",
    "POST /judge0/submissions",
    "POST /judge0/submissions/batch",
    "GET /judge0/submissions/batch",
    "GET /judge0/submissions/{token}",
    "DELETE /judge0/submissions/{token}",
    "POST /sessions",
    "GET /sessions",
    "GET /sessions/{sid}",
    "DELETE /sessions/{sid}",
    "POST /sessions/{sid}/exec",
    "PUT /sessions/{sid}/files/{path}",
    "GET /sessions/{sid}/files/{path}",
    "POST /sessions/{sid}/submit",
]


def test_every_operation_of_the_schema_is_fuzzed(judge_schema):
    labels = [result.ok().label for result in judge_schema.get_all_operations()]
    assert sorted(labels) == sorted(OPERATIONS)


# the operations with a body or parameters a request can break (the others have nothing to break)
BREAKABLE = ["PUT /problems/{problem_id}", "POST /judge", "POST /submissions", "GET /submissions/{batch_id}"]
BREAKABLE += [
    "POST /run_code",
    "POST /run_jupyter",
    "POST /judge0/submissions",
    "POST /judge0/submissions/batch",
]
BREAKABLE += ["GET /judge0/submissions/batch", "DELETE /judge0/submissions/{token}"]
BREAKABLE += ["POST /sessions", "POST /sessions/{sid}/exec", "POST /sessions/{sid}/submit"]
CASES = [(label, GenerationMode.POSITIVE) for label in OPERATIONS] + [
    (label, GenerationMode.NEGATIVE) for label in BREAKABLE
]


@pytest.mark.parametrize("label, mode", CASES, ids=[f"{label}-{mode.value}" for label, mode in CASES])
def test_no_generated_request_gets_a_server_error(judge_schema, label, mode):
    """Valid requests (positive) and requests that break the schema (negative) alike."""
    operation = judge_schema.find_operation_by_label(label)
    statuses = []

    @given(case=operation.as_strategy(generation_mode=mode))
    @seed(SEED)
    @settings(
        max_examples=MAX_EXAMPLES,
        derandomize=True,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        database=None,
    )
    def check(case):
        response = case.call()
        statuses.append(response.status_code)
        if response.status_code == 504 and operation.path == "/judge":
            # documented: the batch outlived the (1 s) wait and keeps running
            assert "batch_id" in response.json(), response.text
            return
        if response.status_code == 504 and operation.path in ("/run_code", "/run_jupyter"):
            # documented: no worker runs here, so a run outlives the (1 s) wait, in SandboxFusion's shape
            assert response.json()["status"] == "SandboxError", response.text
            return
        if response.status_code == 503 and operation.path == "/healthz":
            # documented: with min_workers, a readiness probe is 503 while fewer workers are alive
            # (none runs here; docs/spec.md section 6.4)
            assert "worker loop(s) alive" in response.json()["detail"], response.text
            assert "min_workers=0" not in case.formatted_path
            return
        if response.status_code == 503 and operation.path == "/sessions":
            # documented: no judge worker runs here to hold a session (docs/spec.md section 6.6)
            assert "worker" in response.json()["detail"], response.text
            return
        assert response.status_code < 500, (
            f"{label} ({case.formatted_path}) answered {response.status_code}: {response.text[:500]}"
        )
        if response.status_code >= 400:
            assert response.json().get("detail"), response.text  # a 4xx says why

    check()
    assert statuses, "no request was generated"
    if mode is GenerationMode.NEGATIVE:
        # schema-breaking requests were made, and refused with a 4xx
        assert any(400 <= s < 500 for s in statuses), sorted(set(statuses))


def test_the_judge_still_answers_healthz_after_the_fuzzing(judge_app):
    from fastapi.testclient import TestClient

    with TestClient(judge_app) as http:
        health = http.get("/healthz")
        assert health.status_code == 200 and health.json()["status"] == "ok"
        # and still does its work: a problem can be stored and listed
        body = {"id": "after", "time_limit_ms": 1000, "memory_limit_mb": 64, "tests": [{"name": "1", "input": "1", "output": "1"}]}  # fmt: skip
        assert http.put("/problems/after", json=body).status_code in (200, 201)
        assert "after" in [p["id"] for p in http.get("/problems").json()]
