"""One cgroup per sandbox slot, on cgroup v2 or (where the host has only that) v1.

The slot's cgroup is made once and reused: before each run the engine resets or baselines its
counters (`begin`), after it reads CPU time, peak memory and OOM kills (`usage`). Test processes
join it themselves by writing "0" to the `procs_files` (the keeper holds those files open across
its chroot), so no cgroup filesystem is visible inside the sandbox.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

V1_CONTROLLERS = ("memory", "pids", "cpuacct")
V2_CONTROLLERS = ("memory", "pids")
# optional: the slots' CPU weight over the host's other work (`CgroupHost.set_cpu_weight`, every slot)
# and the CPU quota a session gets between its execs (`set_cpu_quota`; judging slots have none)
V1_OPTIONAL = ("cpu",)
CPU_PERIOD_US = 100_000
V2_DEFAULT_WEIGHT = 100  # cgroup v2's cpu.weight of a cgroup nobody set; v1's cpu.shares is 1024


class CgroupError(RuntimeError):
    """The host's cgroups cannot give a slot what it needs; the message says why."""


@dataclass
class Usage:
    cpu_ns: int
    memory_peak_bytes: int
    oom_kills: int


def _write(path: Path, value: str) -> None:
    with open(path, "w") as f:
        f.write(value)


def _read(path: Path) -> str:
    with open(path) as f:
        return f.read()


class _ControlFiles:
    """The counters of one cgroup, kept open: a pread at offset 0 costs a microsecond where an open
    costs twenty, and the engine reads CPU time every poll and the counters every run."""

    def __init__(self):
        self._fds: dict[Path, int] = {}
        self._write_fds: dict[Path, int] = {}

    def read(self, path: Path) -> str:
        fd = self._fds.get(path)
        if fd is None:
            fd = self._fds[path] = os.open(path, os.O_RDONLY)
        return os.pread(fd, 4096, 0).decode()

    def write(self, path: Path, value: str) -> None:
        """One write to a control file kept open (each write is one command to the kernel)."""
        fd = self._write_fds.get(path)
        if fd is None:
            fd = self._write_fds[path] = os.open(path, os.O_WRONLY)
        os.write(fd, value.encode())

    def close(self) -> None:
        for fd in (*self._fds.values(), *self._write_fds.values()):
            os.close(fd)
        self._fds.clear()
        self._write_fds.clear()


def _keyed(text: str, key: str) -> int:
    """The value of `key` in a flat-keyed cgroup file ("key value" per line); 0 when absent."""
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == key:
            return int(parts[1])
    return 0


def _quota_us(cpus: float) -> int:
    """A quota per CPU_PERIOD_US; the kernel's least is 1 ms."""
    return max(1000, round(cpus * CPU_PERIOD_US))


def _kill_listed(procs_file: Path, deadline_s: float = 5.0) -> None:
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        pids = [int(p) for p in _read(procs_file).split()]
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.002)
    raise CgroupError(f"processes in {procs_file} survived SIGKILL for {deadline_s}s")


