"""JudgeOptions (issue 24): one options model from the request through the queue's job payload to the
engine, and what both clients send. Table tests of the model (defaults, refusals), then the wire: the
request JSON of docs/spec.md 6.3 as ever, a 422 at the API for each refusal, and a batch's options and
ids as the sync and the async client send them, read back from the job the API queued (a real API
process in a thread, a real Redis)."""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
import uuid

import pytest
import redis
from rq.job import Job
from rq.serializers import JSONSerializer

from services.judge.api.models import JudgeRequest
from services.judge.client import AsyncJudgeClient, JudgeClient, JudgeClientError
from services.judge.core.feedback import STYLES, Template
from services.judge.core.models import JudgeResult
from services.judge.core.options import JudgeOptions
from services.judge.queue.batches import JobPayload, Keys, Unit, job_datas, judge_queue
from services.settings import Settings
from tests.support.redis import claim_redis_db

MAIN_REDIS = ("127.0.0.1", 6379)


# -- the model --------------------------------------------------------------------------------------
def test_the_defaults_are_the_judges():
    o = JudgeOptions()
    assert (o.mode, o.ks, o.feedback, o.feedback_template, o.isolation) == (
        "first_failure",
        None,
        False,
        None,
        None,
    )
    assert o.fields() == {"mode": "first_failure"}  # only what differs is sent, and the mode always


GOOD = [
    ({"mode": "full"}, {"mode": "full"}),
    ({"ks": [1, 18]}, {"mode": "first_failure", "ks": [1, 18]}),
    (
        {"feedback": True, "feedback_template": "stats"},
        {"mode": "first_failure", "feedback": True, "feedback_template": "stats"},
    ),
    ({"feedback_template": {"style": "stats", "max_chars": 300}}, None),
    ({"isolation": "submission"}, {"mode": "first_failure", "isolation": "submission"}),
    ({"isolation": "test"}, {"mode": "first_failure", "isolation": "test"}),
]


@pytest.mark.parametrize(("given", "fields"), GOOD)
def test_valid_options_are_kept_as_given(given, fields):
    o = JudgeOptions(**given)
    for name, value in given.items():
        assert getattr(o, name) == value
    if fields is not None:
        assert o.fields() == fields
    assert JudgeOptions.model_validate(o.fields()) == o  # what a client sends reads back the same


BAD = [
    ({"mode": "fast"}, "mode"),
    ({"ks": [0]}, "ks"),
    ({"ks": [19]}, "ks"),
    ({"ks": "1,2"}, "ks"),
    ({"feedback": "perhaps"}, "feedback"),
    ({"feedback_template": "no-such-style"}, "unknown feedback style"),
    ({"feedback_template": {"max_chars": 1}}, "max_chars must be an integer"),
    ({"feedback_template": {"nonsense": "x"}}, "unknown key 'nonsense'"),
    ({"isolation": "process"}, "isolation"),
    ({"timeout_ms": 5}, "timeout_ms"),  # a request's field, not an option
]


@pytest.mark.parametrize(("given", "named"), BAD)
def test_invalid_options_are_refused_naming_what_is_wrong(given, named):
    with pytest.raises(ValueError, match=named):
        JudgeOptions(**given)


def test_given_lays_a_calls_named_options_over_its_options():
    base = JudgeOptions(mode="full", isolation="test")
    assert JudgeOptions.given(base, {}) is base
    assert JudgeOptions.given(None, {}) == JudgeOptions()
    over = JudgeOptions.given(base, {"feedback": True, "isolation": "submission"})
    assert (over.mode, over.feedback, over.isolation) == ("full", True, "submission")
    assert base.isolation == "test"  # the model is frozen: `given` made a new one
    # a mode name alone, as Engine.judge and the clients took it before
    assert JudgeOptions.given("full", {"ks": [2]}) == JudgeOptions(mode="full", ks=[2])
    with pytest.raises(ValueError, match="isolation"):
        JudgeOptions.given(base, {"isolation": "nope"})
    with pytest.raises(ValueError, match="extra"):
        JudgeOptions.given(None, {"feedbak": True})


