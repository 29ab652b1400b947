"""Ids validated before they name a key (docs/spec.md section 7, issue 28 item 7): every route of every
service's API, given a hostile id in its path, answers 404 or 422 with a message, never 500 or 503,
and touches no key. Hostile ids are planted as the names of real keys of another type (a batch's
result hash under `<batch id>:res`, an RQ job's dependents set under `<job id>:dependents`), the case
that answered 500 before."""

from __future__ import annotations

import uuid

import pytest
import redis
from fastapi.testclient import TestClient

from services import ids
from services.settings import Settings
from tests.support.redis import MAIN_REDIS, claim_redis_db

PREFIX = "idtest"
BATCH = uuid.uuid4().hex
TOKEN = uuid.uuid4().hex
JOB = str(uuid.uuid4())

HOSTILE = [
    f"{BATCH}:res",
    f"{BATCH}:done",
    f"{TOKEN}:res",
    f"{JOB}:dependents",
    f"{JOB.replace('-', '')}:dependents",
    "..%2F..%2F..%2Fetc%2Fpasswd",
    "*",
    "%00",
    "%E2%80%AEfdp",
    "%20",
    "s" + "f" * 5000,
    BATCH.upper(),
    "sessions:all",
]
# bodies that pass validation, so that each handler runs and meets the id
BODIES = {
    "/sessions/{sid}/exec": {"code": "print(1)"},
    "/sessions/{sid}/submit": {"code": "print(1)"},
    "/problems/{problem_id}": {"time_limit_ms": 1000, "memory_limit_mb": 64, "tests": [{"name": "a"}]},
}


@pytest.fixture(scope="module")
def redis_url():
    yield from claim_redis_db(range(15, 7, -1), *MAIN_REDIS)


@pytest.fixture(scope="module")
def apps(redis_url, tmp_path_factory):
    from services.evaluator.api import create_app as evaluator_app
    from services.judge.api import create_app as judge_app
    from services.merger.api import create_app as merger_app
    from services.reward.api import create_app as reward_app

    settings = Settings(
        state_dir=tmp_path_factory.mktemp("ids"),
        redis_url=redis_url,
        redis_prefix=PREFIX,
        judge0_submission_delete=True,
        data_roots=str(tmp_path_factory.mktemp("data")),
    )
    made = {
        "judge": judge_app(settings),
        "evaluator": evaluator_app(settings),
        "merger": merger_app(settings=settings),
        "reward": reward_app(settings),
    }
    # one client each, open for the module: the judge's async Redis stays on one event loop
    clients = {name: TestClient(app, raise_server_exceptions=False) for name, app in made.items()}
    for client in clients.values():
        client.__enter__()
    yield clients
    for client in clients.values():
        client.__exit__(None, None, None)


@pytest.fixture(scope="module")
def planted(redis_url):
    """Keys of every layout under the ids the hostile ones extend, as a busy judge would hold them."""
    conn = redis.Redis.from_url(redis_url)
    conn.hset(f"{PREFIX}:b:{BATCH}:res", "0", '{"problem_id": "p"}')
    conn.rpush(f"{PREFIX}:b:{BATCH}:done", "1")
    conn.set(f"{PREFIX}:b:{BATCH}:subs", "[]")
    conn.set(f"{PREFIX}:run:{TOKEN}:res", "{}")
    conn.rpush(f"{PREFIX}:run:{TOKEN}:done", "1")
    conn.sadd(f"rq:job:{JOB}:dependents", "x")
    conn.sadd(f"rq:job:{JOB.replace('-', '')}:dependents", "x")
    conn.sadd(f"{PREFIX}:sess:all", "x")
    before = {k: conn.type(k) for k in conn.scan_iter("*")}
    yield conn
    assert {k: conn.type(k) for k in conn.scan_iter("*") if k in before} == before  # nothing touched


def _routes_with_ids(app) -> list[tuple[str, str]]:
    """Every (method, path) whose path takes a parameter, from the app's OpenAPI (every route is in it)."""
    paths = app.openapi()["paths"]
    return [
        (method.upper(), path) for path, ops in sorted(paths.items()) if "{" in path for method in sorted(ops)
    ]


def _url(path: str, value: str) -> str:
    """Every id in the path is `value`; a session file's path is a plain name."""
    head, *rest = path.split("{")
    for part in rest:
        name, tail = part.split("}", 1)
        head += ("a.txt" if name == "path" else value) + tail
    return head


@pytest.mark.parametrize("service", ["judge", "evaluator", "merger", "reward"])
def test_every_route_answers_a_hostile_id_with_404_or_422(apps, planted, service):
    client = apps[service]
    routes = _routes_with_ids(client.app)
    if service == "reward":
        assert routes == []  # its only ids are problem ids in the body, checked by the judge
    else:
        assert routes, f"{service}: no route takes an id"
    for method, path in routes:
        for value in HOSTILE:
            r = client.request(method, _url(path, value), json=BODIES.get(path, {}))
            assert r.status_code in (404, 422), (method, path, value, r.status_code, r.text[:300])
            assert isinstance(r.json().get("detail"), str) or "errors" in r.json(), r.text[:300]


def test_an_unknown_id_of_the_right_shape_is_404(apps, planted):
    judge = apps["judge"]
    assert judge.get(f"/submissions/{uuid.uuid4().hex}").status_code == 404
    assert judge.get(f"/judge0/submissions/{uuid.uuid4().hex}").status_code == 404
    assert judge.get("/sessions/s18c0ffee0123456789ab").status_code == 404
    assert judge.get("/problems/no-such-problem").status_code == 404
    for service, path in (("evaluator", "/eval"), ("evaluator", "/sweep"), ("merger", "/merge")):
        client = apps[service]
        assert client.get(f"{path}/{uuid.uuid4()}").status_code == 404, (service, path)


def test_judge0_batch_tokens_are_checked_one_by_one(apps, planted):
    judge = apps["judge"]
    # as Judge0 answers an unknown token: null in its place
    r = judge.get("/judge0/submissions/batch", params={"tokens": f"{uuid.uuid4().hex},{TOKEN}:res"})
    assert r.status_code == 200 and r.json() == {"submissions": [None, None]}


@pytest.mark.parametrize(
    "pattern, good, bad",
    [
        (ids.HEX_ID, [uuid.uuid4().hex], ["", BATCH + ":res", BATCH.upper(), BATCH[:-1], BATCH + "\n"]),
        (ids.JOB_ID, [str(uuid.uuid4()), uuid.uuid4().hex], [JOB + ":dependents", "../x", JOB + "\n"]),
        (ids.SESSION_ID, ["s18c0ffee0123456789ab"], ["s", "x18c0", "s18c:x", "s" + "f" * 41]),
    ],
    ids=["hex", "job", "session"],
)
def test_id_shapes(pattern, good, bad):
    assert all(ids.matches(pattern, v) for v in good)
    assert not any(ids.matches(pattern, v) for v in bad)
