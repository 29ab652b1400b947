"""Reward-burst benchmark (issue 23): the shape of one RL step's rewards, against this judge and the
naive judge, in the same run.

One step: `--completions` samples (default 512) on bundled problems, each judged on its `--tests`
smallest tests (16), a mix of correct (the reference solution), wrong (prints a wrong answer), slow
(spins to the time limit) and crashing (raises) programs, `--in-flight` requests at once (256):
  /judge     one POST per sample (first_failure, as the trainer's rewards send it), no deadline
  /run_code  one POST per test, the way verl's sandbox_fusion reward sends it: compile_timeout and
             run_timeout both the problem's time limit, its HTTP timeout compile + run + 10 s, up to 3
             attempts retrying only a 504 (after 1 s, then 2 s); the judge derives the deadline
  naive      the same per-test requests to the naive judge of bench/baselines.py (a fresh interpreter
             per test, 2 threads, first in first out), each caller giving up after the same timeout
             (no 504 comes, so there is nothing to retry) while the naive judge still runs its work
For each: the step's wall time, p50 / p99 per request, the requests that timed out (for /run_code:
read timeouts, or 504 on every attempt), the correct samples scored wrong, and the share of slot
time spent on work whose caller had gone (target 0; ours from /metrics, the naive judge's measured).
Under each side, where the machine's CPU went over its step (the API, the worker with its sandboxed
programs and the worker process alone, Redis, this bench) and how busy the machine was: whether the
step was bound by the cores rather than the judge. Then the capacity rule that follows: the slots a
burst needs so that no request waits past its caller's timeout, from each problem and kind of
sample's slot time on a free slot (one run each, after the burst).

With `--start-rules` the /run_code burst is also sent, first, to a judge with each start rule
(docs/spec.md 6.7: FRONTIER_DEADLINE_START_RULE=off, limits, estimate; the main judge runs the default,
estimate), and one line per rule, side by side: the slot time on runs stopped at their deadline,
the runs the rule did not start (answered 504 at once), the cases that failed all 3 attempts (by kind
of sample), the correct samples scored wrong, the step time and p50 / p99. Under each judge with a
start rule, its decisions by the tier of the estimate that made them and how the work ended
(`frontier_judge_start_cost_source_total{source, ended}`). With `--start-rules` a fourth judge runs
`estimate` with carry to the retry off (FRONTIER_DEADLINE_CARRY_S=0: runs stopped at their deadline,
as before carry), beside the others, which carry at the default.

Carry to the retry (docs/spec.md 6.7): a /run_code run still running when its answer is due is
answered 504 and runs on to its limits, and verl's retry of the same request gets its outcome. Each
/run_code line says how many runs were dropped while still queued (cancelled at their deadline
before any worker took them), how many were carried past their deadline, how many of those a retry was
answered with (reused) and how many finished with no retry taking them (unclaimed), and the share
of slot time on abandoned work: runs stopped at their deadline or by their caller leaving, plus
carried runs nobody took (`frontier_judge_abandoned_slot_seconds_total` +
`frontier_judge_carried_slot_seconds_total{ended="unclaimed"}`, target 0).

    python bench/burst_bench.py [--small] [--completions 512 --tests 16 --in-flight 256] [--slots 2]
                                [--start-rules]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from tqdm import tqdm

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from baselines import WORKERS, load_now, real_problem_dirs  # noqa: E402
from service_bench import Service, service_client  # noqa: E402

from services.judge.api.metrics import CARRIED_ENDINGS  # noqa: E402
from services.settings import Settings  # noqa: E402

VERL_API_TIMEOUT_S = 10  # verl's API_TIMEOUT: its HTTP timeout is compile + run + this
VERL_ATTEMPTS = 3
START_RULES = ("off", "limits", "estimate")
# the judges of --start-rules: a name, and their settings (the last: estimate, carry to the retry off)
RULE_JUDGES = (
    *((rule, {"FRONTIER_DEADLINE_START_RULE": rule}) for rule in START_RULES),
    ("no carry", {"FRONTIER_DEADLINE_START_RULE": "estimate", "FRONTIER_DEADLINE_CARRY_S": "0"}),
)
HEADROOM = 1.5  # slots over the bare rule, for the variance of a mix with programs slow to their limit
MIX = {"correct": 0.6, "wrong": 0.2, "slow": 0.1, "crash": 0.1}
PROGRAMS = {
    "wrong": "import sys\nsys.stdin.read()\nprint('no')  # {tag}\n",
    "slow": "while True:  # {tag}\n    pass\n",
    "crash": "import sys\nsys.stdin.read()\nraise RuntimeError('boom')  # {tag}\n",
}


@dataclass
class Sample:
    problem: str
    kind: str
    code: str
    tests: list[tuple[str, str]]  # (stdin, expected stdout)
    time_limit_s: float


@dataclass
class Side:
    name: str
    wall_s: float = 0.0
    latencies: list[float] = field(default_factory=list)
    requests: int = 0
    timeouts: int = 0
    retried: int = 0
    correct_scored_wrong: int = 0
    failures: dict[str, int] = field(default_factory=dict)  # what the timed-out requests got
    slot_s: float = 0.0
    abandoned_slot_s: float = 0.0  # slot time after the caller had given up (or the judge had stopped it)
    stopped_slot_s: float = 0.0  # slot time of work stopped at its deadline, up to the stop
    not_started: int = 0  # runs the start rule did not start (their expected cost could not finish in time)
    dropped: int = 0  # runs cancelled while queued, dropped from their queue before a worker took them
    cpu: str = ""  # where the machine's CPU went over the step (CpuShare.line)
    failed_all: dict[str, int] = field(default_factory=dict)  # by kind of sample: requests never answered
    # the start rule's decisions by the tier of the estimate that made them and how the work ended
    # (frontier_judge_start_cost_source_total{source, ended}, docs/spec.md 6.7)
    sources: dict[tuple[str, str], int] = field(default_factory=dict)
    # carry to the retry (docs/spec.md 6.7): runs carried past their deadline, how they ended, and
    # the slot time of the carried runs no retry took (abandoned work, beside the stopped runs')
    carried: int = 0
    carried_ended: dict[str, int] = field(default_factory=dict)  # reused, unclaimed, stopped
    unclaimed_slot_s: float = 0.0
    stopped_all_slot_s: float = 0.0  # all slot time of stopped work (start to release)

    def carry_part(self) -> str:
        abandoned = self.stopped_all_slot_s + self.unclaimed_slot_s
        share = abandoned / self.slot_s if self.slot_s else 0.0
        ended = self.carried_ended
        return (
            f"carried past their deadline {self.carried} (reused {ended.get('reused', 0)}, unclaimed "
            f"{ended.get('unclaimed', 0)}, stopped {ended.get('stopped', 0)}) | abandoned work (stopped + "
            f"carried unclaimed) {share:6.1%} ({abandoned:.1f} s)"
        )

    def sources_line(self) -> str:
        if not self.sources:
            return ""
        parts = []
        for source in ("program", "running", "kind", "limits"):  # deadlines.COST_SOURCES
            ends = {e: n for (s, e), n in self.sources.items() if s == source and n}
            if ends:
                parts.append(f"{source}: " + ", ".join(f"{e} {n}" for e, n in sorted(ends.items())))
        return f"{'':>11}start decided by " + " | ".join(parts)

    def line(self) -> str:
        lat = sorted(self.latencies) or [0.0]
        p50 = lat[len(lat) // 2]
        p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))]
        share = self.abandoned_slot_s / self.slot_s if self.slot_s else 0.0
        return (
            f"{self.name:>9}: step {self.wall_s:7.1f} s | {self.requests} requests, p50 {p50:6.2f} s, "
            f"p99 {p99:6.2f} s | timeouts {self.timeouts} {self.failures or ''} (504s retried {self.retried}, "
            f"not started {self.not_started}, dropped while queued {self.dropped}) | correct samples "
            f"scored wrong {self.correct_scored_wrong} | slot time after the caller left {share:6.1%} "
            f"({self.abandoned_slot_s:.1f} of {self.slot_s:.1f} s), on runs stopped at their deadline "
            f"{self.stopped_slot_s / self.slot_s if self.slot_s else 0:6.1%}"
            + (f" | {self.carry_part()}" if self.name == "/run_code" else "")
        )

    def rule_line(self) -> str:
        lat = sorted(self.latencies) or [0.0]
        p50 = lat[len(lat) // 2]
        p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))]
        stopped = self.stopped_slot_s / self.slot_s if self.slot_s else 0.0
        failed = sum(self.failed_all.values())
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(self.failed_all.items()))
        return (
            f"{self.name:>9}: slot time on runs stopped at their deadline {stopped:6.1%} | not started "
            f"{self.not_started:4d} | requests failing all {VERL_ATTEMPTS} attempts {failed:4d}"
            f"{f' ({kinds})' if kinds else ''} | correct samples scored wrong {self.correct_scored_wrong} | "
            f"step {self.wall_s:6.1f} s, p50 {p50:6.2f} s, p99 {p99:6.2f} s | {self.carry_part()}"
        )


# -- where the machine's CPU went during a side's step ---------------------------------------------------
TICK_S = 1 / os.sysconf("SC_CLK_TCK")


def _processes() -> tuple[dict[int, list[int]], dict[int, float], dict[int, float]]:
    """One read of /proc: each process's children, its own CPU seconds (utime + stime) and those with
    its reaped children's (+ cutime + cstime)."""
    children: dict[int, list[int]] = {}
    own: dict[int, float] = {}
    reaped: dict[int, float] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        pid = int(entry.name)
        children.setdefault(int(fields[1]), []).append(pid)
        ticks = [int(x) for x in fields[11:15]]
        own[pid] = sum(ticks[:2]) * TICK_S
        reaped[pid] = sum(ticks) * TICK_S
    return children, own, reaped


