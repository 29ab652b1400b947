"""Fan-out across workers (docs/spec.md 4.10; services/judge/queue/shards.py, services/judge/worker/shards.py).

- The board against the machine's Redis: claims in order and never past the end, the end a `min`, a
  report past the end discarded, a lease that lapses re-claimed by the owner (and one renewed kept),
  an owner gone.
- Two engines of this process on one board (deterministic: the shard has claimed a test before the
  owner starts): the records are a serial run's (AC, a WA mid-way, a CPU-time TLE; full and
  first_failure), the shard ran tests, and a test a dead shard claimed is re-claimed and run.
- Two worker processes (each one slot) behind one API: a submission's records are those of a worker
  without fan-out, and the other worker ran some of its tests (counted in /metrics); a worker with other
  limit settings refuses the shards and the records stay the same.
No timed assertions: counts and records, and generous bounds on waits.
"""

from __future__ import annotations

import os
import threading
import time

import httpx
import pytest
import redis

from services.judge.core.engine import FANOUT_USAGE, Engine
from services.judge.core.options import JudgeOptions
from services.judge.queue.shards import ShardBoard, board_id, limits_digest
from services.settings import Settings
from tests.support.problems import make_problem, problem_json, sub
from tests.support.redis import claim_redis_db
from tests.support.stack import eventually, judge_stack, metric

MEASURED = {"cpu_ms", "wall_ms", "memory_kb", "cpu_share"}
TESTS = [(f"t{i:02}", f"{i} {i + 1}\n", f"{2 * i + 1}\n") for i in range(8)]
SUM = "a, b = map(int, input().split())\nprint(a + b)\n"
WA_AT_5 = "a, b = map(int, input().split())\nprint(a + b + (a == 5))\n"
TLE_AT_5 = "a, b = map(int, input().split())\nwhile a == 5:\n    pass\nprint(a + b)\n"
# each test past the first waits a little (idle, not CPU): the other worker's loop has time to take a
# shard before the owner has run them all; verdicts never depend on it (far below the wall limit)
SLOW = (
    "import time\n_line = input()\nif _line.split()[0] != '0':\n    time.sleep(0.4)\ninput = lambda: _line\n"
)
PROGRAMS = {"ac": SUM, "wa_at_5": WA_AT_5, "tle_at_5": TLE_AT_5}


@pytest.fixture(scope="module")
def conn():
    claim = claim_redis_db(range(8, 16))
    url = next(claim)
    c = redis.Redis.from_url(url)
    yield c
    c.close()
    next(claim, None)


def prefix() -> str:
    return f"shardtest{os.getpid()}"


# -- the board ------------------------------------------------------------------------------------------
def test_claims_run_in_order_and_stop_at_the_end(conn):
    owner = ShardBoard.open(conn, prefix(), "j:a:0", 6, "owner")
    shard = ShardBoard.join(conn, prefix(), "j:a:0", 6, "shard")
    assert [owner.claim(), shard.claim(), owner.claim()] == [0, 1, 2]
    assert shard.post(1, {"r": "one"}, ends=True)  # test 1 ends the run
    assert owner.poll() == (1, True)
    assert owner.lower_end(4) == 1  # a min: a later failure does not move it back
    assert shard.claim() is None and owner.claim() is None  # past the end
    assert not shard.post(2, {"r": "two"}, ends=False)  # past the end: discarded
    found, lapsed = owner.collect([0, 1])
    assert found == {1: {"r": "one"}} and lapsed == []  # test 0 is the owner's own, leased
    owner.close()
    assert shard.poll() == (-1, False) and shard.claim() is None  # the owner is gone
    # each run of a job draws its own board: a run after its owner died reads nothing of the old one's
    assert board_id("job", 0) != board_id("job", 0)