class CgroupV1:
    """memory + pids + cpuacct hierarchies, one directory in each."""

    version = 1

    def __init__(self, dirs: dict[str, Path]):
        self.dirs = dirs
        self._oom_base = 0
        for d in dirs.values():
            d.mkdir(parents=True, exist_ok=True)
        mem = dirs["memory"]
        if (mem / "memory.swappiness").exists():
            try:
                _write(mem / "memory.swappiness", "0")
            except OSError:
                pass  # refused where the parent is not hierarchical; swap is off on judge hosts anyway
        self._memory_limit: float = float("inf")  # a new cgroup is unlimited
        self._tcp = (mem / "memory.kmem.tcp.limit_in_bytes").exists()
        self._files = _ControlFiles()
        self._pids_max = -1
        self._cpu_base = 0
        # the files read or written per run, as paths made once
        self._cpu_usage = dirs["cpuacct"] / "cpuacct.usage"
        self._peak = mem / "memory.max_usage_in_bytes"
        self._usage = mem / "memory.usage_in_bytes"
        self._force_empty = mem / "memory.force_empty"
        self._tcp_peak = mem / "memory.kmem.tcp.max_usage_in_bytes"
        self._oom_control = mem / "memory.oom_control"
        self._procs = mem / "cgroup.procs"
        self._tasks = dirs["pids"] / "pids.current"
        self._last: tuple[int, int] | None = None  # (CPU counter, OOM kills) as usage() last read them

    @property
    def procs_files(self) -> list[Path]:
        return [d / "cgroup.procs" for d in self.dirs.values()]

    @property
    def has_cpu_quota(self) -> bool:
        return "cpu" in self.dirs and (self.dirs["cpu"] / "cpu.cfs_quota_us").exists()

    def set_cpu_quota(self, cpus: float | None) -> None:
        """Cap the cgroup's CPU time at `cpus` CPUs (0.05: 5 ms in every 100 ms); None lifts the cap."""
        cpu = self.dirs["cpu"]
        _write(cpu / "cpu.cfs_period_us", str(CPU_PERIOD_US))
        _write(cpu / "cpu.cfs_quota_us", "-1" if cpus is None else str(_quota_us(cpus)))

    def throttled(self) -> int:
        """How many CPU periods the quota throttled the cgroup in (cpu.stat nr_throttled)."""
        return _keyed(_read(self.dirs["cpu"] / "cpu.stat"), "nr_throttled")

    def set_limits(self, memory_limit_mb: int, pids_max: int) -> None:
        if memory_limit_mb != self._memory_limit:
            mem = self.dirs["memory"]
            value = str(memory_limit_mb << 20)
            memsw = mem / "memory.memsw.limit_in_bytes"
            # memsw must stay >= the memory limit: raise it first, lower it last
            order = ["memory.limit_in_bytes", "memory.memsw.limit_in_bytes"]
            if memory_limit_mb > self._memory_limit:
                order.reverse()
            for name in order:
                if name.startswith("memory.memsw") and not memsw.exists():
                    continue
                _write(mem / name, value)
            # v1 charges socket buffers to a counter of their own, and only once it has a limit
            # (v2 charges them to memory.current): without one, loopback connections hold memory
            # outside every limit. They count toward the run's peak (usage) as well.
            if self._tcp:
                _write(mem / "memory.kmem.tcp.limit_in_bytes", value)
            self._memory_limit = memory_limit_mb
        if pids_max != self._pids_max:
            _write(self.dirs["pids"] / "pids.max", str(pids_max))
            self._pids_max = pids_max

    def begin(self, chained: bool = False) -> None:
        """Reset the counters for a run. `chained`: the run starts where the last one's usage() was
        read, nothing having run in between (a shared runner's next test): its CPU and OOM counters
        are taken from that reading (a v1 cpuacct read costs tens of microseconds)."""
        if chained and self._last is not None:
            self._cpu_base, self._oom_base = self._last
        else:
            self._cpu_base, self._oom_base = self._cpu_total(), self._oom_kills()
        # a peak reset starts from the usage now: page cache the last run (a compiler, above all)
        # left charged here would count as this run's memory, and a failed run near its limit would
        # read as MLE. Past a quarter of the limit it is reclaimed first (rarely: a compile, big files)
        if int(self._files.read(self._usage)) > self._memory_limit * (1 << 20) / 4:
            with contextlib.suppress(OSError):
                self._files.write(self._force_empty, "0")
        self._files.write(self._peak, "0")
        if self._tcp:
            self._files.write(self._tcp_peak, "0")

    def _oom_kills(self) -> int:
        return _keyed(self._files.read(self._oom_control), "oom_kill")

    def _cpu_total(self) -> int:
        return int(self._files.read(self._cpu_usage))

    def cpu_ns(self) -> int:
        return self._cpu_total() - self._cpu_base

    def usage(self) -> Usage:
        peak = int(self._files.read(self._peak))
        if self._tcp:  # an upper bound of the joint peak: the two counters peak separately
            peak += int(self._files.read(self._tcp_peak))
        total, ooms = self._cpu_total(), self._oom_kills()
        self._last = (total, ooms)
        return Usage(cpu_ns=total - self._cpu_base, memory_peak_bytes=peak, oom_kills=ooms - self._oom_base)

    def tasks(self) -> int:
        """Tasks in the cgroup (pids.current): processes and their threads, one read of a kept-open file."""
        return int(self._files.read(self._tasks))

    def pids(self) -> list[int]:
        """The processes in the cgroup, as this process's PID namespace numbers them. Opened afresh:
        v1 keeps the list of an open cgroup.procs for a while, and a later read shows it unchanged."""
        return [int(p) for p in _read(self._procs).split()]

    def threads(self) -> list[int]:
        """Every thread in the cgroup (its tasks file), numbered as pids() are."""
        return [int(t) for t in _read(self.dirs["memory"] / "tasks").split()]

    def empty(self) -> bool:
        """No process in the cgroup."""
        return not self.pids()

    def kill_all(self) -> None:
        _kill_listed(self.dirs["memory"] / "cgroup.procs")

    def remove(self) -> None:
        self._files.close()
        for d in self.dirs.values():
            try:
                d.rmdir()
            except OSError as err:
                log.warning("could not remove cgroup %s: %s", d, err)