def _tree_cpu_s(root: int, children: dict[int, list[int]], reaped: dict[int, float]) -> float:
    """CPU seconds of `root` and every process under it (those alive by their own times, those gone
    by their reaped children's times in their parent's): the API's, or a worker's with its sandboxes."""
    total, todo = 0.0, [root]
    while todo:
        pid = todo.pop()
        total += reaped.get(pid, 0.0)
        todo += children.get(pid, [])
    return total


def _machine_busy_s() -> tuple[float, float]:
    """(busy, all) CPU seconds of the machine since boot, over every core."""
    with open("/proc/stat") as f:
        ticks = [int(x) for x in f.readline().split()[1:]]
    idle = ticks[3] + ticks[4]  # idle, iowait
    return (sum(ticks[:8]) - idle) * TICK_S, sum(ticks[:8]) * TICK_S


class CpuShare:
    """CPU seconds by part of the setup over a side's step: the judge's API, its worker with every
    sandboxed program under it, Redis, and this bench (its callers, and the naive judge's programs),
    beside the machine's busy share: whether the step was bound by the cores, not the slots."""

    def __init__(self, service: Service | None):
        procs = service.stack.procs if service is not None else {}
        parts = {
            "API": [p.pid for n, p in procs.items() if n.endswith("-api")],
            "worker + sandboxes": [p.pid for n, p in procs.items() if "worker" in n],
            "Redis": [
                int(x)
                for x in subprocess.run(
                    ["pgrep", "-x", "redis-server"], capture_output=True, text=True
                ).stdout.split()
            ],
            "this bench": [os.getpid()],  # its callers; and the naive judge with its programs
        }
        self.parts = {name: pids for name, pids in parts.items() if pids}
        self.before = self._now()

    def _now(self) -> dict[str, float]:
        children, own, reaped = _processes()
        out = {name: sum(_tree_cpu_s(p, children, reaped) for p in pids) for name, pids in self.parts.items()}
        if "worker + sandboxes" in self.parts:  # the worker's own Python, apart from what it runs
            out["worker alone"] = sum(own.get(p, 0.0) for p in self.parts["worker + sandboxes"])
        me = os.times()
        out["this bench"] = me.user + me.system + me.children_user + me.children_system
        out["machine"], out["all"] = _machine_busy_s()
        return out

    def line(self, wall_s: float, attempts: int) -> str:
        now = self._now()
        used = {k: now[k] - self.before[k] for k in now}
        cores = os.cpu_count() or 1
        parts = ", ".join(f"{name} {used[name] / wall_s:.2f}" for name in self.parts)
        per = ""
        if "worker + sandboxes" in used:
            n = max(1, attempts)
            per = (
                f"; per request sent ({attempts}, retries included): the worker with its sandboxes "
                f"{used['worker + sandboxes'] / n * 1000:.0f} ms of CPU, of it the worker process's own "
                f"{used['worker alone'] / n * 1000:.0f} ms"
            )
        return (
            f"{'':>11}CPU over the step: the machine {used['machine'] / max(used['all'], 1e-9):.0%} busy of "
            f"{cores} cores; in cores: {parts}{per}"
        )