def test_a_lapsed_lease_is_reclaimed_by_the_owner_and_a_renewed_one_is_not(conn):
    owner = ShardBoard.open(conn, prefix(), "j:b:0", 4, "owner", lease_s=0.3)
    dead = ShardBoard.join(conn, prefix(), "j:b:0", 4, "dead", lease_s=0.3)
    alive = ShardBoard.join(conn, prefix(), "j:b:0", 4, "alive", lease_s=0.3)
    assert (dead.claim(), alive.claim()) == (0, 1)
    assert owner.collect([0, 1]) == ({}, [])  # both held
    deadline = time.monotonic() + 30
    lapsed: list[int] = []
    while not lapsed and time.monotonic() < deadline:
        alive.poll()  # renews test 1's lease; nobody renews test 0's
        _, lapsed = owner.collect([0, 1])
        time.sleep(0.05)
    assert lapsed == [0]
    assert conn.get(owner.k_lease + "0") == b"owner"  # the owner's now: nobody else re-claims it
    assert owner.collect([0, 1]) == ({}, [])
    alive.post(1, {"r": "ok"}, ends=False)
    assert owner.collect([1]) == ({1: {"r": "ok"}}, [])
    owner.close()


def test_the_limits_digest_covers_the_limit_settings(tmp_path):
    base = Settings(state_dir=tmp_path)
    assert limits_digest(base) == limits_digest(Settings(state_dir=tmp_path / "other"))
    for change in ({"wall_time_extra_ms": 1500}, {"output_limit_kb": 1}, {"borderline_band": 0.2}):
        assert limits_digest(Settings(state_dir=tmp_path, **change)) != limits_digest(base), change


# -- two engines of this process on one board ---------------------------------------------------------
@pytest.fixture(scope="module")
def engines(tmp_path_factory):
    made = [
        Engine(Settings(state_dir=tmp_path_factory.mktemp(name), slots=1, fanout=fanout))
        for name, fanout in (("owner", True), ("shard", True), ("serial", False))
    ]
    yield made
    for e in made:
        e.close()


def _judged(result) -> dict:
    data = result.model_dump()
    data["tests"] = [{k: v for k, v in t.items() if k not in MEASURED} for t in data["tests"]]
    return data


def _problem(engines, pid: str, tl: int = 1000):
    return [make_problem(e.store, TESTS, pid=pid, time_limit_ms=tl) for e in engines]


class OneShard:
    """A worker's Spread for two engines of this process: one shard job, wanted at the first offer and
    run at once on `other` (Engine.run_shard, as a shard job runs it); the owner goes on once the shard
    has claimed a test. With `other` None the shard claims one test and dies (never reports it, never
    renews its lease)."""

    def __init__(self, conn, name: str, other=None, problem=None, lease_s: float = 5.0):
        self.conn, self.name, self.other, self.problem, self.lease_s = conn, name, other, problem, lease_s
        self.pushed, self.ran, self.threads = False, [], []

    def wanted(self, n: int, unclaimed: int) -> int:
        return 0 if self.pushed else 1

    def open(self, n, code, options, claimed, end):
        self.code, self.options = code, options
        return ShardBoard.open(
            self.conn, prefix(), f"j:{self.name}:0", n, "owner", claimed, end, lease_s=self.lease_s
        )

    def push(self, board, k: int) -> None:
        self.pushed = True
        shard = ShardBoard.join(self.conn, prefix(), board.board, board.n, "shard", lease_s=self.lease_s)
        if self.other is None:
            assert shard.claim() is not None
            return
        claimed, claim = threading.Event(), shard.claim

        def first_claim():
            i = claim()
            claimed.set()
            return i

        shard.claim = first_claim
        opts = JudgeOptions.model_validate(self.options.model_dump(mode="json"))  # as a shard job gets them
        t = threading.Thread(
            target=lambda: self.ran.append(
                self.other.run_shard(self.problem, "python", self.code, opts, shard)
            )
        )
        t.start()
        self.threads.append(t)
        assert claimed.wait(120), "the shard never claimed"