class CgroupV2:
    """One leaf directory in the unified hierarchy."""

    version = 2

    def __init__(self, path: Path):
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        self._cpu_base = 0
        self._oom_base = 0
        self._peak_fd: int | None = None
        self._peak_resettable = True
        self._memory_limit = -1
        self._pids_max = -1
        self._files = _ControlFiles()
        self._cpu_stat, self._events, self._procs = (
            path / "cpu.stat",
            path / "memory.events",
            path / "cgroup.procs",
        )
        self._tasks = path / "pids.current"
        self._last: tuple[int, int] | None = None  # (CPU ns, OOM kills) as usage() last read them
        if (path / "memory.swap.max").exists():  # absent where the kernel has no swap accounting
            _write(path / "memory.swap.max", "0")

    @property
    def procs_files(self) -> list[Path]:
        return [self.path / "cgroup.procs"]

    @property
    def has_cpu_quota(self) -> bool:
        return (self.path / "cpu.max").exists()  # there where the parent delegates the cpu controller

    def set_cpu_quota(self, cpus: float | None) -> None:
        """As CgroupV1.set_cpu_quota (cpu.max: "<quota> <period>" or "max <period>")."""
        quota = "max" if cpus is None else str(_quota_us(cpus))
        _write(self.path / "cpu.max", f"{quota} {CPU_PERIOD_US}")

    def throttled(self) -> int:
        """As CgroupV1.throttled (cpu.stat nr_throttled)."""
        return _keyed(_read(self.path / "cpu.stat"), "nr_throttled")

    def set_limits(self, memory_limit_mb: int, pids_max: int) -> None:
        if memory_limit_mb != self._memory_limit:
            _write(self.path / "memory.max", str(memory_limit_mb << 20))
            self._memory_limit = memory_limit_mb
        if pids_max != self._pids_max:
            _write(self.path / "pids.max", str(pids_max))
            self._pids_max = pids_max

    def begin(self, chained: bool = False) -> None:
        """As CgroupV1.begin."""
        if chained and self._last is not None:
            self._cpu_base, self._oom_base = self._last
        else:
            self._cpu_base, self._oom_base = self._cpu_usec() * 1000, self._oom_kills()
        # memory.peak is reset per open file description by a write (Linux 6.12+); older kernels
        # have a read-only peak since creation, which can only over-report
        if self._peak_fd is None:
            self._peak_fd = os.open(self.path / "memory.peak", os.O_RDWR | os.O_CREAT)
        # as CgroupV1.begin: page cache left by the last run (a compiler) is reclaimed before the reset
        if self._memory_limit > 0:
            with contextlib.suppress(OSError, ValueError):  # memory.reclaim: Linux 5.19+
                usage = int(self._files.read(self.path / "memory.current"))
                if usage > self._memory_limit * (1 << 20) / 4:
                    self._files.write(self.path / "memory.reclaim", str(usage))
        if self._peak_resettable:
            try:
                os.pwrite(self._peak_fd, b"reset\n", 0)
            except OSError:
                self._peak_resettable = False
                log.warning("memory.peak cannot be reset on this kernel: peaks count since slot start")

    def _cpu_usec(self) -> int:
        return _keyed(self._files.read(self._cpu_stat), "usage_usec")

    def _oom_kills(self) -> int:
        return _keyed(self._files.read(self._events), "oom_kill")

    def cpu_ns(self) -> int:
        return self._cpu_usec() * 1000 - self._cpu_base

    def usage(self) -> Usage:
        assert self._peak_fd is not None, "begin() first"
        peak = os.pread(self._peak_fd, 64, 0).split()
        total, ooms = self._cpu_usec() * 1000, self._oom_kills()
        self._last = (total, ooms)
        return Usage(
            cpu_ns=total - self._cpu_base,
            memory_peak_bytes=int(peak[0]) if peak else 0,
            oom_kills=ooms - self._oom_base,
        )

    def tasks(self) -> int:
        """Tasks in the cgroup (pids.current): processes and their threads, one read of a kept-open file."""
        return int(self._files.read(self._tasks))

    def pids(self) -> list[int]:
        """The processes in the cgroup, as this process's PID namespace numbers them (opened afresh,
        as on v1)."""
        return [int(p) for p in _read(self._procs).split()]

    def threads(self) -> list[int]:
        """Every thread in the cgroup (cgroup.threads), numbered as pids() are."""
        return [int(t) for t in _read(self.path / "cgroup.threads").split()]

    def empty(self) -> bool:
        """No process in the cgroup."""
        return not self.pids()

    def kill_all(self) -> None:
        kill = self.path / "cgroup.kill"
        if kill.exists():
            _write(kill, "1")
        _kill_listed(self.path / "cgroup.procs")

    def remove(self) -> None:
        self._files.close()
        if self._peak_fd is not None:
            os.close(self._peak_fd)
            self._peak_fd = None
        try:
            self.path.rmdir()
        except OSError as err:
            log.warning("could not remove cgroup %s: %s", self.path, err)