def samples(n: int, tests: int, seed: int = 23) -> tuple[list[Sample], list[Path]]:
    rng = random.Random(seed)
    dirs = real_problem_dirs(8)
    kinds = [k for k, share in MIX.items() for _ in range(round(share * 100))]
    out = []
    for i in range(n):
        d = dirs[i % len(dirs)]
        meta = json.loads((d / "problem.json").read_text())
        ins = sorted(d.glob("tests/*.in"), key=lambda p: p.stat().st_size)[:tests]
        pairs = [(p.read_text(), p.with_suffix(".out").read_text()) for p in ins]
        kind = rng.choice(kinds)
        code = (
            (d / "ref.py").read_text() + f"\n# {i}\n" if kind == "correct" else PROGRAMS[kind].format(tag=i)
        )
        out.append(Sample(d.name, kind, code, pairs, meta["time_limit_ms"] / 1000))
    return out, dirs


def put_problems(http: httpx.Client, dirs: list[Path], subs: list[Sample]) -> None:
    """Each problem with the tests the samples are judged on, and no others."""
    for d in dirs:
        meta = json.loads((d / "problem.json").read_text())
        meta = {k: v for k, v in meta.items() if k not in ("statement", "public_tests")}
        tests = next(s.tests for s in subs if s.problem == d.name)
        meta["tests"] = [{"name": f"t{j:02d}", "input": i, "output": o} for j, (i, o) in enumerate(tests)]
        http.put(f"/problems/{d.name}", json=meta).raise_for_status()