@pytest.mark.parametrize("mode", ["full", "first_failure"])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_a_shard_of_another_engine_gives_a_serial_runs_records(conn, engines, name, mode):
    owner, other, serial = engines
    pid = f"sh-{name}-{mode}"
    mine, theirs, plain = _problem(engines, pid, tl=300 if name == "tle_at_5" else 1000)
    code = PROGRAMS[name]
    spread = OneShard(conn, pid, other, theirs)
    usage = dict.fromkeys(FANOUT_USAGE, 0)
    ours = owner.judge(mine, sub(code, problem_id=pid), mode=mode, usage=usage, spread=spread)
    for t in spread.threads:
        t.join(120)
    serial_result = serial.judge(plain, sub(code, problem_id=pid), mode=mode)
    assert serial_result.status == "ok", serial_result.message
    assert _judged(ours) == _judged(serial_result)
    assert spread.pushed and spread.ran and spread.ran[0][0] >= 1  # the shard ran a test at least
    assert usage["fanout_reclaimed"] == 0


def test_a_unit_no_shard_is_wanted_for_claims_in_process(conn, engines):
    owner, _, _ = engines
    mine, _, _ = _problem(engines, "sh-none")

    class NoneWanted(OneShard):
        def wanted(self, n, unclaimed):
            return 0

        def open(self, *args):
            raise AssertionError("no board is opened while no shard is wanted")

    result = owner.judge(mine, sub(SUM, problem_id="sh-none"), spread=NoneWanted(conn, "none"))
    assert [t.verdict for t in result.tests] == ["AC"] * 8


def test_a_test_a_dead_shard_claimed_is_reclaimed(conn, engines):
    owner, _, serial = engines
    mine, _, plain = _problem(engines, "sh-dead")
    usage = dict.fromkeys(FANOUT_USAGE, 0)
    spread = OneShard(conn, "dead", lease_s=0.5)
    ours = owner.judge(mine, sub(WA_AT_5, problem_id="sh-dead"), mode="full", usage=usage, spread=spread)
    assert spread.pushed
    assert _judged(ours) == _judged(serial.judge(plain, sub(WA_AT_5, problem_id="sh-dead"), mode="full"))
    assert usage["fanout_reclaimed"] == 1


# -- two worker processes --------------------------------------------------------------------------------
def _api_judged(result: dict) -> dict:
    return {**result, "tests": [{k: v for k, v in t.items() if k not in MEASURED} for t in result["tests"]]}


def _judge(http: httpx.Client, code: str, mode: str, pid: str = "fan") -> dict:
    r = http.post(
        "/judge", json={"submissions": [{"id": "big", "problem_id": pid, "code": code}], "mode": mode}
    )
    assert r.status_code == 200, r.text
    return r.json()["results"][0]


@pytest.fixture(scope="module")
def stacks(tmp_path_factory):
    with (
        judge_stack(tmp_path_factory, "shardon", workers=2, slots=1) as on,
        judge_stack(tmp_path_factory, "shardoff", workers=1, slots=1, fanout="false") as off,
    ):
        https = [httpx.Client(base_url=s.url, timeout=300) for s in (on, off)]
        for http in https:
            assert http.put("/problems/fan", json=problem_json(TESTS)).status_code in (200, 201)
            assert http.put("/problems/tle", json=problem_json(TESTS, time_limit_ms=300)).status_code in (
                200,
                201,
            )
        yield https
        for http in https:
            http.close()


@pytest.mark.parametrize("mode", ["full", "first_failure"])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_two_workers_answer_as_one_without_fanout(stacks, name, mode):
    on, off = stacks
    code, pid = SLOW + PROGRAMS[name], "tle" if name == "tle_at_5" else "fan"
    ours, theirs = _judge(on, code, mode, pid), _judge(off, code, mode, pid)
    assert theirs["status"] == "ok", theirs
    assert _api_judged(ours) == _api_judged(theirs)
    verdicts = [t["verdict"] for t in ours["tests"]]
    bad = "WA" if name == "wa_at_5" else "TLE"
    if name == "ac":
        assert verdicts == ["AC"] * 8
    else:
        assert verdicts == ["AC"] * 5 + [bad] + (["AC"] * 2 if mode == "full" else ["SKIPPED"] * 2)
    assert metric(off, "frontier_judge_fanout_shards_total") == 0


