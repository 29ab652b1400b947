"""Named tokens are tenants (docs/spec.md 9.7, issue 38): a session, a batch and a Judge0 token belong to
the client that created them (another client gets the 404 of an id never created, and does not see
them listed; the operator's token sees everything); a problem is replaced only by its uploader or the
operator, and judged by anyone; a session's submit counts against its own client's queue share; the
start rule's estimates are per client, and its refusal names the tier that decided."""

from __future__ import annotations

import os

import httpx
import pytest
import redis

from services.judge.queue import deadlines, runs
from tests.support.redis import MAIN_REDIS, claim_redis_db
from tests.support.stack import judge_stack

ALICE = "alice-0123456789abcdef-secret"
BOB = "bob-fedcba9876543210-secretxx"
OPERATOR = "operator-00112233445566778899"
ECHO = "print(input())\n"
PROBLEM = {
    "time_limit_ms": 2000,
    "memory_limit_mb": 128,
    "tests": [{"name": "1", "input": "a\n", "output": "a\n"}],
}
WRONG = {**PROBLEM, "tests": [{"name": "1", "input": "a\n", "output": "b\n"}]}


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    for url in claim_redis_db(range(8, 16), *MAIN_REDIS):
        s = judge_stack(
            tmp_path_factory.mktemp("tenants"),
            redis_url=url,
            workers=0,
            judge_queue=f"tenants-{os.getpid()}",
            redis_prefix=f"ten{os.getpid()}",
            api_tokens=f"alice:{ALICE},bob:{BOB}",
            operator_token=OPERATOR,
            judge0_submission_delete="true",
        )
        s.redis_url = url
        s.start_worker(slots=1)
        s.wait_workers(1)
        try:
            yield s
        finally:
            s.close()


def client(stack, token: str) -> httpx.Client:
    return httpx.Client(base_url=stack.url, headers={"Authorization": f"Bearer {token}"}, timeout=120)


@pytest.fixture(scope="module")
def alice(stack):
    with client(stack, ALICE) as http:
        yield http


@pytest.fixture(scope="module")
def bob(stack):
    with client(stack, BOB) as http:
        yield http


@pytest.fixture(scope="module")
def operator(stack):
    with client(stack, OPERATOR) as http:
        yield http


@pytest.fixture(scope="module")
def alices_session(alice):
    assert alice.put("/problems/ten-echo", json=PROBLEM).status_code in (200, 201)
    r = alice.post("/sessions", json={"kind": "python", "problem_id": "ten-echo"})
    assert r.status_code == 201, r.text
    sid = r.json()["id"]
    assert alice.put(f"/sessions/{sid}/files/a.py", content=ECHO.encode()).status_code == 200
    yield sid
    alice.delete(f"/sessions/{sid}")


# -- sessions -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "method, path, body",
    [
        ("GET", "", None),
        ("POST", "/exec", {"code": "print(1)"}),
        ("GET", "/files/a.py", None),
        ("PUT", "/files/b.py", None),
        ("POST", "/submit", {"path": "a.py"}),
        ("DELETE", "", None),
    ],
)
def test_another_clients_session_is_404_to_every_route(alice, bob, alices_session, method, path, body):
    url = f"/sessions/{alices_session}{path}"
    r = (
        bob.request(method, url, json=body)
        if body
        else bob.request(method, url, content=b"x" if method == "PUT" else None)
    )
    assert r.status_code == 404, r.text
    assert r.json()["detail"] == f"unknown session {alices_session!r} (never created, deleted, or expired)"
    assert alice.get(f"/sessions/{alices_session}").json()["state"] == "live"  # untouched


def test_a_client_lists_only_its_own_sessions_and_the_operator_all(alice, bob, operator, alices_session):
    assert alices_session in [s["id"] for s in alice.get("/sessions").json()]
    assert alices_session not in [s["id"] for s in bob.get("/sessions").json()]
    assert alices_session in [s["id"] for s in operator.get("/sessions").json()]
    assert operator.get(f"/sessions/{alices_session}").status_code == 200


def test_a_sessions_submit_counts_against_its_own_clients_share(stack, alice, alices_session):
    r = alice.post(f"/sessions/{alices_session}/submit", json={"path": "a.py"})
    assert r.status_code == 200 and r.json()["outcome"] == "correct", r.text
    conn = redis.Redis.from_url(stack.redis_url)
    keys = [k for k in conn.scan_iter(f"ten{os.getpid()}:b:*") if k.count(b":") == 2]  # batch metas
    owners = [conn.hget(key, "client") for key in keys]
    assert b"alice" in owners and b"anonymous" not in owners, owners