def metric(http: httpx.Client, name: str) -> float:
    for line in http.get("/metrics").text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    return 0.0


SLOT_METRICS = (
    "frontier_judge_slot_seconds_total",
    "frontier_judge_abandoned_slot_seconds_total",
    "frontier_judge_after_stop_slot_seconds_total",
)


SOURCE_METRIC = re.compile(r"^frontier_judge_start_cost_source_total\{([^}]*)\} (\S+)$")
CARRIED_METRIC = re.compile(r'^frontier_judge_carried_(ended|slot_seconds)_total\{ended="(\w+)"\} (\S+)$')


def slot_figures(http: httpx.Client) -> tuple[list[float], dict[tuple[str, str], int]]:
    """The slot-time counters (SLOT_METRICS), the runs not started, then the carry's: runs carried,
    by how they ended, and the slot time of the unclaimed ones; and the start rule's decisions."""
    no_time = dropped = 0.0
    sources = {}
    carried = {("ended", e): 0.0 for e in CARRIED_ENDINGS} | {("slot_seconds", "unclaimed"): 0.0}
    for line in http.get("/metrics").text.splitlines():
        if line.startswith('frontier_judge_abandoned_total{abandoned="no_time"}'):
            no_time = float(line.split()[-1])
        elif line.startswith('frontier_judge_abandoned_total{abandoned="dropped"}'):
            dropped = float(line.split()[-1])
        elif m := SOURCE_METRIC.match(line):
            labels = dict(re.findall(r'(\w+)="(\w*)"', m[1]))
            sources[(labels["source"], labels["ended"])] = int(float(m[2]))
        elif (m := CARRIED_METRIC.match(line)) and (m[1], m[2]) in carried:
            carried[(m[1], m[2])] = float(m[3])
    figures = [metric(http, name) for name in SLOT_METRICS] + [no_time]
    figures += [metric(http, "frontier_judge_carried_total")] + [carried[k] for k in sorted(carried)]
    return figures + [dropped], sources


