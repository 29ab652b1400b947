"""The judge as a service (SPEC section 4, issue 3), end to end: a real Redis, a real API process, real
worker processes with real sandboxes. Each rule of the contract is one test, named after it."""

from __future__ import annotations

import asyncio
import hashlib
import io
import json
import os
import re
import signal
import subprocess
import tarfile
import time
from pathlib import Path

import httpx
import pytest
import redis

from services.judge.client import AsyncJudgeClient, JudgeClient
from tests.support.problems import SLEEPY, SUM, SUM_TESTS, problem_json, subs_of
from tests.support.redis import MAIN_REDIS, claim_redis_db
from tests.support.stack import free_port, judge_stack

SUM_CPP = '#include <cstdio>\nint main(){long a,b;scanf("%ld %ld",&a,&b);printf("%ld\\n",a+b);}\n'
# passes the small test, spins on the larger one: a TLE after a pass is an optimization failure
SLOW_ON_BIG = "a, b = map(int, input().split())\nif a > 5:\n    while True: pass\nprint(a + b)\n"
MLE = "x = bytearray(200 << 20)\nx[::4096] = b'1' * len(x[::4096])\nprint(len(x))\n"


@pytest.fixture(scope="session")
def redis_url():
    """An empty database of the machine's Redis (8-15), claimed for this session and flushed after it."""
    yield from claim_redis_db(range(15, 7, -1), *MAIN_REDIS)


def _stop(p: subprocess.Popen | None, sig) -> None:
    if p is None or p.poll() is not None:
        return
    p.send_signal(sig)
    try:
        p.wait(10)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()


@pytest.fixture(scope="module")
def stack(redis_url, tmp_path_factory):
    """The default deployment: one API, two workers with one slot each (two 'hosts', separate caches)."""
    with judge_stack(tmp_path_factory, "stack", redis_url=redis_url, workers=2, judge_queue="judge") as s:
        yield s


@pytest.fixture(scope="module")
def http(stack):
    with httpx.Client(base_url=stack.url, timeout=120) as client:
        yield client


@pytest.fixture(scope="module")
def sum_problem(http) -> str:
    r = http.put("/problems/sum", json=problem_json(SUM_TESTS, time_limit_ms=500))
    assert r.status_code in (200, 201), r.text
    return "sum"


def metric(http: httpx.Client, name: str) -> float:
    text = http.get("/metrics").text
    m = re.search(rf"^{re.escape(name)} (\S+)$", text, re.M)
    assert m, f"{name} not in /metrics"
    return float(m.group(1))


# -- problems ---------------------------------------------------------------------------------------
def test_put_problem_is_idempotent_and_stores_each_test_once(http, stack):
    conn = redis.Redis.from_url(stack.env["FRONTIER_REDIS_URL"])
    prefix = stack.env["FRONTIER_REDIS_PREFIX"]
    body = problem_json([("a", "5\n", "5\n"), ("b", "5\n", "5\n"), ("c", "77\n", "77\n")])
    first = http.put("/problems/echo", json=body)
    blobs = len(list(conn.scan_iter(f"{prefix}:blob:*")))
    second = http.put("/problems/echo", json=body)
    assert (first.status_code, second.status_code) == (201, 200)
    # identical inputs and outputs are one blob: "5\n" and "77\n"
    assert first.json()["files"] == 2
    assert second.json() | {"created": True} == first.json()
    assert len(list(conn.scan_iter(f"{prefix}:blob:*"))) == blobs


def test_an_upload_never_says_whether_a_test_file_was_stored_already(http, stack):
    """No reuse oracle: uploading a guessed output answers the same whether or not a problem holds it."""
    http.put("/problems/holder", json=problem_json([("a", "1\n", "secret-answer\n")]))
    held = http.put("/problems/guess1", json=problem_json([("a", "2\n", "secret-answer\n")])).json()
    fresh = http.put("/problems/guess2", json=problem_json([("a", "2\n", "not-held-anywhere\n")])).json()
    assert set(held) == set(fresh) == {"id", "digest", "created", "tests", "files", "summary"}
    assert (held["files"], held["created"]) == (fresh["files"], fresh["created"]) == (2, True)


