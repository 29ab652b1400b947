"""Session benchmark (docs/spec.md section 6.6): what a multi-turn rollout pays for its sandbox.

Starts a judge (one API, `--workers` workers, on a spare Redis database, as bench/service_bench.py
does) and measures, through the judge client over HTTP:

- create: p50/p99 of `POST /sessions` (python), each session deleted before the next;
- exec: p50/p99 of a trivial exec round trip (`1` in python, `true` in bash) in one session;
- memory: per idle python session (PSS of the session's processes: its `unshare`, its keeper and its
  interpreter, from /proc/<pid>/smaps_rollup), 64 sessions at once, and the total;
- throughput: execs/s with 64 sessions each running trivial execs back to back;
- soak: `--soak` session lifecycles (create, a few execs, delete), `--soak-concurrency` at a time,
  a random fifth of them killed on the way (the shell SIGKILLed from inside, the keeper SIGKILLed
  from the host, or an exec over its timeout), then counting what is left: sessions listed,
  processes of sandbox uids, session cgroups and session directories, with the worker running
  (where only its warm sandboxes may remain) and after it stopped (where nothing may).

Prints each figure beside its target (this 2-core machine: create <= 50 ms p50, trivial exec <= 10 ms
p50, 64 sessions within 2 GB, 0 leaks).

    python bench/session_bench.py [--workers 1] [--sessions 64] [--soak 2000] [--soak-concurrency 8]
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tqdm import tqdm

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT))

from services.judge.client import JudgeClient, JudgeClientError  # noqa: E402
from services.judge.core.sandbox.cgroups import detect  # noqa: E402
from services.stack import free_port  # noqa: E402
from tests.conftest import claim_redis_db  # noqa: E402

KILL_SHARE = 0.2  # of the soak's lifecycles, the share killed on the way (--kill-share)
TARGETS = {"create_p50_ms": 50.0, "exec_p50_ms": 10.0, "memory_64_mb": 2048.0, "leaks": 0}


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(q * (len(xs) - 1)))]


def verdict(ok: bool) -> str:
    return "met" if ok else "MISSED"


class Judge:
    """The judge's API and `workers` worker processes (each its own state dir) on one Redis database."""

    def __init__(self, tmp: Path, redis_url: str, workers: int, slots: int, env: dict[str, str]):
        port = free_port()
        self.url = f"http://127.0.0.1:{port}"
        self.env = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "FRONTIER_REDIS_URL": redis_url,
            "FRONTIER_JUDGE_PORT": str(port),
            "FRONTIER_REDIS_PREFIX": f"sessbench{os.getpid()}",
            "FRONTIER_JUDGE_QUEUE": f"sessbench-{os.getpid()}",
            **env,
        }
        self.state_dirs = [tmp / f"worker{w}" for w in range(workers)]
        self.logs = tmp / "logs"
        self.logs.mkdir()
        self.procs = [self._spawn(["serve"], "api", {})]
        self.workers = [
            self._spawn(["worker", "--slots", str(slots)], f"worker{w}", {"FRONTIER_STATE_DIR": str(d)})
            for w, d in enumerate(self.state_dirs)
        ]
        self.procs += self.workers

    def _spawn(self, args: list[str], name: str, env: dict[str, str]) -> subprocess.Popen:
        log = open(self.logs / f"{name}.log", "wb")  # noqa: SIM115 - lives as long as the process
        return subprocess.Popen(
            [sys.executable, "-m", "services.judge.cli", *args],
            cwd=ROOT,
            env={**self.env, **env},
            stdout=log,
            stderr=log,
        )

    def close(self) -> None:
        for p in self.procs:
            p.send_signal(signal.SIGTERM)
        for p in self.procs:
            try:
                p.wait(30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


# -- what is on the host ----------------------------------------------------------------------------
def session_pids(tmp: str, worker_pids: list[int]) -> list[int]:
    """Processes of this judge's session sandboxes: `unshare` and keepers (their command line names
    session_keeper.py and the bench's state dir; the forked Python shells share it; a judging slot's
    keeper is keeper.py) and anything in a session cgroup of its workers."""
    marks = [f"slot-{pid}-s".encode() for pid in worker_pids]
    out = []
    for p in Path("/proc").iterdir():
        if not p.name.isdigit():
            continue
        try:
            cmd = (p / "cmdline").read_bytes()
            cgroup = (p / "cgroup").read_bytes()
        except OSError:
            continue
        if (tmp.encode() in cmd and b"session_keeper.py" in cmd) or any(m in cgroup for m in marks):
            out.append(int(p.name))
    return out


def pss_kb(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1])
        except OSError:
            pass
    return total