@dataclass
class CgroupHost:
    """Where this host's cgroups are and which of our own cgroups new ones go under."""

    version: int
    # v1: controller -> directory of our own cgroup in that hierarchy; v2: {"unified": dir}
    bases: dict[str, Path]

    def slot(self, name: str) -> CgroupV1 | CgroupV2:
        """A slot's cgroup, in the v1 cpu hierarchy too where the host has it (the weight of
        set_cpu_weight, a session's quota)."""
        if self.version == 2:
            return CgroupV2(self.bases["unified"] / name)
        wanted = V1_CONTROLLERS + V1_OPTIONAL
        return CgroupV1({c: self.bases[c] / name for c in wanted if c in self.bases})

    def set_cpu_weight(self, weight: int) -> bool:
        """Give every slot, together, `weight` (cgroup v2's cpu.weight scale: 100 is what other work of
        the host has; v1's cpu.shares is 10.24 times it) over the host's other work: where the host is
        busy beside the judge, its slots still get the CPU (docs/spec.md 4.1). False where the host has
        no cpu controller for us or refuses the write (the slots then share the CPU as any process)."""
        if self.version == 2:
            path, value = self.bases["unified"] / "cpu.weight", str(weight)
        elif "cpu" in self.bases:
            path, value = (
                self.bases["cpu"] / "cpu.shares",
                str(max(2, round(weight * 1024 / V2_DEFAULT_WEIGHT))),
            )
        else:
            return False
        if not path.exists():  # v2: there where our parent delegates the cpu controller
            return False
        try:
            _write(path, value)
        except OSError as err:
            log.warning("cannot set the slots' CPU weight (%s): %s", path, err)
            return False
        return True

    def remove_stale(self) -> int:
        """Remove slot cgroups (`slot-<pid>-<n>`) left by judge processes that no longer exist."""
        removed = 0
        for base in self.bases.values():
            for d in base.glob("slot-*-*"):
                try:
                    pid = int(d.name.split("-")[1])
                except ValueError:
                    continue
                if pid == os.getpid() or Path(f"/proc/{pid}").exists():
                    continue
                try:
                    _kill_listed(d / "cgroup.procs", deadline_s=1.0)
                    d.rmdir()
                    removed += 1
                except (OSError, CgroupError):
                    pass
        return removed


def usable_cpus(
    mountinfo_path: str = "/proc/self/mountinfo", self_cgroup_path: str = "/proc/self/cgroup"
) -> tuple[int, str]:
    """How many CPUs this process may keep busy at once, and what says so: the CPUs its affinity
    allows, or fewer where a CPU quota of its cgroup or one above it (v2 cpu.max, v1
    cpu.cfs_quota_us: a container's --cpus) allows less (whole CPUs, at least one)."""
    cpus, why = len(os.sched_getaffinity(0)), "its CPU affinity"
    try:
        unified, v1 = _parse_mounts(_read(Path(mountinfo_path)))
        own = _own_paths(_read(Path(self_cgroup_path)))
    except OSError:
        return cpus, why
    quotas = []  # (CPUs, the file that says so)
    if unified is not None and "unified" in own:
        for d in _self_and_parents(unified, own["unified"]):
            try:
                quota, period = _read(d / "cpu.max").split()[:2]
            except (OSError, ValueError):
                continue
            if quota != "max":
                quotas.append((int(quota) / int(period), d / "cpu.max"))
    if "cpu" in v1 and "cpu" in own:
        for d in _self_and_parents(v1["cpu"], own["cpu"]):
            try:
                quota, period = int(_read(d / "cpu.cfs_quota_us")), int(_read(d / "cpu.cfs_period_us"))
            except (OSError, ValueError):
                continue
            if quota > 0 and period > 0:
                quotas.append((quota / period, d / "cpu.cfs_quota_us"))
    for quota, path in quotas:
        if max(1, int(quota)) < cpus:
            cpus, why = max(1, int(quota)), f"the CPU quota of {quota:g} CPUs in {path}"
    return cpus, why