def test_no_answer_carries_a_hidden_tests_hashes(http, stack):
    """GET /problems/{id} shows a public test's hashes only; the digest is salted, so it cannot be
    recomputed from a guessed hidden test."""
    body = problem_json([("p", "1\n", "1\n"), ("h", "22\n", "hidden-out\n")], public_tests=["p"])
    stored = http.put("/problems/hashes", json=body).json()
    hidden_hashes = {hashlib.sha256(b).hexdigest() for b in (b"22\n", b"hidden-out\n")}
    for path in ("/problems/hashes", "/problems"):
        text = http.get(path).text
        assert not any(h in text for h in hidden_hashes), path
    tests = {t["name"]: t for t in http.get("/problems/hashes").json()["tests"]}
    assert tests["h"] == {"name": "h", "input_bytes": 3, "public": False}
    assert tests["p"]["output_sha256"] == hashlib.sha256(b"1\n").hexdigest()
    conn = redis.Redis.from_url(stack.env["FRONTIER_REDIS_URL"])
    definition = conn.get(f"{stack.env['FRONTIER_REDIS_PREFIX']}:pdef:{stored['digest']}")
    assert definition is not None and hashlib.sha256(definition).hexdigest() != stored["digest"]


def test_put_problem_as_tar_gz_with_program_checker(http, tmp_path):
    d = tmp_path / "parity"
    (d / "tests").mkdir(parents=True)
    spec = {
        "id": "parity",
        "time_limit_ms": 1000,
        "memory_limit_mb": 64,
        "checker": {"type": "program", "path": "chk.py"},
    }
    (d / "problem.json").write_text(json.dumps(spec))
    (d / "statement.md").write_text("Print any number with the parity of n.")
    (d / "chk.py").write_text(
        "import sys\nn, _, a = (open(p).read().split() for p in sys.argv[1:4])\n"
        "sys.exit(0 if int(a[0]) % 2 == int(n[0]) % 2 else 1)\n"
    )
    for name, n in (("1", "3"), ("2", "8")):
        (d / "tests" / f"{name}.in").write_text(n + "\n")
        (d / "tests" / f"{name}.out").write_text(n + "\n")
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        tar.add(d, arcname="parity")
    r = http.put("/problems/parity", content=buf.getvalue(), headers={"content-type": "application/gzip"})
    assert r.status_code == 201, r.text
    got = http.get("/problems/parity").json()
    assert (got["checker"], got["test_count"], got["input_bytes_max"]) == ("program", 2, 2)
    assert got["statement"].startswith("Print any number")
    assert "parity" in [p["id"] for p in http.get("/problems").json()]
    results = http.post(
        "/judge",
        json={"submissions": subs_of({"ok": "print(int(input()) + 100)", "bad": "print(1)"}, "parity")},
    ).json()["results"]
    assert [(x["id"], x["outcome"]) for x in results] == [("ok", "correct"), ("bad", "correctness_failure")]


@pytest.mark.parametrize(
    ("path", "kwargs", "status", "needle"),
    [
        (
            "/problems/x1",
            {"content": b"{not json", "headers": {"content-type": "application/json"}},
            422,
            "malformed JSON",
        ),
        ("/problems/x1", {"json": {"time_limit_ms": 1000, "memory_limit_mb": 64, "tests": []}}, 422, "tests"),
        ("/problems/x1", {"json": problem_json(SUM_TESTS) | {"id": "other"}}, 422, "differs from the URL"),
        ("/problems/x1", {"json": problem_json(SUM_TESTS) | {"checker": {"type": "program"}}}, 422, "source"),
        ("/problems/x1", {"json": problem_json(SUM_TESTS) | {"time_limit_ms": -5}}, 422, "time_limit_ms"),
        ("/problems/x1", {"content": b"abc", "headers": {"content-type": "application/gzip"}}, 422, "tar.gz"),
        (
            "/problems/x1",
            {"content": b"abc", "headers": {"content-type": "text/plain"}},
            415,
            "application/json",
        ),
        ("/problems/bad$id", {"json": problem_json(SUM_TESTS)}, 422, "bad problem id"),
    ],
)
def test_bad_problem_uploads_get_a_clear_4xx(http, path, kwargs, status, needle):
    r = http.put(path, **kwargs)
    assert r.status_code == status, r.text
    assert needle in r.json()["detail"]


