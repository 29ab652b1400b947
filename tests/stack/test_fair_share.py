"""Fair shares between clients (docs/spec.md 6.8, issue 23): per-client queues taken in weighted turns,
a queue-depth limit per client. The turn order is checked on a real Redis through the pump itself,
then end to end with two trainers sending verl-style /run_code requests (reproduced with httpx) through
their own URL tokens to a one-slot judge. Fairness is asserted by counts and order, never by time."""

from __future__ import annotations

import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
import redis
from rq import Queue
from rq.job import Job

from services.judge.queue import deadlines, fair, runs
from services.settings import Settings
from tests.support.redis import MAIN_REDIS, claim_redis_db
from tests.support.stack import judge_stack

TOKEN_A = "big-trainer-token-000000000000"
TOKEN_B = "small-trainer-token-11111111111"
TOKEN_H = "holder-token-2222222222222222"
SPIN = "while True:\n    pass\n"


# -- the turn order, on Redis -------------------------------------------------------------------------
@pytest.fixture
def fair_redis():
    for url in claim_redis_db(range(8, 16), *MAIN_REDIS):
        yield redis.Redis.from_url(url)


def _settings(**kw) -> Settings:
    return Settings(redis_prefix=f"fq{uuid.uuid4().hex[:6]}", judge_queue=f"fq-{uuid.uuid4().hex[:6]}", **kw)


def _enqueue(conn, settings, client: str, n: int, cost: int = 1) -> list[str]:
    queue = fair.fair_queue(conn, settings, client)
    datas = [
        queue.prepare_data("builtins.print", args=(client, i), job_id=f"{client}-{i}", result_ttl=0)
        for i in range(n)
    ]
    with conn.pipeline(transaction=True) as pipe:
        fair.enqueue(conn, settings, pipe, client, datas, [cost] * n)
        pipe.execute()
    return [d.job_id for d in datas]


def _taken(conn, settings, n: int) -> list[str]:
    """The clients of the next `n` jobs a worker would take (pump, pop, pump, ...)."""
    key = Queue(settings.judge_queue, connection=conn).key
    order = []
    for _ in range(n):
        fair.pump(conn, settings)
        job_id = conn.lpop(key)
        if job_id is None:
            break
        order.append(job_id.decode().rsplit("-", 1)[0])
    return order


def test_two_clients_of_equal_weight_take_turns_whoever_came_first(fair_redis):
    settings = _settings()
    _enqueue(fair_redis, settings, "big", 20)
    _enqueue(fair_redis, settings, "small", 3)
    order = _taken(fair_redis, settings, 23)
    # the small client's three jobs are among the first seven, not behind the twenty
    assert order[:7].count("small") == 3
    assert order.count("big") == 20  # nobody's work is dropped


def test_a_weight_of_two_gets_two_units_for_each_of_the_others(fair_redis):
    settings = _settings(client_weights="heavy:2")
    _enqueue(fair_redis, settings, "heavy", 30)
    _enqueue(fair_redis, settings, "light", 30)
    order = _taken(fair_redis, settings, 30)
    assert abs(order.count("heavy") - 20) <= 1 and abs(order.count("light") - 10) <= 1


def test_turns_are_by_units_not_jobs(fair_redis):
    """A job of 4 distinct submissions costs 4 turns of a client whose jobs are single runs."""
    settings = _settings()
    _enqueue(fair_redis, settings, "batches", 10, cost=4)
    _enqueue(fair_redis, settings, "runs", 40, cost=1)
    order = _taken(fair_redis, settings, 25)
    assert abs(order.count("batches") - 5) <= 1 and abs(order.count("runs") - 20) <= 1


def test_a_client_back_from_idle_saves_no_turns_up(fair_redis):
    settings = _settings()
    _enqueue(fair_redis, settings, "steady", 10)
    _enqueue(fair_redis, settings, "late", 1)
    assert _taken(fair_redis, settings, 4).count("late") == 1  # its one job went early
    _enqueue(fair_redis, settings, "steady", 10)  # steady keeps sending while late was idle
    _enqueue(fair_redis, settings, "late", 10)
    order = _taken(fair_redis, settings, 10)
    # back from idle, `late` alternates with `steady` instead of taking ten turns in a row
    assert 4 <= order.count("late") <= 6


