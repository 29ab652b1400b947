"""cgroup code paths: v1 for real on this host (see test_sandbox), v2's file writes on a fake tree."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from services.judge.core.sandbox import cgroups
from services.judge.core.sandbox.cgroups import CgroupError, CgroupV2, detect


def fake_v2(root: Path, controllers="cpuset cpu io memory hugetlb pids rdma misc") -> Path:
    root.mkdir(parents=True)
    (root / "cgroup.controllers").write_text(controllers + "\n")
    (root / "cgroup.subtree_control").write_text("")
    (root / "cgroup.procs").write_text("")
    return root


def write_env(tmp_path, mountinfo, self_cgroup):
    (tmp_path / "mountinfo").write_text(mountinfo)
    (tmp_path / "cgroup").write_text(self_cgroup)
    return dict(mountinfo_path=str(tmp_path / "mountinfo"), self_cgroup_path=str(tmp_path / "cgroup"))


def test_v2_is_preferred_and_controllers_are_delegated(tmp_path):
    root = fake_v2(tmp_path / "cg")
    paths = write_env(tmp_path, f"35 24 0:30 / {root} rw,nosuid - cgroup2 cgroup2 rw\n", "0::/\n")
    host = detect(**paths)
    assert host.version == 2
    base = host.bases["unified"]
    assert base == root / "codefrontier"
    assert (root / "cgroup.subtree_control").read_text() == "+memory +pids +cpu"
    assert (base / "cgroup.subtree_control").read_text() == "+memory +pids +cpu"


def test_v2_without_a_cpu_controller_delegates_memory_and_pids_alone(tmp_path):
    root = fake_v2(tmp_path / "cg", controllers="memory pids")
    paths = write_env(tmp_path, f"35 24 0:30 / {root} rw,nosuid - cgroup2 cgroup2 rw\n", "0::/\n")
    host = detect(**paths)
    assert (host.bases["unified"] / "cgroup.subtree_control").read_text() == "+memory +pids"
    slot = host.slot("slot-1-s0")
    assert not slot.has_cpu_quota  # no cpu.max: the session runs without a quota (and says so)
    assert not host.set_cpu_weight(1000)  # nor a weight: no cpu.weight to write


def test_v2_slots_get_their_cpu_weight_on_the_base(tmp_path):
    root = fake_v2(tmp_path / "cg")
    paths = write_env(tmp_path, f"35 24 0:30 / {root} rw,nosuid - cgroup2 cgroup2 rw\n", "0::/\n")
    host = detect(**paths)
    (host.bases["unified"] / "cpu.weight").write_text("100\n")  # the kernel's file, there with +cpu
    assert host.set_cpu_weight(1000)
    assert (host.bases["unified"] / "cpu.weight").read_text() == "1000"


def test_v2_cpu_quota_writes_cpu_max_and_reads_throttling(tmp_path):
    path = tmp_path / "slot"
    path.mkdir()
    (path / "cpu.max").write_text("max 100000\n")
    (path / "cpu.stat").write_text("usage_usec 10\nnr_periods 9\nnr_throttled 4\nthrottled_usec 7\n")
    cg = CgroupV2(path)
    assert cg.has_cpu_quota
    cg.set_cpu_quota(0.05)
    assert (path / "cpu.max").read_text() == "5000 100000"
    cg.set_cpu_quota(0.0001)  # the kernel's least quota is 1 ms
    assert (path / "cpu.max").read_text() == "1000 100000"
    cg.set_cpu_quota(None)
    assert (path / "cpu.max").read_text() == "max 100000"
    assert cg.throttled() == 4


def test_v1_cpu_hierarchy_is_optional_and_holds_every_slot(tmp_path):
    mounts = []
    for c in ("memory", "pids", "cpuacct", "cpu"):
        (tmp_path / c).mkdir()
        mounts.append(f"2 0 0:2 / {tmp_path / c} rw - cgroup cgroup rw,{c}")
    paths = write_env(tmp_path, "\n".join(mounts) + "\n", "")
    host = detect(**paths)
    assert set(host.bases) == {"memory", "pids", "cpuacct", "cpu"}
    (tmp_path / "memory" / "codefrontier" / "slot-1-0").mkdir()
    (tmp_path / "cpu" / "codefrontier" / "cpu.shares").write_text("1024\n")
    judge = host.slot("slot-1-0")
    # every slot is in the cpu hierarchy (the base's weight); only a session sets itself a quota
    assert judge.dirs["cpu"] == tmp_path / "cpu" / "codefrontier" / "slot-1-0"
    assert host.set_cpu_weight(1000)
    assert (tmp_path / "cpu" / "codefrontier" / "cpu.shares").read_text() == "10240"
    session = host.slot("slot-1-s0")
    assert session.dirs["cpu"] == tmp_path / "cpu" / "codefrontier" / "slot-1-s0"
    (session.dirs["cpu"] / "cpu.cfs_quota_us").write_text("-1\n")
    (session.dirs["cpu"] / "cpu.stat").write_text("nr_periods 3\nnr_throttled 2\nthrottled_time 5\n")
    assert session.has_cpu_quota
    session.set_cpu_quota(0.25)
    assert (session.dirs["cpu"] / "cpu.cfs_quota_us").read_text() == "25000"
    assert (session.dirs["cpu"] / "cpu.cfs_period_us").read_text() == "100000"
    session.set_cpu_quota(None)
    assert (session.dirs["cpu"] / "cpu.cfs_quota_us").read_text() == "-1"
    assert session.throttled() == 2
    assert session.procs_files[-1] == session.dirs["cpu"] / "cgroup.procs"


def test_v2_moves_our_processes_out_of_a_non_root_cgroup(tmp_path):
    root = fake_v2(tmp_path / "cg")
    mine = root / "docker" / "abc"
    mine.mkdir(parents=True)
    (mine / "cgroup.procs").write_text("1\n")
    paths = write_env(tmp_path, f"35 24 0:30 / {root} rw - cgroup2 cgroup2 rw\n", "0::/docker/abc\n")
    host = detect(**paths)
    assert (mine / "judge" / "cgroup.procs").read_text() == "1"
    assert host.bases["unified"] == mine / "codefrontier"


def test_v2_slot_writes_limits_and_reads_usage(tmp_path):
    path = tmp_path / "slot"
    path.mkdir()
    (path / "memory.swap.max").write_text("max\n")
    (path / "cpu.stat").write_text("usage_usec 1000\nuser_usec 800\nsystem_usec 200\n")
    (path / "memory.events").write_text("low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n")
    (path / "memory.peak").write_text("")
    (path / "cgroup.procs").write_text("")
    cg = CgroupV2(path)
    assert (path / "memory.swap.max").read_text() == "0"
    cg.set_limits(memory_limit_mb=256, pids_max=64)
    assert (path / "memory.max").read_text() == str(256 << 20)
    assert (path / "pids.max").read_text() == "64"
    cg.begin()
    (path / "cpu.stat").write_text("usage_usec 251000\n")
    (path / "memory.events").write_text("oom_kill 2\n")
    (path / "memory.peak").write_text("123456789\n")
    usage = cg.usage()
    assert usage.cpu_ns == 250_000_000
    assert usage.oom_kills == 1
    assert usage.memory_peak_bytes == 123456789
    assert cg.procs_files == [path / "cgroup.procs"]
    cg.kill_all()  # empty: returns at once
    assert (path / "cgroup.kill").read_text() == "1" if (path / "cgroup.kill").exists() else True


def test_v1_is_used_when_v2_lacks_memory(tmp_path):
    unified = fake_v2(tmp_path / "unified", controllers="hugetlb")
    mounts = [f"1 0 0:1 / {unified} rw - cgroup2 cgroup2 rw"]
    for c in ("memory", "pids", "cpuacct"):
        (tmp_path / c).mkdir()
        mounts.append(f"2 0 0:2 / {tmp_path / c} rw - cgroup cgroup rw,{c}")
    paths = write_env(tmp_path, "\n".join(mounts) + "\n", "4:memory:/inner\n2:pids:/\n1:cpuacct:/\n0::/\n")
    host = detect(**paths)
    assert host.version == 1
    assert host.bases["memory"] == tmp_path / "memory" / "inner" / "codefrontier"
    assert host.bases["pids"] == tmp_path / "pids" / "codefrontier"


def test_no_cgroups_is_a_clear_error(tmp_path):
    paths = write_env(tmp_path, "1 0 0:1 / /proc rw - proc proc rw\n", "0::/\n")
    with pytest.raises(CgroupError, match="no cgroup v2 mount; cgroup v1 lacks controllers"):
        detect(**paths)


@pytest.mark.parametrize(
    "v2_quota, v1_quota, cpus",
    [
        (None, None, None),  # no quota: the affinity's CPUs
        ("150000 100000", None, 1),  # 1.5 CPUs: one slot keeps a CPU busy, two would not each have one
        (None, "50000", 1),  # half a CPU: at least one
        ("max 100000", "200000", 2),
    ],
)
def test_usable_cpus_are_the_affinity_within_every_quota_above(tmp_path, v2_quota, v1_quota, cpus):
    unified = fake_v2(tmp_path / "unified")
    (unified / "pod").mkdir()
    (unified / "pod" / "judge").mkdir()
    (tmp_path / "cpu" / "pod").mkdir(parents=True)
    if v2_quota:
        (unified / "pod" / "cpu.max").write_text(v2_quota + "\n")
        (unified / "pod" / "judge" / "cpu.max").write_text("max 100000\n")
    if v1_quota:
        (tmp_path / "cpu" / "pod" / "cpu.cfs_quota_us").write_text(v1_quota + "\n")
        (tmp_path / "cpu" / "pod" / "cpu.cfs_period_us").write_text("100000\n")
    mounts = f"1 0 0:1 / {unified} rw - cgroup2 cgroup2 rw\n2 0 0:2 / {tmp_path / 'cpu'} rw - cgroup cgroup rw,cpu\n"
    paths = write_env(tmp_path, mounts, "1:cpu:/pod\n0::/pod/judge\n")
    affinity = len(os.sched_getaffinity(0))
    got, why = cgroups.usable_cpus(**paths)
    assert got == min(affinity, cpus or affinity)
    assert ("quota" in why) == (cpus is not None and cpus < affinity)


def test_an_engine_with_more_slots_than_cpus_refuses_naming_the_setting(tmp_path):
    from services.judge.core.engine import Engine
    from services.judge.core.sandbox.slot import SandboxError
    from services.settings import Settings

    cpus, _ = cgroups.usable_cpus()
    with pytest.raises(SandboxError, match=f"more than the {cpus} CPU.*FRONTIER_SLOTS to at most {cpus}"):
        Engine(Settings(state_dir=tmp_path, slots=cpus + 1))


def test_this_host_is_detected():
    host = cgroups.detect()
    assert host.version in (1, 2)


def test_strict_engine_refuses_without_root(monkeypatch, tmp_path):
    from services.judge.core.engine import Engine
    from services.judge.core.sandbox.slot import SandboxError
    from services.settings import Settings

    monkeypatch.setattr("os.geteuid", lambda: 1000)
    with pytest.raises(SandboxError, match="FRONTIER_SANDBOX_MODE=unsafe"):
        Engine(Settings(state_dir=tmp_path))


def test_unsafe_mode_runs_without_isolation_and_says_so(tmp_path, caplog):
    from services.judge.core.engine import Engine
    from services.settings import Settings
    from tests.support.problems import make_problem, sub

    with Engine(Settings(state_dir=tmp_path, sandbox_mode="unsafe", slots=1)) as eng:
        assert "UNSAFE" in caplog.text
        p = make_problem(eng.store, [("a", "3\n", "3\n")], pid="u", time_limit_ms=300)
        assert eng.judge(p, sub("print(input())", problem_id="u")).outcome == "correct"
        assert eng.judge(p, sub("while True: pass", problem_id="u")).tests[0].verdict == "TLE"


def test_page_cache_a_last_run_left_does_not_count_as_the_next_runs_memory(tmp_path):
    """A compiler's page cache, charged to the slot, stays after it: a peak reset starts from the usage
    of that moment, so without reclaiming it a failed run read as MLE (rustc, then a panicking program)."""
    host = cgroups.detect()
    cg = host.slot(f"pagecache-{os.getpid()}")
    try:
        cg.set_limits(memory_limit_mb=128, pids_max=16)
        writer = subprocess.Popen(
            ["sh", "-c", f"dd if=/dev/zero of={tmp_path / 'big'} bs=1M count=80 conv=fsync 2>/dev/null"],
            preexec_fn=lambda: [Path(f).write_text(str(os.getpid())) for f in cg.procs_files],
        )
        assert writer.wait(timeout=120) == 0
        cg.begin()
        assert cg.usage().memory_peak_bytes < 128 * (1 << 20) / 4
    finally:
        cg.remove()


def test_a_dead_judges_slot_cgroups_are_swept_and_a_live_ones_kept():
    """CgroupHost.remove_stale sweeps the slot cgroups (`slot-<pid>-<n>`) of every judge process of the
    host that no longer exists, whoever's they were, and keeps a live process's: a judge started after
    a killed one removes what that one could not (tests/stack/test_sessions.py kills a worker)."""
    host = detect()
    gone = subprocess.Popen(["true"])
    gone.wait()
    live = subprocess.Popen(["sleep", "60"])
    host.slot(f"slot-{gone.pid}-0")
    kept = host.slot(f"slot-{live.pid}-0")
    try:
        assert all((b / f"slot-{gone.pid}-0").is_dir() for b in host.bases.values())
        host.remove_stale()
        assert not any((b / f"slot-{gone.pid}-0").exists() for b in host.bases.values())
        assert all((b / f"slot-{live.pid}-0").is_dir() for b in host.bases.values())
    finally:
        live.kill()
        live.wait()
        kept.remove()