def test_the_template_is_the_requests_over_the_setting():
    default = JudgeOptions(feedback=True).template(Settings(feedback_template="stats"))
    assert default.parts == STYLES["stats"]
    mine = JudgeOptions(feedback=True, feedback_template={"max_chars": 300}).template(
        Settings(feedback_template="stats")
    )
    assert (mine.parts, mine.max_chars) == (STYLES["stats"], 300)
    # a setting that does not parse is the RLEF default, not an error of the request
    broken = JudgeOptions(feedback=True).template(Settings(feedback_template="{not json"))
    assert broken == Template()


# -- the request ------------------------------------------------------------------------------------
SPEC_REQUEST = {  # docs/spec.md 6.3's example, as clients have always sent it
    "submissions": [
        {"id": "r1", "problem_id": "p1", "language": "python", "code": "print(3)"},
        {"id": "r2", "problem_id": "p1", "completion": "Here:\n```python\nprint(3)\n```"},
    ],
    "mode": "first_failure",
    "ks": [1, 2, 3],
    "feedback": True,
    "isolation": "test",
}


def test_the_request_json_is_as_ever_and_carries_its_options():
    body = JudgeRequest.model_validate({**SPEC_REQUEST, "timeout_ms": 1000})
    assert body.options == JudgeOptions(mode="first_failure", ks=[1, 2, 3], feedback=True, isolation="test")
    assert [s.id for s in body.submissions] == ["r1", "r2"]
    assert JudgeRequest.model_validate({"submissions": []}).options == JudgeOptions()
    assert set(JudgeRequest.model_fields) == {*JudgeOptions.model_fields, "submissions", "timeout_ms"}


# -- the wire: API, queue, clients ------------------------------------------------------------------
@pytest.fixture(scope="module")
def api(tmp_path_factory):
    """The judge's API (create_app) served by uvicorn in a thread, on a Redis database of its own; no
    worker, so a batch's jobs stay queued where a test can read them."""
    import uvicorn

    from services.judge.api import create_app
    from services.stack import free_port

    for url in claim_redis_db(range(8, 16), *MAIN_REDIS):
        tag = f"opt{os.getpid()}"
        settings = Settings(
            redis_url=url,
            redis_prefix=tag,
            judge_queue=f"judge-{tag}",
            state_dir=tmp_path_factory.mktemp("options"),
            api_token=None,
        )
        port = free_port()
        server = uvicorn.Server(
            uvicorn.Config(
                create_app(settings), host="127.0.0.1", port=port, log_level="warning", lifespan="off"
            )
        )
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        for _ in range(1000):  # no clock: a bounded number of looks, each a short sleep
            if server.started:
                break
            time.sleep(0.05)
        assert server.started, "the API did not start"
        conn = redis.Redis.from_url(url)
        conn.hset(f"{tag}:problems", mapping={"p1": "d" * 64})  # a known problem (its definition unread)
        yield f"http://127.0.0.1:{port}", settings, conn
        server.should_exit = True
        thread.join(30)


def _queued(conn: redis.Redis, batch_id: str) -> list[JobPayload]:
    """The job payloads the API queued for a batch (in its client's fair queue or on the RQ queue)."""
    found = []
    for key in conn.scan_iter("rq:job:*"):
        job = Job.fetch(key.decode().removeprefix("rq:job:"), connection=conn, serializer=JSONSerializer)
        if job.func_name == "services.judge.worker.judge.judge_job" and job.args[0]["batch"] == batch_id:
            found.append(JobPayload.model_validate(job.args[0]))
    return found


@pytest.mark.parametrize(("given", "named"), [b for b in BAD if b[0] != {"timeout_ms": 5}])
def test_each_refused_option_is_a_422_at_the_api(api, given, named):
    import httpx

    url, _, _ = api
    r = httpx.post(f"{url}/judge", json={"submissions": [], **given}, timeout=60)
    assert r.status_code == 422, r.text
    assert named.split()[0] in r.text


def test_an_empty_batch_with_options_is_answered_at_once(api):
    url, _, _ = api
    with JudgeClient(url, timeout_s=60) as client:
        assert client.judge([], JudgeOptions(mode="full", feedback=True, isolation="submission")) == []