def test_a_cancelled_run_is_dropped_from_its_queue_and_no_worker_takes_it(fair_redis):
    """A run whose answer nobody can take any more (the API set its cancel key at its deadline, or its
    caller went away) is answered abandoned by the pump and never reaches the workers: its queue
    units are freed, its RQ job deleted, and the run behind it moves up in its place."""
    conn, settings = fair_redis, _settings()
    request = runs.RunRequest(
        language="python", code="print(1)", time_limit_ms=1000, wall_limit_ms=3000, memory_limit_mb=64
    )
    ids = [
        runs.submit(conn, settings, request.model_copy(update={"client": "a"}), target=1) for _ in range(4)
    ]
    rq_key = Queue(settings.judge_queue, connection=conn).key
    first = conn.lpop(rq_key)  # a worker took the first run (the lookahead is one job)
    assert first is not None and conn.llen(rq_key) == 0
    queued = fair.FairKeys(settings.redis_prefix)

    def depth() -> tuple[int, int]:  # the judge's queue depth and the client's
        return int(conn.get(f"{settings.redis_prefix}:queued")), int(conn.get(queued.client_depth("a")))

    assert depth() == (4, 4)
    cancelled = {ids[1]: "deadline", ids[2]: "caller_gone"}
    waiting = conn.lrange(queued.client_queue("a"), 0, -1)  # the job ids of runs 2, 3 and 4
    jobs = dict(zip(ids[1:], waiting, strict=True))
    for run_id, why in cancelled.items():
        conn.set(deadlines.cancel_key(settings.redis_prefix, run_id), why)
    assert fair.pump(conn, settings) == 1  # the two cancelled ones dropped, the fourth moved
    assert conn.lrange(rq_key, 0, -1) == [jobs[ids[3]]]
    assert conn.llen(queued.client_queue("a")) == 0
    for run_id, why in cancelled.items():
        outcome = runs.RunOutcome.model_validate_json(conn.get(runs._key(settings, run_id, "res")))
        assert (outcome.status, outcome.reason) == ("abandoned", why)
        assert "never started" in outcome.message
        assert conn.lrange(runs._key(settings, run_id, "done"), 0, -1) == [b"1"]
        assert not conn.exists(Job.key_for(jobs[run_id].decode()))
    assert conn.get(runs._key(settings, ids[3], "res")) is None  # moved, not answered
    assert depth() == (2, 2)  # the first run (taken) and the fourth (moved) are still to be answered
    stats = {k.decode(): int(v) for k, v in conn.hgetall(f"{settings.redis_prefix}:stats").items()}
    assert stats["abandoned:dropped"] == 2
    assert stats["abandoned_why:deadline"] == stats["abandoned_why:caller_gone"] == 1
    assert not conn.hlen(queued.owner) and not conn.hlen(queued.cost)


def test_a_run_with_a_callback_is_left_to_its_worker(fair_redis):
    """Judge0's callback is sent by the worker that answers the run: such a run is never dropped by
    the pump, cancelled or not (its worker answers it abandoned, and calls back)."""
    conn, settings = fair_redis, _settings()
    request = runs.RunRequest(
        language="python",
        code="print(1)",
        time_limit_ms=1000,
        wall_limit_ms=3000,
        memory_limit_mb=64,
        tag={"judge0": {"callback_url": "http://127.0.0.1:9/cb"}},
        callback=True,  # as compat/judge0.py asks for it
    )
    ids = [runs.submit(conn, settings, request, target=1) for _ in range(2)]
    rq_key = Queue(settings.judge_queue, connection=conn).key
    conn.lpop(rq_key)
    conn.set(deadlines.cancel_key(settings.redis_prefix, ids[1]), "deadline")
    assert fair.pump(conn, settings) == 1
    assert conn.get(runs._key(settings, ids[1], "res")) is None


@pytest.mark.parametrize("text", ["a:0", "a:x", ":2", "a:5000"])
def test_malformed_weights_are_refused(text):
    with pytest.raises(ValueError, match="FRONTIER_CLIENT_WEIGHTS"):
        fair.weights(Settings(client_weights=text))


# -- end to end: two trainers on one judge -------------------------------------------------------------
@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    with judge_stack(
        tmp_path_factory,
        "fair",
        api_tokens=f"big:{TOKEN_A},small:{TOKEN_B},holder:{TOKEN_H}",
        max_client_queue_depth=30,
    ) as s:
        yield s