def settle(side: Side, http: httpx.Client, before: tuple) -> None:
    """The slot time of a side from the judge's counters: all of it, what ran after a stop (the
    caller had not given up yet: the judge stops work before the caller's own timeout), and what the
    stopped work had used up to its stop; and the start rule's decisions by the tier that made them."""
    figures, sources = slot_figures(http)
    deltas = [b - a for a, b in zip(before[0], figures, strict=True)]
    total, stopped, after, no_time, carried = deltas[:5]
    side.slot_s, side.abandoned_slot_s, side.stopped_slot_s = total, after, stopped - after
    side.stopped_all_slot_s = stopped
    side.not_started = int(no_time)
    side.carried = int(carried)
    # sorted: ("ended", reused), ("ended", stopped), ("ended", unclaimed), ("slot_seconds", unclaimed)
    reused, stopped_n, unclaimed, side.unclaimed_slot_s = deltas[5:9]
    side.dropped = int(deltas[9])
    side.carried_ended = {"reused": int(reused), "unclaimed": int(unclaimed), "stopped": int(stopped_n)}
    side.sources = {k: n - before[1].get(k, 0) for k, n in sources.items() if n - before[1].get(k, 0)}


# -- the two ways a trainer sends a step to this judge --------------------------------------------------
def progress(results, total: int, desc: str):
    """The requests of one side as they are answered (in order), on stderr: the step's figures print
    at the end, on stdout."""
    return tqdm(results, total=total, desc=desc, unit="request", file=sys.stderr, leave=False)


def judge_side(
    http: httpx.Client, subs: list[Sample], in_flight: int, service: Service | None = None
) -> Side:
    side = Side("/judge")
    before = slot_figures(http)
    cpu = CpuShare(service)
    # a connection for each caller thread and every one kept: httpcore's sync pool, with more threads
    # than connections, can close a connection it has just given a waiting request, which then hangs
    # until its read timeout (httpcore issue 1110; one of 512 requests here waited 23 minutes)
    callers = httpx.Client(
        base_url=str(http.base_url),
        headers=http.headers,
        limits=httpx.Limits(max_connections=in_flight, max_keepalive_connections=in_flight),
    )

    def one(i: int) -> None:
        s = subs[i]
        t0 = time.perf_counter()
        try:
            r = callers.post(
                "/judge",
                json={"submissions": [{"id": str(i), "problem_id": s.problem, "code": s.code}]},
                timeout=3600,
            )
            r.raise_for_status()
            ok = r.json()["results"][0]["outcome"] == "correct"
        except httpx.HTTPError:
            side.timeouts += 1
            ok = False
        side.latencies.append(time.perf_counter() - t0)
        side.correct_scored_wrong += s.kind == "correct" and not ok

    t0 = time.perf_counter()
    with callers, ThreadPoolExecutor(in_flight) as pool:
        list(progress(pool.map(one, range(len(subs))), len(subs), "/judge"))
    side.wall_s = time.perf_counter() - t0
    side.cpu = cpu.line(side.wall_s, len(subs))
    side.requests = len(subs)
    settle(side, http, before)
    return side