def test_unknown_problem_is_404(http):
    assert http.get("/problems/nope").status_code == 404
    r = http.post("/judge", json={"submissions": subs_of({"a": SUM}, "nope")})
    assert r.status_code == 404 and "'nope'" in r.json()["detail"]


# -- judging ----------------------------------------------------------------------------------------
def test_batch_mixing_languages_problems_and_outcomes(http, sum_problem):
    http.put("/problems/double", json=problem_json([("1", "4\n", "8\n")]))
    subs = [
        {"id": "py-ok", "problem_id": "sum", "code": SUM},
        {"id": "cpp-ok", "problem_id": "sum", "language": "cpp", "code": SUM_CPP},
        {"id": "wa", "problem_id": "sum", "code": "print(3)"},
        {"id": "tle", "problem_id": "sum", "code": SLOW_ON_BIG},
        {"id": "mle", "problem_id": "sum", "code": MLE},
        {"id": "re", "problem_id": "sum", "code": "raise SystemExit(3)"},
        {"id": "ce", "problem_id": "sum", "language": "cpp", "code": "int main( {"},
        {"id": "dbl", "problem_id": "double", "code": "print(2 * int(input()))"},
        {
            "id": "extract",
            "problem_id": "double",
            "completion": "Sure:\n```python\nprint(int(input()) * 2)\n```",
        },
        {"id": "noformat", "problem_id": "double", "completion": "I cannot solve this."},
    ]
    r = http.post("/judge", json={"submissions": subs, "ks": [1, 2, 3]})
    assert r.status_code == 200, r.text
    results = r.json()["results"]
    assert [(x["id"], x["problem_id"]) for x in results] == [(s["id"], s["problem_id"]) for s in subs]
    got = {x["id"]: x for x in results}
    assert all(x["status"] == "ok" for x in results)
    expected = {
        "py-ok": ("correct", None),
        "cpp-ok": ("correct", None),
        "wa": ("correctness_failure", "WA"),
        "tle": ("optimization_failure", "TLE"),
        "mle": ("correctness_failure", "MLE"),
        "re": ("correctness_failure", "RE"),
        "ce": ("correctness_failure", "CE"),
        "dbl": ("correct", None),
        "extract": ("correct", None),
        "noformat": ("format_error", None),
    }
    for sid, (outcome, verdict) in expected.items():
        assert got[sid]["outcome"] == outcome, (sid, got[sid])
        assert (got[sid]["first_failure"] or {}).get("verdict") == verdict, (sid, got[sid])
    assert got["py-ok"]["rewards"] == {"R_1": 1, "R_2": 1, "R_3": 1, "R_inf": 1}
    assert got["tle"]["rewards"] == {"R_1": 1, "R_2": 0, "R_3": 0, "R_inf": 0}
    assert got["noformat"]["rewards"] == {"R_1": 0, "R_2": 0, "R_3": 0, "R_inf": 0}
    assert got["ce"]["compile_output"]


# an interactive problem (docs/spec.md 2.8): the interactor sends the input's number, wants it doubled
INTERACTOR = """
import sys
n = int(open("input").read())
print(n, flush=True)
sys.exit(0 if sys.stdin.readline().strip() == str(2 * n) else 1)
"""


