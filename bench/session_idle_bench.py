"""What a session left spinning between its execs costs the judged programs on its host, with the idle
CPU quota (FRONTIER_SESSION_IDLE_CPUS, docs/spec.md section 6.6) and without it (the baseline).

Starts `--sessions` python session sandboxes (`SessionSandbox`, no API), each of which leaves
`--spinners` background processes in a busy loop after its one exec, then times a fixed CPU-bound
program (a pure-Python loop, in a process of its own on the host, as a judged program would take
CPU) `--repeats` times: alone, beside the spinning sessions held to the quota, and beside the same
sessions without a quota. Prints the median wall time of each and the ratios to running alone.

    python bench/session_idle_bench.py [--sessions 2] [--spinners 2] [--repeats 5] [--idle-cpus 0.05]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from services.judge.core.sandbox.cgroups import detect  # noqa: E402
from services.judge.core.sandbox.seccomp import filter_bpf  # noqa: E402
from services.judge.core.sandbox.session import SessionSandbox  # noqa: E402

WORK = "n = 0\nfor i in range(6_000_000): n += i\n"
SPIN = "import subprocess, sys\nfor _ in range({n}): subprocess.Popen([sys.executable, '-c', 'while True: pass'])"


def timed_work(repeats: int) -> float:
    walls = []
    for _ in range(repeats):
        t0 = time.monotonic()
        subprocess.run([sys.executable, "-c", WORK], check=True)
        walls.append(time.monotonic() - t0)
    return statistics.median(walls)


def spinning_sessions(n: int, spinners: int, idle_cpus: float | None, state: Path) -> list[SessionSandbox]:
    host, bpf = detect(), filter_bpf()
    boxes = []
    for _ in range(n):
        box = SessionSandbox(
            "python",
            state_dir=state,
            cgroup_host=host,
            seccomp_bpf=bpf,
            memory_limit_mb=256,
            cpu_limit_s=10,
            output_limit_kb=64,
            idle_cpus=idle_cpus,
        )
        box.start()
        assert box.exec(SPIN.format(n=spinners), 10).status == "ok"
        boxes.append(box)
    time.sleep(0.5)
    return boxes


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=2)
    ap.add_argument("--spinners", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--idle-cpus", type=float, default=0.05)
    args = ap.parse_args()
    state = Path(tempfile.mkdtemp(prefix="idle-bench-"))
    alone = timed_work(args.repeats)
    figures = {}
    for label, quota in (("with the idle quota", args.idle_cpus), ("without a quota (baseline)", None)):
        boxes = spinning_sessions(args.sessions, args.spinners, quota, state)
        try:
            figures[label] = timed_work(args.repeats)
        finally:
            for box in boxes:
                box.close()
    n = args.sessions * args.spinners
    print(f"a fixed CPU-bound program, median of {args.repeats}, beside {n} spinning session processes:")
    print(f"  alone                          {alone:6.2f} s")
    for label, wall in figures.items():
        print(f"  {label:30s} {wall:6.2f} s   {wall / alone:5.2f}x alone")
    base, ours = figures["without a quota (baseline)"], figures["with the idle quota"]
    print(f"  the quota's program runs {base / ours:.2f}x faster than the baseline's")


if __name__ == "__main__":
    main()