def verl_side(
    url: str,
    headers: dict,
    subs: list[Sample],
    in_flight: int,
    http: httpx.Client,
    service: Service | None = None,
) -> Side:
    side = Side("/run_code")
    lock = threading.Lock()
    before = slot_figures(http)
    cpu = CpuShare(service)
    calls = [(i, t) for i, s in enumerate(subs) for t in range(len(s.tests))]
    passed = [0] * len(subs)
    # verl calls requests.post: a fresh connection per request, none kept alive between them
    client = httpx.Client(
        headers=headers, limits=httpx.Limits(max_connections=in_flight * 2, max_keepalive_connections=0)
    )

    def one(call: tuple[int, int]) -> None:
        i, t = call
        s = subs[i]
        stdin, expected = s.tests[t]
        timeout = s.time_limit_s * 2 + VERL_API_TIMEOUT_S  # compile_timeout = run_timeout = the limit
        payload = {
            "compile_timeout": s.time_limit_s,
            "run_timeout": s.time_limit_s,
            "code": s.code,
            "stdin": stdin,
            "language": "python",
            "files": {},
            "fetch_files": [],
        }
        t0 = time.perf_counter()
        answer, retried, failure = None, 0, None
        for attempt in range(VERL_ATTEMPTS):
            try:
                r = client.post(url + "/run_code", json=payload, timeout=timeout)
            except httpx.HTTPError as err:  # verl retries none of these
                failure = type(err).__name__
                break
            if r.status_code == 504:
                retried += 1
                failure = "504 x3"
                if attempt < VERL_ATTEMPTS - 1:
                    time.sleep(attempt + 1)
                continue
            answer = r.json() if r.status_code == 200 else None
            failure = None if answer is not None else f"HTTP {r.status_code}"
            break
        ok = (
            answer is not None
            and answer.get("status") == "Success"
            and (answer["run_result"]["stdout"] or "").rstrip("\n") == expected.rstrip("\n")
        )
        with lock:
            side.latencies.append(time.perf_counter() - t0)
            side.timeouts += answer is None
            side.retried += retried
            if failure is not None:
                side.failures[failure] = side.failures.get(failure, 0) + 1
            passed[i] += ok
            if answer is None:
                side.failed_all[s.kind] = side.failed_all.get(s.kind, 0) + 1

    t0 = time.perf_counter()
    with ThreadPoolExecutor(in_flight) as pool:
        list(progress(pool.map(one, calls), len(calls), "/run_code"))
    side.wall_s = time.perf_counter() - t0
    side.cpu = cpu.line(side.wall_s, len(calls) + side.retried)
    client.close()
    side.requests = len(calls)
    side.correct_scored_wrong = sum(
        s.kind == "correct" and passed[i] < len(s.tests) for i, s in enumerate(subs)
    )
    # the last stopped runs are counted once their slot is free; carried ones once they end (at
    # most their limits: compile_timeout + run_timeout at a busy run's cost)
    time.sleep(1.5)
    t_end = time.monotonic() + max(s.time_limit_s for s in subs) * 3 + 5
    while time.monotonic() < t_end and _carried_running(http):
        time.sleep(0.5)
    settle(side, http, before)
    return side


def free_slot_costs(
    url: str, headers: dict, subs: list[Sample], http: httpx.Client
) -> dict[tuple[str, str], float]:
    """The slot time of one run of each problem and kind of sample on a free slot (one at a time,
    after the burst, so the burst's estimates are not fed by it): what every request of the step
    would cost if it ran, refused or not, for the capacity rule."""
    costs = {}
    with httpx.Client(base_url=url, headers=headers, timeout=120) as client:
        for s in subs:
            if (s.problem, s.kind) in costs:
                continue
            stdin, _ = s.tests[0]
            before = metric(http, "frontier_judge_slot_seconds_total")
            client.post(
                "/run_code",
                json={
                    "compile_timeout": s.time_limit_s,
                    "run_timeout": s.time_limit_s,
                    "code": s.code + "\n# free-slot cost\n",
                    "stdin": stdin,
                    "language": "python",
                },
            ).raise_for_status()
            costs[(s.problem, s.kind)] = metric(http, "frontier_judge_slot_seconds_total") - before
    return costs


def _carried_running(http: httpx.Client) -> bool:
    """Whether a run carried past its deadline has not ended yet (so its ending is not counted)."""
    figures, _ = slot_figures(http)
    carried, reused, stopped, unclaimed = figures[4:8]  # slot_figures' order
    return carried > reused + stopped + unclaimed