STAMPED = "import time\nprint(input())\nprint(time.time_ns())\n"  # its stdin, then when it ran


def _run_code(
    url: str, token: str, stdin: str, run_timeout: float = 10, code: str = "print(input())"
) -> dict:
    """verl's call_sandbox_api against `http://<judge>/t/<token>/run_code` (no auth header)."""
    r = httpx.post(
        f"{url}/t/{token}/run_code",
        json={
            "code": code,
            "stdin": stdin,
            "language": "python",
            "compile_timeout": 10,
            "run_timeout": run_timeout,
            "files": {},
            "fetch_files": [],
        },
        timeout=300,
    )
    r.raise_for_status()
    return r.json()


def _queue_depth(stack, client: str) -> int:
    text = httpx.get(f"{stack.url}/t/{TOKEN_H}/metrics").text
    for line in text.splitlines():
        if line.startswith(f'frontier_judge_client_queue_depth{{client="{client}"}}'):
            return int(float(line.rsplit(" ", 1)[1]))
    return 0


def test_a_small_trainer_is_not_behind_a_large_trainers_burst(stack):
    # the one slot is held while both trainers' requests queue up, the large one's burst first
    holder = threading.Thread(
        target=lambda: httpx.post(
            f"{stack.url}/t/{TOKEN_H}/run_code",
            json={"code": SPIN, "run_timeout": 6, "compile_timeout": 1},
            timeout=120,
        ),
        daemon=True,
    )
    holder.start()
    deadline = time.monotonic() + 30
    while _queue_depth(stack, "holder") < 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    ran: list[tuple[int, str]] = []  # (when the program ran, whose): one slot runs them one by one
    lock = threading.Lock()

    def call(client: str, token: str, i: int):
        answer = _run_code(stack.url, token, f"{client}{i}\n", code=STAMPED)
        echoed, stamp = answer["run_result"]["stdout"].split()
        assert echoed == f"{client}{i}"
        with lock:
            ran.append((int(stamp), client))

    with ThreadPoolExecutor(24) as pool:
        big = [pool.submit(call, "big", TOKEN_A, i) for i in range(20)]
        deadline = time.monotonic() + 30
        while _queue_depth(stack, "big") < 20 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _queue_depth(stack, "big") == 20  # the whole burst waits before the small trainer sends
        small = [pool.submit(call, "small", TOKEN_B, i) for i in range(2)]
        for f in big + small:
            f.result()
    holder.join(60)
    # first in, first out would run all twenty of the big trainer's runs first; in turns, the small
    # trainer's two run among the first few: after the big run already in the workers' one-job
    # lookahead, small, big, small (the order the programs ran in, on the one slot)
    order = [client for _, client in sorted(ran)]
    assert order.count("small") == 2 and order.count("big") == 20
    assert [i for i, c in enumerate(order) if c == "small"] == [1, 3], order


def test_the_queue_limit_is_per_client(stack):
    """One trainer past its share (FRONTIER_MAX_CLIENT_QUEUE_DEPTH=30) gets 429; the other is let in."""
    http_a = httpx.Client(base_url=f"{stack.url}/t/{TOKEN_A}", timeout=60)
    http_b = httpx.Client(base_url=f"{stack.url}/t/{TOKEN_B}", timeout=60)
    body = {
        "time_limit_ms": 1000,
        "memory_limit_mb": 256,
        "tests": [{"name": "1", "input": "1\n", "output": "1\n"}],
    }
    assert http_a.put("/problems/fair-echo", json=body).status_code in (200, 201)
    subs = [{"id": str(i), "problem_id": "fair-echo", "code": f"print(input()) # {i}"} for i in range(31)]
    r = http_a.post("/submissions", json={"submissions": subs})
    assert r.status_code == 429 and "client big" in r.json()["detail"] and "Retry-After" in r.headers
    r = http_b.post("/submissions", json={"submissions": subs[:5]})
    assert r.status_code == 202, r.text
    done = http_b.get(f"/submissions/{r.json()['batch_id']}", params={"wait_s": 120}).json()
    assert done["status"] == "done" and all(x["rewards"]["R_inf"] == 1 for x in done["results"])