def test_an_interactive_problem_is_uploaded_and_judged_through_judge(http):
    body = problem_json(
        [("1", "4\n", ""), ("2", "21\n", "")], interactor={"source": INTERACTOR, "language": "python"}
    )
    r = http.put("/problems/dialogue", json=body)
    assert r.status_code in (200, 201), r.text
    assert r.json()["summary"]["interactor"] == "python"
    assert http.get("/problems/dialogue").json()["interactor"] == "python"
    assert (
        http.put("/problems/dialogue-nosource", json={**body, "interactor": {"path": "i.py"}}).status_code
        == 422
    )
    subs = subs_of(
        {"ok": "print(2 * int(input()), flush=True)", "wa": "print(int(input()), flush=True)"}, "dialogue"
    )
    results = {x["id"]: x for x in http.post("/judge", json={"submissions": subs}).json()["results"]}
    assert results["ok"]["status"] == "ok" and results["ok"]["outcome"] == "correct", results["ok"]
    assert results["wa"]["first_failure"]["verdict"] == "WA", results["wa"]


def test_full_mode_runs_every_test(http, sum_problem):
    body = {
        "submissions": subs_of({"w": "a,b=map(int,input().split());print(3 if a<5 else 0)"}),
        "mode": "full",
    }
    (result,) = http.post("/judge", json=body).json()["results"]
    assert [t["verdict"] for t in result["tests"]] == ["AC", "WA", "WA"]


def test_a_batch_may_run_each_submissions_tests_in_one_process(stack, sum_problem):
    # isolation "submission" (docs/spec.md 4.8) through the client, sync and queued: the same verdicts
    subs = subs_of({"ok": SUM, "w": "a,b=map(int,input().split());print(3 if a<5 else 0)"})
    with JudgeClient(stack.url) as client:
        shared = client.judge(subs, mode="full", isolation="submission")
        alone = client.judge(subs, mode="full", isolation="test")
        queued = client.wait(client.submit(subs, mode="full", isolation="submission"), timeout_s=60)
    verdicts = [[[t.verdict for t in r.tests] for r in rs] for rs in (shared, alone, queued)]
    assert verdicts[0] == verdicts[1] == verdicts[2] == [["AC"] * 3, ["AC", "WA", "WA"]]


def test_async_batch_survives_an_api_restart(http, stack, sum_problem):
    codes = {f"s{i}": SLEEPY.format(s=0.3, tag=f"restart{i}") for i in range(4)}
    r = http.post("/submissions", json={"submissions": subs_of(codes)})
    assert r.status_code == 202
    batch_id = r.json()["batch_id"]
    stack.stop_api(signal.SIGKILL)
    stack.start_api()
    state = http.get(f"/submissions/{batch_id}", params={"wait_s": 60}).json()
    assert state["status"] == "done" and state["submissions"] == 4
    assert [(x["id"], x["outcome"]) for x in state["results"]] == [(i, "correct") for i in codes]
    assert http.get("/submissions/no-such-batch").status_code == 404


def test_64_copies_are_judged_once(http, sum_problem):
    judged = metric(http, "frontier_judge_judged_total")
    accepted = metric(http, "frontier_judge_submissions_total")
    distinct = metric(http, "frontier_judge_distinct_submissions_total")
    code = SUM + "# the GRPO group's favourite\n"
    subs = [{"id": f"copy{i}", "problem_id": "sum", "code": code} for i in range(64)]
    results = http.post("/judge", json={"submissions": subs}).json()["results"]
    assert [x["id"] for x in results] == [s["id"] for s in subs]
    assert {x["outcome"] for x in results} == {"correct"}
    assert metric(http, "frontier_judge_judged_total") == judged + 1
    assert metric(http, "frontier_judge_submissions_total") == accepted + 64
    assert metric(http, "frontier_judge_distinct_submissions_total") == distinct + 1