# -- the naive judge under the same callers -------------------------------------------------------------
def naive_side(subs: list[Sample], in_flight: int, workdir: Path) -> Side:
    """The per-test requests on the naive judge (WORKERS threads, first in first out); each caller
    waits as long as verl would, then gives up, and the judge runs its request anyway."""
    side = Side("naive")
    lock = threading.Lock()
    files = {}
    for i, s in enumerate(subs):
        files[i] = workdir / f"s{i}.py"
        files[i].write_text(s.code)
    passed = [0] * len(subs)
    gave_up: set[tuple[int, int]] = set()
    server = ThreadPoolExecutor(WORKERS)

    def run(i: int, t: int) -> bool:
        s = subs[i]
        stdin, expected = s.tests[t]
        t0 = time.perf_counter()
        try:
            r = subprocess.run(
                [sys.executable, str(files[i])],
                input=stdin.encode(),
                capture_output=True,
                timeout=s.time_limit_s,
            )
            ok = r.returncode == 0 and r.stdout.decode(errors="replace").rstrip("\n") == expected.rstrip("\n")
        except subprocess.TimeoutExpired:
            ok = False
        spent = time.perf_counter() - t0
        with lock:
            side.slot_s += spent
            if (i, t) in gave_up:
                side.abandoned_slot_s += spent
        return ok

    def one(call: tuple[int, int]) -> None:
        i, t = call
        s = subs[i]
        t0 = time.perf_counter()
        future = server.submit(run, i, t)
        try:
            ok = future.result(timeout=s.time_limit_s * 2 + VERL_API_TIMEOUT_S)
        except FutureTimeout:
            with lock:
                gave_up.add((i, t))
                side.timeouts += 1
                side.failures["ReadTimeout"] = side.failures.get("ReadTimeout", 0) + 1
            ok = False
        with lock:
            side.latencies.append(time.perf_counter() - t0)
            passed[i] += ok

    calls = [(i, t) for i, s in enumerate(subs) for t in range(len(s.tests))]
    cpu = CpuShare(None)
    t0 = time.perf_counter()
    with ThreadPoolExecutor(in_flight) as pool:
        list(progress(pool.map(one, calls), len(calls), "naive"))
    side.wall_s = time.perf_counter() - t0  # the step ends when its caller has every answer or gave up
    side.cpu = cpu.line(side.wall_s, len(calls))
    server.shutdown(wait=True)  # the abandoned work the naive judge still runs after the step
    side.requests = len(calls)
    side.correct_scored_wrong = sum(
        s.kind == "correct" and passed[i] < len(s.tests) for i, s in enumerate(subs)
    )
    return side


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--small", action="store_true", help="64 completions x 4 tests, 128 in flight")
    ap.add_argument("--completions", type=int, default=512)
    ap.add_argument("--tests", type=int, default=16)
    ap.add_argument("--in-flight", type=int, default=256)
    ap.add_argument("--slots", type=int, default=2, help="sandbox slots of the one worker")
    ap.add_argument("--redis", default="127.0.0.1:6379")
    ap.add_argument(
        "--start-rules",
        "--start-rule-off-too",
        dest="start_rules",
        action="store_true",
        help="also send the /run_code burst to a judge with each FRONTIER_DEADLINE_START_RULE (off, limits, "
        "estimate; docs/spec.md 6.7) and to one with estimate and carry to the retry off "
        "(FRONTIER_DEADLINE_CARRY_S=0), side by side: the slot time each saves, and what it costs",
    )
    args = ap.parse_args()
    if args.small:
        args.completions, args.tests, args.in_flight = 64, 4, 128
    subs, dirs = samples(args.completions, args.tests)
    host, port = args.redis.split(":")
    load = load_now()
    with tempfile.TemporaryDirectory(prefix="burst-bench-") as tmp:
        sides, rules = [], []
        for name, env in (
            RULE_JUDGES if args.start_rules else ()
        ):  # first: on a host no warmer than the main one
            service = Service(1, args.slots, Path(tmp) / name.replace(" ", "-"), host, int(port), env)
            try:
                with service_client(service.url, timeout=600) as http:
                    put_problems(http, dirs, subs)
                    side = verl_side(
                        service.url, Settings().auth_headers(), subs, args.in_flight, http, service
                    )
                    side.name = name
                    rules.append(side)
            finally:
                service.close()
        rule = {}
        service = Service(1, args.slots, Path(tmp), host, int(port), rule)
        try:
            with service_client(service.url, timeout=600) as http:
                put_problems(http, dirs, subs)
                sides = [
                    judge_side(http, subs, args.in_flight, service),
                    verl_side(service.url, Settings().auth_headers(), subs, args.in_flight, http, service),
                ]
                costs = free_slot_costs(service.url, Settings().auth_headers(), subs, http)
        finally:
            service.close()
        workdir = Path(tmp) / "naive"
        workdir.mkdir()
        sides.append(naive_side(subs, args.in_flight, workdir))
    kinds = {k: sum(s.kind == k for s in subs) for k in MIX}
    print(
        f"one RL step: {args.completions} completions x {args.tests} tests on {len(dirs)} bundled problems "
        f"({', '.join(f'{n} {k}' for k, n in kinds.items())}), {args.in_flight} requests in flight, "
        f"1 worker x {args.slots} slots (naive: {WORKERS} threads); load before: {load}"
    )
    for side in sides:
        print(side.line())
        if side.sources:
            print(side.sources_line())
        print(side.cpu)
    ours, naive = sides[1], sides[2]
    if rules:
        print(
            "the start rules (docs/spec.md 6.7), each on its own judge, the same /run_code burst "
            "(carry to the retry on, but for `no carry`: estimate with FRONTIER_DEADLINE_CARRY_S=0):"
        )
        for side in rules:
            print(side.rule_line())
            if side.sources:
                print(side.sources_line())
    print(
        f"    ratio: /run_code's step in {ours.wall_s / naive.wall_s:.2f}x the naive judge's wall time; "
        f"timeouts {ours.timeouts} vs {naive.timeouts}; correct samples scored wrong "
        f"{ours.correct_scored_wrong} vs {naive.correct_scored_wrong}"
    )
    # the capacity rule: the last of B requests in flight waits B x (slot seconds per request) / slots,
    # which must stay under the caller's timeout less the judge's margin. A request's cost is its
    # problem and kind's on a free slot: what it costs if it runs (under overload the start rule
    # refuses the slow ones first, so the slot time of what ran says too little)
    per_request_s = statistics.fmean(costs[(s.problem, s.kind)] for s in subs)
    served_s = ours.slot_s / max(1, ours.requests)
    budget_s = min(s.time_limit_s for s in subs) * 2 + VERL_API_TIMEOUT_S - Settings().deadline_margin_s
    needed = math.ceil(args.in_flight * per_request_s / budget_s)
    headroom = math.ceil(HEADROOM * args.in_flight * per_request_s / budget_s)
    full = args.completions * args.tests * per_request_s
    by_kind = ", ".join(
        f"{k} {statistics.fmean(c for (_, kind), c in costs.items() if kind == k) * 1000:.0f} ms"
        for k in MIX
        if any(kind == k for _, kind in costs)
    )
    print(
        f"capacity: {per_request_s * 1000:.0f} ms of slot time per /run_code request of this mix on a free "
        f"slot ({by_kind}; {served_s * 1000:.0f} ms per request of what ran in the burst); a caller "
        f"budget of {budget_s:.0f} s (verl: compile + run + 10 s, less FRONTIER_DEADLINE_MARGIN_S) needs "
        f"slots >= in_flight x {per_request_s:.3f} s / {budget_s:.0f} s = {needed} for {args.in_flight} in "
        f"flight ({headroom} with {HEADROOM}x headroom for the slow tail: at the bound, requests wait "
        f"about the whole budget and 504s come), each with a core of its own (the programs' time is "
        f"CPU time); the whole step is {full:.0f} slot-seconds ({full / args.slots:.0f} s on "
        f"{args.slots} slots)"
    )
    median_judge = statistics.median(sides[0].latencies) if sides[0].latencies else 0.0
    print(f"    (/judge: median {median_judge:.2f} s per sample of {args.tests} tests)")


if __name__ == "__main__":
    main()