def session_cgroups(worker_pids: list[int]) -> list[Path]:
    return [d for base in detect().bases.values() for pid in worker_pids for d in base.glob(f"slot-{pid}-s*")]


def session_dirs(state_dirs: list[Path]) -> list[Path]:
    return [d for s in state_dirs if (s / "sessions").is_dir() for d in (s / "sessions").iterdir()]


def host_pid_of(uid: int) -> int | None:
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                if p.stat().st_uid == uid:
                    return int(p.name)
            except OSError:
                pass
    return None


def ppid_of(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("PPid:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


# -- the measurements -------------------------------------------------------------------------------
def measure_create(judge: JudgeClient, n: int) -> list[float]:
    times = []
    for _ in tqdm(range(n), desc="create", leave=False):
        t0 = time.perf_counter()
        created = judge.create_session("python")
        times.append(time.perf_counter() - t0)
        judge.delete_session(created["id"])
        time.sleep(0.15)  # a trainer creates a session per rollout, not back to back: let the pool refill
    return times


def measure_exec(judge: JudgeClient, kind: str, n: int) -> list[float]:
    text = "1" if kind == "python" else "true"
    with judge.open_session(kind) as s:
        for _ in range(20):
            s.exec(text)
        times = []
        for _ in tqdm(range(n), desc=f"exec {kind}", leave=False):
            t0 = time.perf_counter()
            out = s.exec(text)
            times.append(time.perf_counter() - t0)
            assert out["status"] == "ok", out
    return times


def measure_many(judge: JudgeClient, n_sessions: int, seconds: float, ours) -> dict:
    idle_pss = pss_kb(ours())
    sessions = []
    with ThreadPoolExecutor(8) as pool:
        sessions = list(
            tqdm(
                pool.map(lambda _: judge.open_session("python"), range(n_sessions)),
                total=n_sessions,
                desc="open",
                leave=False,
            )
        )
    for s in sessions:
        s.exec("x = 1")
    time.sleep(1.0)
    total_pss = pss_kb(ours())
    per_session_kb = (total_pss - idle_pss) / n_sessions
    latencies: list[float] = []
    lock = threading.Lock()
    stop_at = time.perf_counter() + seconds

    def loop(s) -> int:
        done, mine = 0, []
        while time.perf_counter() < stop_at:
            t0 = time.perf_counter()
            out = s.exec("x += 1")
            mine.append(time.perf_counter() - t0)
            assert out["status"] == "ok", out
            done += 1
        with lock:
            latencies.extend(mine)
        return done

    t0 = time.perf_counter()
    with ThreadPoolExecutor(n_sessions) as pool:
        counts = list(pool.map(loop, sessions))
    wall = time.perf_counter() - t0
    for s in sessions:
        s.close()
    return {
        "per_session_mb": per_session_kb / 1024,
        "total_mb": total_pss / 1024,
        "sessions_total_mb": per_session_kb * n_sessions / 1024,
        "execs_per_s": sum(counts) / wall,
        "p50_ms": pct(latencies, 0.5) * 1000,
        "p99_ms": pct(latencies, 0.99) * 1000,
        "execs": sum(counts),
    }


def one_lifecycle(judge: JudgeClient, i: int, rng: random.Random) -> str:
    kind = "python" if i % 2 == 0 else "bash"
    try:
        s = judge.open_session(kind, limits={"memory_mb": 64, "cpu_s": 2})
    except JudgeClientError as err:
        return f"create failed: {err}"
    how = "clean"
    try:
        s.exec("import subprocess; subprocess.Popen(['sleep', '600'])" if kind == "python" else "sleep 600 &")
        s.exec("y = 2" if kind == "python" else "cd /tmp")
        if rng.random() < KILL_SHARE:
            how = rng.choice(["shell", "keeper", "timeout"])
            if how == "shell":
                s.exec("import os; os.kill(os.getpid(), 9)" if kind == "python" else "kill -9 $$")
            elif how == "timeout":
                s.exec("while True: pass" if kind == "python" else "while :; do :; done", timeout_s=0.3)
            else:
                uid = int(s.exec("import os; print(os.getuid())" if kind == "python" else "id -u")["stdout"])
                shell = host_pid_of(uid)
                keeper = ppid_of(shell) if shell else None
                if keeper:
                    os.kill(keeper, 9)
            s.exec("1" if kind == "python" else "true")
    except JudgeClientError:
        pass
    finally:
        try:
            s.close()
        except JudgeClientError:
            pass
    return how


def soak(judge: JudgeClient, n: int, concurrency: int, seed: int = 0) -> dict:
    rng = random.Random(seed)
    seeds = [rng.random() for _ in range(n)]
    hows: dict[str, int] = {}
    with ThreadPoolExecutor(concurrency) as pool:
        for how in tqdm(
            pool.map(lambda i: one_lifecycle(judge, i, random.Random(seeds[i])), range(n)),
            total=n,
            desc="soak",
        ):
            hows[how] = hows.get(how, 0) + 1
    return hows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument(
        "--slots", type=int, default=1, help="judging slots per worker (sessions do not use them)"
    )
    ap.add_argument("--creates", type=int, default=100)
    ap.add_argument("--execs", type=int, default=500)
    ap.add_argument("--sessions", type=int, default=64)
    ap.add_argument("--seconds", type=float, default=10.0, help="of the 64-session throughput run")
    ap.add_argument("--soak", type=int, default=2000)
    ap.add_argument("--soak-concurrency", type=int, default=8)
    ap.add_argument("--kill-share", type=float, default=KILL_SHARE, help="of the soak's lifecycles, killed")
    ap.add_argument(
        "--redis", default="127.0.0.1:6379", help="host:port of a Redis to use a spare database of"
    )
    args = ap.parse_args()
    globals()["KILL_SHARE"] = args.kill_share
    host, port = args.redis.split(":")
    claim = claim_redis_db(range(15, 7, -1), host, int(port))
    redis_url = next(claim)
    with tempfile.TemporaryDirectory(prefix="session-bench-") as tmp:
        env = {"FRONTIER_SESSION_MAX_PER_WORKER": str(args.sessions + 16)}
        service = Judge(Path(tmp), redis_url, args.workers, args.slots, env)
        state_dirs = service.state_dirs
        worker_pids = [p.pid for p in service.workers]

        def ours() -> list[int]:
            return session_pids(tmp, worker_pids)

        try:
            with JudgeClient(service.url, max_parallel=1) as judge:
                deadline = time.monotonic() + 60
                while time.monotonic() < deadline:
                    try:
                        judge.delete_session(judge.create_session("python")["id"])
                        break
                    except JudgeClientError:
                        time.sleep(0.5)
                time.sleep(2.0)  # the warm pool fills
                create = measure_create(judge, args.creates)
                time.sleep(2.0)  # the warm pool refills before the exec round trips are timed
                exec_py = measure_exec(judge, "python", args.execs)
                exec_sh = measure_exec(judge, "bash", args.execs)
                many = measure_many(judge, args.sessions, args.seconds, ours)
                hows = soak(judge, args.soak, args.soak_concurrency)
                time.sleep(3.0)  # idle reapers and the warm pool settle
                listed = len(judge.sessions())
                running = {
                    "procs": len(ours()),
                    "cgroups": len(session_cgroups(worker_pids)),
                    "dirs": len(session_dirs(state_dirs)),
                }
        finally:
            service.close()
        time.sleep(1.0)
        next(claim, None)  # the database is flushed and given back
        warnings = sorted(
            {
                line.split(": ", 1)[-1][:120]
                for log in service.logs.glob("worker*.log")
                for line in log.read_text(errors="replace").splitlines()
                if "WARNING" in line and "session" in line
            }
        )
        stopped = {
            "procs": len(ours()),
            "cgroups": len(session_cgroups(worker_pids)),
            "dirs": len(session_dirs(state_dirs)),
        }
    bases = len(detect().bases)  # cgroup v1: one directory per controller
    warm = 2 * 2 * args.workers  # FRONTIER_SESSION_WARM (2) sandboxes of each kind, per worker
    # a warm sandbox is 3 processes (unshare, keeper, shell), one cgroup, one directory
    leaks = (
        listed
        + max(0, running["procs"] - 3 * warm)
        + max(0, running["cgroups"] // bases - warm)
        + max(0, running["dirs"] - warm)
        + sum(stopped.values())
    )
    c50, c99 = pct(create, 0.5) * 1000, pct(create, 0.99) * 1000
    p50, p99 = pct(exec_py, 0.5) * 1000, pct(exec_py, 0.99) * 1000
    b50, b99 = pct(exec_sh, 0.5) * 1000, pct(exec_sh, 0.99) * 1000
    print(
        f"sessions on {args.workers} worker(s), over HTTP through the judge client ({os.cpu_count()} cores)"
    )
    print(
        f"create (python)     : p50 {c50:6.1f} ms  p99 {c99:6.1f} ms   target p50 <= {TARGETS['create_p50_ms']:.0f} ms: {verdict(c50 <= TARGETS['create_p50_ms'])}"
    )
    print(
        f"trivial exec python : p50 {p50:6.2f} ms  p99 {p99:6.2f} ms   target p50 <= {TARGETS['exec_p50_ms']:.0f} ms: {verdict(p50 <= TARGETS['exec_p50_ms'])}"
    )
    print(
        f"trivial exec bash   : p50 {b50:6.2f} ms  p99 {b99:6.2f} ms   target p50 <= {TARGETS['exec_p50_ms']:.0f} ms: {verdict(b50 <= TARGETS['exec_p50_ms'])}"
    )
    total = many["sessions_total_mb"]
    print(
        f"memory, idle python : {many['per_session_mb']:.1f} MB PSS per session, {args.sessions} sessions {total:.0f} MB "
        f"(every sandbox process incl. warm ones: {many['total_mb']:.0f} MB)   target {args.sessions} within "
        f"{TARGETS['memory_64_mb']:.0f} MB: {verdict(total <= TARGETS['memory_64_mb'])}"
    )
    print(
        f"{args.sessions} sessions busy  : {many['execs_per_s']:7.1f} execs/s ({many['execs']} execs in {args.seconds:.0f} s), "
        f"p50 {many['p50_ms']:.1f} ms  p99 {many['p99_ms']:.1f} ms"
    )
    print(
        f"soak                : {args.soak} lifecycles, {args.soak_concurrency} at a time, kills {dict(sorted(hows.items()))}"
    )
    print(
        f"left, worker running: sessions listed {listed}, session processes {running['procs']}, "
        f"session cgroups {running['cgroups'] // bases}, dirs {running['dirs']} "
        f"(the {warm} warm sandboxes: {3 * warm} processes, {warm} cgroups, {warm} dirs)"
    )
    print(
        f"left, worker stopped: session processes {stopped['procs']}, "
        f"session cgroups {stopped['cgroups']}, dirs {stopped['dirs']}"
    )
    for w in warnings[:5]:
        print(f"worker warning      : {w}")
    print(f"leaks               : {leaks}   target {TARGETS['leaks']}: {verdict(leaks == TARGETS['leaks'])}")


if __name__ == "__main__":
    main()