def test_each_submission_is_answered_under_its_own_id_end_to_end(http, sum_problem):
    # a unit is judged under its first submission's id; a copy is answered with it under its own
    subs = [
        {"id": 'é"1', "problem_id": "sum", "code": SUM + "# ids\n"},
        {"id": "wrong", "problem_id": "sum", "code": "print(3)  # ids"},
        {"id": "copy ✓", "problem_id": "sum", "code": SUM + "# ids\n"},
        {"id": "", "problem_id": "sum", "code": "print(3)  # ids"},
    ]
    want = [
        ('é"1', "correct"),
        ("wrong", "correctness_failure"),
        ("copy ✓", "correct"),
        ("", "correctness_failure"),
    ]
    results = http.post("/judge", json={"submissions": subs, "mode": "full"}).json()["results"]
    assert [(x["id"], x["outcome"]) for x in results] == want
    assert results[0] | {"id": ""} == results[2] | {"id": ""}  # the copy's result is its twin's
    batch_id = http.post("/submissions", json={"submissions": subs, "mode": "full"}).json()["batch_id"]
    state = http.get(f"/submissions/{batch_id}", params={"wait_s": 60}).json()
    assert [(x["id"], x["outcome"]) for x in state["results"]] == want


def test_50_concurrent_clients_get_their_own_results(stack, sum_problem):
    async def one(k: int):
        async with AsyncJudgeClient(stack.url, timeout_s=120) as client:
            subs = [
                {"id": f"c{k}-{j}", "problem_id": "sum", "code": SUM if (k + j) % 2 else "print(-1)"}
                for j in range(4)
            ]
            return k, await client.judge(subs)

    async def main():
        return await asyncio.gather(*(one(k) for k in range(50)))

    for k, results in asyncio.run(main()):
        assert [r.id for r in results] == [f"c{k}-{j}" for j in range(4)]
        want = ["correct" if (k + j) % 2 else "correctness_failure" for j in range(4)]
        assert [r.outcome for r in results] == want


def test_sigkilled_worker_job_is_redone_and_answered_once(http, stack, sum_problem):
    conn = redis.Redis.from_url(stack.env["FRONTIER_REDIS_URL"])
    prefix = stack.env["FRONTIER_REDIS_PREFIX"]
    codes = {f"k{i}": SLEEPY.format(s=0.6, tag=f"kill{i}") for i in range(6)}
    batch_id = http.post("/submissions", json={"submissions": subs_of(codes)}).json()["batch_id"]
    pid = _busy_worker_pid(conn, "judge")
    victim = next(w for w in stack.workers if w.pid == pid and w.poll() is None)
    victim.kill()
    victim.wait()
    state = http.get(f"/submissions/{batch_id}", params={"wait_s": 60}).json()
    assert state["status"] == "done", state
    assert [(x["id"], x["status"], x["outcome"]) for x in state["results"]] == [
        (i, "ok", "correct") for i in codes
    ]
    assert conn.hlen(f"{prefix}:b:{batch_id}:res") == 6
    # bring the deployment back to two live workers for the tests after this one
    stack.workers.remove(victim)
    stack.start_worker(name="w-replacement")
    stack.wait_workers(2)


def test_client_batches_and_keeps_order(stack, sum_problem):
    with JudgeClient(stack.url, batch_size=3, max_parallel=3) as client:
        subs = [{"id": f"b{i}", "problem_id": "sum", "code": SUM if i % 3 else "print(0)"} for i in range(10)]
        results = client.judge(subs)
        assert [r.id for r in results] == [s["id"] for s in subs]
        assert [r.outcome for r in results] == [
            "correct" if i % 3 else "correctness_failure" for i in range(10)
        ]
        batch_id = client.submit(subs[:2])
        assert [r.id for r in client.wait(batch_id, timeout_s=60)] == ["b0", "b1"]
        assert client.healthz()["redis"] == "ok"


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        (
            {"submissions": [{"id": "a", "problem_id": "sum", "language": "php", "code": "x"}]},
            "unsupported language 'php'",
        ),
        ({"submissions": [{"id": "a", "problem_id": "sum"}]}, "exactly one of 'code' and 'completion'"),
        ({"submissions": [{"id": "a", "problem_id": "sum", "code": "x"}], "mode": "fast"}, "mode"),
        ({"submissions": [{"id": "a", "problem_id": "sum", "code": "x"}], "ks": [0]}, "ks.0"),
        ({"subs": []}, "submissions: Field required"),
        ({"submissions": [], "isolation": "thread"}, "isolation"),
    ],
)
def test_bad_batches_get_422_with_a_message(http, sum_problem, body, needle):
    for endpoint in ("/judge", "/submissions"):
        r = http.post(endpoint, json=body)
        assert r.status_code == 422, r.text
        assert needle in r.json()["detail"]