def test_the_other_worker_runs_some_of_the_tests(stacks):
    on, _ = stacks
    before = metric(on, "frontier_judge_fanout_shard_tests_total")
    # the owner pushes a shard once its first test passed; the other worker's idle loop takes it (a
    # shard of its own process is refused): a few tries bound a loaded machine's slowest start
    for attempt in range(5):
        result = _judge(on, SLOW + SUM + f"# {attempt}\n", "full")
        assert [t["verdict"] for t in result["tests"]] == ["AC"] * 8
        if metric(on, "frontier_judge_fanout_shard_tests_total") > before:
            break
    assert metric(on, "frontier_judge_fanout_shard_tests_total") > before
    assert metric(on, "frontier_judge_fanout_shards_total") >= 1
    assert metric(on, "frontier_judge_fanout_shards_refused_total") == 0


def test_a_worker_with_other_limits_refuses_the_shards(tmp_path_factory):
    with judge_stack(tmp_path_factory, "shardref", workers=1, slots=1) as stack:
        stack.start_worker(slots=1, wall_time_extra_ms=1500)
        stack.wait_workers(2)
        with httpx.Client(base_url=stack.url, timeout=300) as http:
            assert http.put("/problems/fan", json=problem_json(TESTS)).status_code in (200, 201)
            for attempt in range(5):
                result = _judge(http, SLOW + WA_AT_5 + f"# {attempt}\n", "full")
                assert [t["verdict"] for t in result["tests"]] == ["AC"] * 5 + ["WA"] + ["AC"] * 2
                if metric(http, "frontier_judge_fanout_shards_refused_total") > 0:
                    break
            eventually(lambda: metric(http, "frontier_judge_fanout_shards_refused_total") > 0, 30)
            assert metric(http, "frontier_judge_fanout_shard_tests_total") == 0


def test_a_shard_worker_killed_mid_test_has_its_test_reclaimed(tmp_path_factory):
    # each test past the first waits 2 s: the other worker's shard holds a claimed test long enough
    # to be found (its lease's holder is its process) and killed in it; the owner re-runs that test
    slow = "import time\n_line = input()\nif _line.split()[0] != '0':\n    time.sleep(2)\ninput = lambda: _line\n"
    with judge_stack(tmp_path_factory, "shardkill", workers=2, slots=1) as stack:
        conn = redis.Redis.from_url(stack.frontier_env["FRONTIER_REDIS_URL"])
        tag = stack.frontier_env["FRONTIER_REDIS_PREFIX"]
        by_pid = {p.pid: p for p in stack.workers}
        with httpx.Client(base_url=stack.url, timeout=300) as http:
            assert http.put("/problems/fan", json=problem_json(TESTS)).status_code in (200, 201)
            killed: list[int] = []
            answer: list[dict] = []

            def submit() -> None:
                answer.append(_judge(http, slow + SUM, "full"))

            t = threading.Thread(target=submit)
            t.start()

            def a_shard_in_a_test():
                owners = {conn.get(k) for k in conn.scan_iter(f"{tag}:fan:*:owner")}
                for key in conn.scan_iter(f"{tag}:fan:*:lease:*"):
                    holder = conn.get(key)
                    if holder is not None and holder not in owners:
                        return int(holder.decode().rsplit(".", 1)[1])
                return None

            try:
                pid = eventually(a_shard_in_a_test, 120)
                by_pid[pid].kill()
                killed.append(pid)
            finally:
                t.join(300)
            result = answer[0]
            assert [t["verdict"] for t in result["tests"]] == ["AC"] * 8
            assert metric(http, "frontier_judge_fanout_reclaimed_total") >= 1
        conn.close()