def _self_and_parents(mount: Path, own: str) -> list[Path]:
    """The cgroup `own` under `mount` and every cgroup above it up to the mount's root."""
    parts = [p for p in own.strip("/").split("/") if p]
    return [mount.joinpath(*parts[:i]) for i in range(len(parts), -1, -1)]


def _parse_mounts(mountinfo: str) -> tuple[Path | None, dict[str, Path]]:
    unified, v1 = None, {}
    for line in mountinfo.splitlines():
        pre, _, post = line.partition(" - ")
        fields, post_fields = pre.split(), post.split()
        if len(post_fields) < 3:
            continue
        fstype, mountpoint = post_fields[0], Path(fields[4])
        if fstype == "cgroup2":
            unified = mountpoint
        elif fstype == "cgroup":
            for opt in post_fields[2].split(","):
                if opt in V1_CONTROLLERS + V1_OPTIONAL:
                    v1[opt] = mountpoint
    return unified, v1


def _own_paths(self_cgroup: str) -> dict[str, str]:
    out = {}
    for line in self_cgroup.splitlines():
        _, controllers, path = line.split(":", 2)
        for c in controllers.split(",") if controllers else ["unified"]:
            out[c] = path
    return out


def detect(
    group: str = "codefrontier",
    mountinfo_path: str = "/proc/self/mountinfo",
    self_cgroup_path: str = "/proc/self/cgroup",
) -> CgroupHost:
    """Find a usable cgroup hierarchy: v2 with the memory and pids controllers, else v1."""
    unified, v1 = _parse_mounts(_read(Path(mountinfo_path)))
    own = _own_paths(_read(Path(self_cgroup_path)))
    reasons = []
    if unified is not None:
        controllers = _read(unified / "cgroup.controllers").split()
        missing = [c for c in V2_CONTROLLERS if c not in controllers]
        if not missing:
            return CgroupHost(2, {"unified": _prepare_v2(unified, own.get("unified", "/"), group)})
        reasons.append(f"cgroup v2 at {unified} lacks controllers {missing}")
    else:
        reasons.append("no cgroup v2 mount")
    missing = [c for c in V1_CONTROLLERS if c not in v1]
    if not missing:
        bases = {}
        for c in V1_CONTROLLERS + tuple(c for c in V1_OPTIONAL if c in v1):
            base = v1[c] / own.get(c, "/").lstrip("/") / group
            try:
                base.mkdir(parents=True, exist_ok=True)
            except OSError as err:
                if c in V1_OPTIONAL:
                    log.warning("no %s cgroup (%s): sessions get no CPU quota between execs", c, err)
                    continue
                raise CgroupError(f"cannot create cgroup {base}: {err}") from None
            bases[c] = base
        return CgroupHost(1, bases)
    reasons.append(f"cgroup v1 lacks controllers {missing}")
    raise CgroupError("; ".join(reasons))


def _prepare_v2(unified: Path, own: str, group: str) -> Path:
    """Make `<own>/<group>` a parent with memory and pids delegated to its children.

    cgroup v2 forbids processes in a cgroup that delegates controllers, so when our own cgroup
    holds processes (a container's root, typically) they move to a leaf `<own>/judge` first.
    """
    mine = unified / own.lstrip("/")
    try:
        if mine != unified and _read(mine / "cgroup.procs").split():
            leaf = mine / "judge"
            leaf.mkdir(exist_ok=True)
            for pid in _read(mine / "cgroup.procs").split():
                try:
                    _write(leaf / "cgroup.procs", pid)
                except OSError:
                    pass  # a kernel thread or a process that just exited
        enable = " ".join(f"+{c}" for c in V2_CONTROLLERS)
        # cpu too where the host has it (a session's quota between execs); without it, none
        with_cpu = f"{enable} +cpu" if "cpu" in _read(unified / "cgroup.controllers").split() else None
        base = mine / group
        for i, parent in enumerate((mine, base)):
            if i:
                base.mkdir(exist_ok=True)
            try:
                if with_cpu is None:
                    raise OSError("no cpu controller")
                _write(parent / "cgroup.subtree_control", with_cpu)
            except OSError:
                with_cpu = None
                _write(parent / "cgroup.subtree_control", enable)
    except OSError as err:
        raise CgroupError(f"cannot delegate memory and pids controllers under {mine}: {err}") from None
    return base