def test_malformed_json_is_422(http):
    r = http.post("/judge", content=b'{"submissions": [', headers={"content-type": "application/json"})
    assert r.status_code == 422 and r.json()["detail"].startswith("malformed JSON")


def test_healthz_metrics_and_docs(http, stack):
    health = http.get("/healthz").json()
    assert health["status"] == "ok" and health["workers"] >= 2 and health["host"] == "ok"
    text = http.get("/metrics").text
    for name in (
        "frontier_judge_oversubscribed 0.0",
        "frontier_judge_starved_runs_total 0.0",
        "frontier_judge_queue_depth",
        "frontier_judge_queue_jobs",
        "frontier_judge_tests_per_second",
        'frontier_judge_verdicts_total{verdict="AC"}',
        'frontier_judge_outcomes_total{outcome="correct"}',
        "frontier_judge_batch_seconds_bucket",
        "frontier_judge_http_request_seconds_bucket",
        "frontier_judge_redis_up 1.0",
    ):
        assert name in text, name
    assert http.get("/docs").status_code == 200
    openapi = http.get("/openapi.json").json()
    assert {"/problems/{problem_id}", "/judge", "/submissions", "/submissions/{batch_id}"} <= set(
        openapi["paths"]
    )
    assert {"ProblemUpload", "JudgeRequest", "JudgeResult"} <= set(openapi["components"]["schemas"])


# -- limits: 413 and 429 ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def small_api(stack, redis_url, tmp_path_factory):
    """A second API on the same Redis and workers: a 1 MB body limit, a queue of 6, POST /judge waits 1 s."""
    with judge_stack(
        tmp_path_factory.mktemp("small"),
        "stack",  # the main stack's queue and key prefix
        redis_url=redis_url,
        workers=0,
        judge_queue="judge",
        max_body_mb=1,
        max_queue_depth=6,
        judge_wait_s=1,
    ) as s:
        yield s


def test_body_over_the_limit_is_413(small_api, sum_problem):
    big = {"submissions": [{"id": "a", "problem_id": "sum", "code": "#" * (2 << 20)}]}
    r = httpx.post(small_api.url + "/judge", json=big, timeout=30)
    assert r.status_code == 413 and "1 MB" in r.json()["detail"]
    # a chunked body without Content-Length is counted as it streams in
    r = httpx.post(
        small_api.url + "/judge",
        content=iter([b"x" * (1 << 19)] * 4),
        headers={"content-type": "application/json"},
    )
    assert r.status_code == 413
    r = httpx.post(
        small_api.url + "/judge", json={"submissions": subs_of({f"d{i}": f"print({i})" for i in range(7)})}
    )
    assert r.status_code == 413 and "split the batch" in r.json()["detail"]


