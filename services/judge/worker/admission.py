"""Memory admission: a worker takes a session or a run only while the memory granted to those it holds
fits its host's share (docs/spec.md sections 6.5 and 6.6).

A grant is the memory limit a session or a run asks for (its cgroup's limit: what it may take, not
what it uses now). Grants are counted per host, across every worker process that shares the state
dir (one host's workers do), in `<state_dir>/admission/`: one empty file per grant, named
`<pid>-<start time>-<n>-<mb>`, made and counted under an exclusive lock (flock) on `.lock`. A grant of a process that
no longer exists (a worker killed without its clean-up; a pid reused since has another start time) is dropped at the next count, so a crash never
leaks budget. The budget is FRONTIER_ADMIT_MEMORY_MB, or FRONTIER_ADMIT_MEMORY_SHARE of the host's RAM
(the smaller of MemTotal and the memory limit of the cgroup the worker runs in, a container's).
"""

from __future__ import annotations

import contextlib
import fcntl
import itertools
import os
from dataclasses import dataclass
from pathlib import Path

_SEQ = itertools.count()
_UNLIMITED = 1 << 60  # a cgroup without a limit reads as a number near 2**63


class NoRoom(RuntimeError):
    """The grant does not fit the host's budget now; the message says by how much."""


def host_memory_mb(meminfo: str = "/proc/meminfo", self_cgroup: str = "/proc/self/cgroup") -> int:
    """The host's RAM as this process can use it: MemTotal, or its cgroup's memory limit if lower."""
    total_kb = 0
    with open(meminfo) as f:
        for line in f:
            if line.startswith("MemTotal:"):
                total_kb = int(line.split()[1])
                break
    limit = _cgroup_limit_bytes(self_cgroup)
    mb = total_kb // 1024
    return min(mb, limit >> 20) if limit is not None else mb


def _cgroup_limit_bytes(self_cgroup: str) -> int | None:
    try:
        with open(self_cgroup) as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if controllers == "":
            candidate = Path("/sys/fs/cgroup") / path.lstrip("/") / "memory.max"
        elif "memory" in controllers.split(","):
            candidate = Path("/sys/fs/cgroup/memory") / path.lstrip("/") / "memory.limit_in_bytes"
        else:
            continue
        try:
            text = candidate.read_text().strip()
        except OSError:
            continue
        if text.isdigit() and int(text) < _UNLIMITED:
            return int(text)
    return None


def _start_time(pid: int) -> int | None:
    """When the process started (clock ticks since boot, /proc/<pid>/stat): a pid and this name it."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return None
    return int(stat[stat.rindex(b")") + 2 :].split()[19])


@dataclass
class Grant:
    path: Path
    mb: int

    def release(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()


class MemoryLedger:
    """The grants of one host (its workers' shared state dir) against its budget."""

    def __init__(self, state_dir: Path, budget_mb: int):
        self.dir = Path(state_dir) / "admission"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.budget_mb = budget_mb

    @classmethod
    def from_settings(cls, settings) -> MemoryLedger:
        budget = settings.admit_memory_mb or int(settings.admit_memory_share * host_memory_mb())
        return cls(Path(settings.state_dir), budget)

    @contextlib.contextmanager
    def _locked(self):
        fd = os.open(self.dir / ".lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # closing drops the lock

    def granted_mb(self) -> int:
        """Memory granted on this host now (grants of processes that are gone dropped)."""
        with self._locked():
            return self._count()

    def _count(self) -> int:
        total = 0
        for entry in os.scandir(self.dir):
            parts = entry.name.split("-")
            if len(parts) != 4 or not all(p.isdigit() for p in parts):
                continue
            if _start_time(int(parts[0])) != int(parts[1]):  # gone (or its pid reused since)
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(entry.path)
                continue
            total += int(parts[3])
        return total

    def admit(self, mb: int, what: str) -> Grant:
        """A grant of `mb`, or NoRoom when the host's grants would pass its budget."""
        with self._locked():
            granted = self._count()
            if granted + mb > self.budget_mb:
                raise NoRoom(
                    f"{what} asks for {mb} MB of memory; this host has granted {granted} MB of its "
                    f"{self.budget_mb} MB for sessions and runs (FRONTIER_ADMIT_MEMORY_SHARE, "
                    "FRONTIER_ADMIT_MEMORY_MB); retry later or ask for less"
                )
            pid = os.getpid()
            path = self.dir / f"{pid}-{_start_time(pid)}-{next(_SEQ)}-{mb}"
            path.touch()
        return Grant(path, mb)