# -- batches and Judge0 tokens ----------------------------------------------------------------------
def test_another_clients_batch_is_404(alice, bob, operator):
    assert alice.put("/problems/ten-echo", json=PROBLEM).status_code in (200, 201)
    r = alice.post(
        "/submissions", json={"submissions": [{"id": "1", "problem_id": "ten-echo", "code": ECHO}]}
    )
    batch = r.json()["batch_id"]
    mine = alice.get(f"/submissions/{batch}", params={"wait_s": 60})
    assert mine.status_code == 200 and mine.json()["status"] == "done"
    theirs = bob.get(f"/submissions/{batch}")
    assert theirs.status_code == 404
    assert theirs.json()["detail"] == f"unknown batch {batch!r} (never accepted, or expired)"
    assert operator.get(f"/submissions/{batch}").status_code == 200


def test_another_clients_judge0_token_is_unknown_to_read_batch_read_and_delete(alice, bob):
    r = alice.post("/judge0/submissions", json={"source_code": ECHO, "language_id": 71, "stdin": "j\n"})
    token = r.json()["token"]
    assert alice.get(f"/judge0/submissions/{token}").status_code == 200
    assert bob.get(f"/judge0/submissions/{token}").status_code == 404
    assert bob.get("/judge0/submissions/batch", params={"tokens": token}).json() == {"submissions": [None]}
    assert bob.delete(f"/judge0/submissions/{token}").status_code == 404
    while alice.get(f"/judge0/submissions/{token}").json()["status"]["id"] < 3:
        pass  # the worker answers within its limits; bob's delete left it alone
    assert alice.delete(f"/judge0/submissions/{token}").status_code == 200


# -- problems -------------------------------------------------------------------------------------
def test_a_problem_is_replaced_only_by_its_uploader_or_the_operator(alice, bob, operator):
    assert alice.put("/problems/ten-owned", json=PROBLEM).status_code in (200, 201)
    digest = alice.get("/problems/ten-owned").json()["digest"]
    refused = bob.put("/problems/ten-owned", json=WRONG)
    assert refused.status_code == 403 and "only its uploader or the operator" in refused.json()["detail"]
    assert alice.get("/problems/ten-owned").json()["digest"] == digest
    # bob judges against it, and a program that prints "a" is still correct there
    r = bob.post("/judge", json={"submissions": [{"id": "1", "problem_id": "ten-owned", "code": ECHO}]})
    assert r.status_code == 200 and r.json()["results"][0]["outcome"] == "correct", r.text
    assert operator.put("/problems/ten-owned", json=WRONG).status_code == 200
    assert alice.put("/problems/ten-owned", json=PROBLEM).status_code == 200  # still alice's
    assert bob.put("/problems/ten-owned", json=WRONG).status_code == 403


# -- the start rule's estimates ---------------------------------------------------------------------
def _run(client: str, code: str = ECHO) -> runs.RunRequest:
    return runs.RunRequest(
        language="python",
        code=code,
        time_limit_ms=1000,
        wall_limit_ms=3000,
        memory_limit_mb=256,
        client=client,
    )


def test_one_clients_slow_runs_never_raise_anothers_estimate(monkeypatch):
    est = deadlines.CostEstimates()
    monkeypatch.setattr(deadlines, "ESTIMATES", est)
    settings = type("S", (), {"deadline_start_rule": "estimate"})()
    for i in range(8):  # bob's programs of the kind all run to their wall limit
        deadlines.record_run(_run("bob", f"while True: pass  # {i}\n"), 3.0)
    for i in range(8):  # alice's are fast
        deadlines.record_run(_run("alice", f"print(1)  # {i}\n"), 0.05)
    kind, program = deadlines.run_keys(_run("alice", "print(2)\n"))  # a program of hers never seen
    assert deadlines.start_cost(settings, kind, 3.0, program, est) == (0.05, "kind")
    # the same program sent by bob is costed by his measurements, not hers
    kind, program = deadlines.run_keys(_run("bob", "print(1)  # 0\n"))
    assert deadlines.start_cost(settings, kind, 3.0, program, est) == (3.0, "kind")
    unit_a, unit_b = (deadlines.unit_key(c, "digest", "python") for c in ("alice", "bob"))
    assert unit_a != unit_b


@pytest.mark.parametrize("source", ["program", "running", "kind"])
def test_a_refusal_by_the_start_rule_names_the_tier_that_decided(source):
    message = deadlines.abandoned_message("no_time", False, source)
    assert f"({source}:" in message and "the start rule" in message
    assert "its limits could not finish" in deadlines.abandoned_message("no_time", False, "limits")