def test_queue_past_capacity_is_429_with_retry_after_and_client_waits(small_api, sum_problem):
    url = small_api.url
    for attempt in range(5):
        fill = subs_of({f"f{i}": SLEEPY.format(s=3, tag=f"fill{attempt}-{i}") for i in range(5)})
        batch_id = httpx.post(url + "/submissions", json={"submissions": fill}).json()["batch_id"]
        extra = subs_of({"x": f"print(1)  # {attempt}", "y": f"print(2)  # {attempt}"})
        r = httpx.post(url + "/submissions", json={"submissions": extra})
        if r.status_code == 429:
            break
        # accepted: right only if part of the fill was judged before it came (a loaded host can take
        # that long between two requests); with none of it judged the queue was full, and 202 is wrong
        fill_state = httpx.get(f"{url}/submissions/{batch_id}").json()
        assert fill_state["status"] != "queued", (r.status_code, r.text, fill_state)
        for done in (batch_id, r.json()["batch_id"]):
            httpx.get(f"{url}/submissions/{done}", params={"wait_s": 60}, timeout=90)
    else:
        pytest.fail("the fill was judged in part before every second request of 5 attempts")
    assert r.status_code == 429, r.text
    assert int(r.headers["retry-after"]) >= 1 and "queue is full" in r.json()["detail"]
    # the client honours Retry-After and gets through once the queue drains
    with JudgeClient(url) as client:
        results = client.judge(subs_of({"x": SUM, "y": "print(2)"}))
    assert [r.outcome for r in results] == ["correct", "correctness_failure"]
    state = httpx.get(f"{url}/submissions/{batch_id}", params={"wait_s": 60}, timeout=90).json()
    assert state["status"] == "done"


def test_batch_outliving_the_wait_is_504_with_its_id_and_the_client_follows_it(small_api, sum_problem):
    slow = subs_of({"slow": SLEEPY.format(s=1.5, tag="outlive")})
    r = httpx.post(small_api.url + "/judge", json={"submissions": slow}, timeout=30)
    assert r.status_code == 504 and r.json()["batch_id"] in r.json()["detail"]
    with JudgeClient(small_api.url) as client:
        (result,) = client.judge(subs_of({"slow2": SLEEPY.format(s=1.5, tag="outlive2")}))
    assert (result.id, result.outcome) == ("slow2", "correct")