OPTIONS = JudgeOptions(
    mode="full", ks=[1, 3], feedback=True, feedback_template={"style": "stats"}, isolation="submission"
)
SUBS = [
    {"id": 'é"1', "problem_id": "p1", "code": "print(1)"},
    {"id": "two", "problem_id": "p1", "code": "print(2)"},
    {"id": "again", "problem_id": "p1", "code": "print(1)"},  # the first's program: one unit
]


def test_both_clients_send_the_same_options_which_reach_the_job_with_the_ids(api):
    url, _, conn = api
    with JudgeClient(url, timeout_s=60) as client:
        sync_batch = client.submit(SUBS, OPTIONS)
        named_batch = client.submit(SUBS, **OPTIONS.model_dump())  # the same options, by name

    async def submit_async():
        async with AsyncJudgeClient(url, timeout_s=60) as client:
            return await client.submit(SUBS, OPTIONS)

    async_batch = asyncio.run(submit_async())
    for batch_id in (sync_batch, named_batch, async_batch):
        jobs = _queued(conn, batch_id)
        assert jobs and all(JudgeOptions.of(job) == OPTIONS for job in jobs)
        # a unit carries the id of the batch's first submission of its program
        units = sorted((u.u, u.id, u.code) for job in jobs for u in job.units)
        assert units == [(0, 'é"1', "print(1)"), (1, "two", "print(2)")]


def test_a_client_refuses_bad_options_before_sending(api):
    url, _, _ = api
    with JudgeClient(url, timeout_s=60) as client, pytest.raises(JudgeClientError, match="isolation") as err:
        client.submit(SUBS, isolation="process")
    assert err.value.status_code == 422  # as the judge would have answered


def test_the_job_payload_round_trips_and_reads_the_flat_layout_of_earlier_jobs(api):
    _, settings, conn = api
    units = [Unit(u=0, id="r1", problem_id="p1", problem="d" * 64, language="python", code="print(1)")]
    (data,) = job_datas(judge_queue(conn, settings), settings, "b" * 32, OPTIONS, [units], client="me")
    payload = JobPayload.model_validate(data.args[0])
    assert JudgeOptions.of(payload) == OPTIONS
    assert (payload.batch, payload.client, payload.units) == ("b" * 32, "me", units)
    # the options sit at the top level of the payload, as its fields always did
    flat = {
        "batch": "b" * 32,
        "mode": "full",
        "ks": [1, 3],
        "units": [units[0].model_dump()],
        "feedback": True,
        "feedback_template": {"style": "stats"},
        "isolation": "submission",
        "answer_by_s": None,
        "cancellable": False,
        "client": "me",
    }
    assert data.args[0] == flat


def test_results_are_read_under_each_submissions_id_and_those_stored_without_one_too(api):
    # a unit's result as a worker records it (its first submission's id), and one recorded by a worker
    # of an earlier version (no id): each answered, in request order, under its submission's own id
    import httpx

    url, settings, conn = api
    keys = Keys(settings.redis_prefix)
    batch_id = uuid.uuid4().hex
    conn.hset(keys.batch(batch_id), mapping={"n_subs": 4, "n_units": 2, "mode": "full", "ks": "null"})
    rows = [['é"1', "p1", 0], ["two", "p1", 1], ["again", "p1", 0], ["twice", "p1", 1]]
    conn.set(keys.subs(batch_id), json.dumps(rows))
    recorded = JudgeResult(id='é"1', problem_id="p1", status="ok", message="unit 0")
    earlier = JudgeResult(id="", problem_id="p1", status="judge_error", message="unit 1")
    conn.hset(
        keys.results(batch_id),
        mapping={"0": recorded.model_dump_json(), "1": earlier.model_dump_json(exclude={"id"})},
    )
    state = httpx.get(f"{url}/submissions/{batch_id}", timeout=60).json()
    got = [JudgeResult.model_validate(r) for r in state["results"]]
    assert [(r.id, r.message) for r in got] == [
        ('é"1', "unit 0"),
        ("two", "unit 1"),
        ("again", "unit 0"),
        ("twice", "unit 1"),
    ]
    assert got[2] == recorded.model_copy(update={"id": "again"})