# -- judge-side failures ----------------------------------------------------------------------------
def _busy_worker_pid(conn: redis.Redis, queue: str, timeout_s: float = 20) -> int | None:
    """The pid of a worker process that holds a job of `queue` (worker names are host.pid.loop.generation)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        for key in conn.smembers(f"rq:workers:{queue}"):
            if conn.hget(key, "current_job"):
                return int(key.decode().split(".")[-3])
        time.sleep(0.02)
    return None


def _first_input_hash(conn: redis.Redis, prefix: str, problem_id: str) -> str:
    """A stored problem's first test's input hash, read from Redis (no answer of the API shows it)."""
    definition = json.loads(conn.get(f"{prefix}:pdef:{conn.hget(f'{prefix}:problems', problem_id).decode()}"))
    return definition["tests"][0]["input_sha256"]


def test_judge_side_failures_are_judge_error_never_a_verdict(redis_url, tmp_path):
    """An unreadable cached test, a test blob gone from Redis, and a worker lost with no retries left:
    each is judge_error with rewards null, never a verdict."""
    prefix = f"jerr{os.getpid()}"
    s = judge_stack(
        tmp_path,
        redis_url=redis_url,
        workers=0,
        redis_prefix=prefix,
        judge_queue="judge-errors",
        job_retries=0,
    )
    conn = redis.Redis.from_url(redis_url)
    try:
        worker = s.start_worker()
        s.wait_workers(1)
        with httpx.Client(base_url=s.url, timeout=60) as http:
            assert http.put("/problems/sum", json=problem_json(SUM_TESTS)).json()["created"]
            broken = _first_input_hash(conn, prefix, "sum")
            # the worker's cache entry for one test is there but cannot be read as a file
            (worker.state_dir / "tests" / broken[:2] / broken).mkdir(parents=True)
            http.put("/problems/other", json=problem_json([("1", "lost\n", "x\n")], time_limit_ms=3000))
            lost = _first_input_hash(conn, prefix, "other")
            conn.delete(f"{prefix}:blob:{lost}")
            subs = [*subs_of({"a": SUM, "b": "print(1)"}), *subs_of({"c": "print(1)"}, "other")]
            results = http.post("/judge", json={"submissions": subs}).json()["results"]
            for r in results:
                assert r["status"] == "judge_error", r
                assert r["rewards"] is None and r["outcome"] is None and r["first_failure"] is None
            assert "unreadable" in results[0]["message"] and "not in Redis" in results[2]["message"]

            # a depth counter left high with nothing queued (an API killed mid-admission) heals itself
            conn.set(f"{prefix}:queued", 999)
            s.wait_for(lambda: http.get("/healthz").json()["queue_depth"] == 0, "the depth counter reset", 10)

            # the worker dies holding the job and FRONTIER_JOB_RETRIES=0: the lost job is judge_error
            # (inputs unlike the broken cache entry above)
            http.put("/problems/other", json=problem_json([("1", "2 3\n", "5\n")], time_limit_ms=3000))
            batch_id = http.post(
                "/submissions",
                json={"submissions": subs_of({"slow": SLEEPY.format(s=5, tag="lost")}, "other")},
            ).json()["batch_id"]
            assert _busy_worker_pid(conn, "judge-errors") == worker.pid
            worker.kill()
            worker.wait()
            state = http.get(f"/submissions/{batch_id}", params={"wait_s": 30}).json()
        assert state["status"] == "done", state
        (lost_result,) = state["results"]
        assert lost_result["status"] == "judge_error" and lost_result["rewards"] is None
        assert "after 1 attempt" in lost_result["message"]
    finally:
        s.close()


# -- Redis outages ----------------------------------------------------------------------------------
class ThrowawayRedis:
    def __init__(self, tmp: Path):
        self.port = free_port()
        self.tmp = tmp
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ],
            cwd=self.tmp,
            stdout=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                if redis.Redis(port=self.port).ping():
                    return
            except redis.ConnectionError:
                time.sleep(0.05)
        raise AssertionError("throwaway redis-server did not start")

    def stop(self) -> None:
        _stop(self.proc, signal.SIGKILL)


def test_redis_outage_is_a_clear_503_and_the_judge_recovers(tmp_path):
    rds = ThrowawayRedis(tmp_path)
    rds.start()
    s = judge_stack(tmp_path, redis_url=f"redis://127.0.0.1:{rds.port}/0", workers=0)
    try:
        s.start_worker()
        s.wait_workers(1)
        with httpx.Client(base_url=s.url, timeout=30) as http:
            assert http.put("/problems/sum", json=problem_json(SUM_TESTS)).status_code == 201
            assert (
                http.post("/judge", json={"submissions": subs_of({"a": SUM})}).json()["results"][0]["outcome"]
                == "correct"
            )

            # Redis dies while a batch is being waited for: 503, not a hang and not a partial answer
            async def waiting_request():
                async with httpx.AsyncClient(base_url=s.url, timeout=30) as ac:
                    pending = asyncio.ensure_future(
                        ac.post(
                            "/judge",
                            json={"submissions": subs_of({"slow": SLEEPY.format(s=3, tag="outage")})},
                        )
                    )
                    await asyncio.sleep(0.8)
                    rds.stop()
                    return await pending

            start = time.monotonic()
            r = asyncio.run(waiting_request())
            assert r.status_code == 503 and "Redis" in r.json()["detail"], r.text
            assert time.monotonic() - start < 8
            for call in (
                lambda: http.get("/healthz"),
                lambda: http.post("/judge", json={"submissions": subs_of({"a": SUM})}),
                lambda: http.put("/problems/sum", json=problem_json(SUM_TESTS)),
            ):
                t0 = time.monotonic()
                r = call()
                assert r.status_code == 503 and "unavailable" in r.json()["detail"], r.text
                assert r.headers["retry-after"] and time.monotonic() - t0 < 5

            rds.start()  # an empty Redis (no persistence): upload again, and the same worker judges
            s.wait_workers(1)
            assert http.put("/problems/sum", json=problem_json(SUM_TESTS)).status_code == 201
            r = http.post("/judge", json={"submissions": subs_of({"a": SUM, "b": "print(0)"})})
            assert [x["outcome"] for x in r.json()["results"]] == ["correct", "correctness_failure"]
            assert s.workers[0].poll() is None
    finally:
        s.close()
        rds.stop()
