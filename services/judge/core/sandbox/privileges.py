"""What a judge worker lacks when its sandbox cannot start, and the deployment settings that grant it.

A worker in a container started without the sandbox's privileges used to die with a 40-line traceback
ending in "unshare failed: Operation not permitted". `explain` turns that into a few lines: what this
process lacks (read from /proc/self: capabilities, a seccomp filter or AppArmor profile already applied,
read-only cgroups) and what to add, in compose, on Kubernetes and with `docker run` (docs/deploy.md
explains each setting).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

CAP_NET_ADMIN = 12
CAP_SYS_ADMIN = 21

COMPOSE = """  in docker-compose.yml, under the judge-worker service (as the bundled file has it):
    cap_add: [SYS_ADMIN, NET_ADMIN]
    security_opt: ["seccomp:unconfined", "apparmor:unconfined"]
    volumes: ["/sys/fs/cgroup:/sys/fs/cgroup:rw"]   # cgroup v2 hosts: also `cgroup: private`"""
KUBERNETES = """  on Kubernetes, in the worker container's securityContext (deploy/helm/codefrontier: judgeWorker.securityContext):
    capabilities: {add: [SYS_ADMIN, NET_ADMIN]}
    seccompProfile: {type: Unconfined}
    appArmorProfile: {type: Unconfined}
    runAsUser: 0   # plus a writable cgroup: see the chart's values.yaml (cgroup v2 delegation)"""
DOCKER_RUN = """  with docker run:
    --cap-add SYS_ADMIN --cap-add NET_ADMIN --security-opt seccomp=unconfined \\
    --security-opt apparmor=unconfined -v /sys/fs/cgroup:/sys/fs/cgroup:rw"""


@dataclass(frozen=True)
class Findings:
    """What /proc says about this process's privileges."""

    root: bool
    caps: int | None  # the effective capability mask, None when unreadable
    seccomp_filtered: bool  # a seccomp filter applies already (Docker's or the runtime's default)
    apparmor: str | None  # the AppArmor profile in force, None when unconfined or absent
    cgroup_writable: bool
    where: str  # "kubernetes", "container" or "host"

    def lacks(self) -> list[str]:
        out = []
        if not self.root:
            out.append(
                "root (uid 0 in its user namespace: the sandbox drops each program to a uid of its own)"
            )
        if self.caps is not None:
            if not self.caps >> CAP_SYS_ADMIN & 1:
                out.append("CAP_SYS_ADMIN (new PID/mount/network namespaces and the slot's mounts)")
            if not self.caps >> CAP_NET_ADMIN & 1:
                out.append("CAP_NET_ADMIN (the loopback interface inside each slot's network namespace)")
        if self.seccomp_filtered:
            out.append(
                "seccomp unconfined (a seccomp filter is already applied; the default ones refuse mount(2))"
            )
        if self.apparmor:
            out.append(
                f"AppArmor unconfined (profile {self.apparmor!r} refuses mount(2) even with CAP_SYS_ADMIN)"
            )
        if not self.cgroup_writable:
            out.append(
                "a writable cgroup (each slot gets a memory and pids cgroup; /sys/fs/cgroup is read-only)"
            )
        return out


def _status_field(status: str, name: str) -> str | None:
    for line in status.splitlines():
        key, _, value = line.partition(":")
        if key == name:
            return value.strip()
    return None


def findings(
    status: str | None = None, apparmor: str | None = None, cgroup_root: Path = Path("/sys/fs/cgroup")
) -> Findings:
    """Read this process's privileges (or those in the given /proc/self/status and AppArmor texts)."""
    if status is None:
        try:
            status = Path("/proc/self/status").read_text()
        except OSError:
            status = ""
    if apparmor is None:
        try:
            apparmor = Path("/proc/self/attr/current").read_text()
        except OSError:
            apparmor = ""
    cap_eff = _status_field(status, "CapEff")
    try:
        caps = int(cap_eff, 16) if cap_eff else None
    except ValueError:
        caps = None
    profile = apparmor.strip().rstrip("\x00").strip()
    if not profile or profile == "unconfined" or profile.endswith("(unconfined)"):
        profile = None
    try:
        writable = os.access(cgroup_root, os.W_OK) and not os.statvfs(cgroup_root).f_flag & os.ST_RDONLY
    except OSError:
        writable = False
    if os.environ.get("KUBERNETES_SERVICE_HOST"):
        where = "kubernetes"
    elif Path("/.dockerenv").exists() or Path("/run/.containerenv").exists():
        where = "container"
    else:
        where = "host"
    return Findings(
        root=os.geteuid() == 0,
        caps=caps,
        seccomp_filtered=_status_field(status, "Seccomp") == "2",
        apparmor=profile,
        cgroup_writable=writable,
        where=where,
    )


def explain(error: object, found: Findings | None = None) -> str:
    """A worker's start-up failure in a few lines: the error, what this process lacks, what to add."""
    found = found or findings()
    lines = [f"the judge worker cannot start its sandbox: {error}"]
    lacks = found.lacks()
    if lacks:
        lines.append("this process lacks:")
        lines += [f"  - {item}" for item in lacks]
    lines.append("grant the sandbox its privileges (never an unsandboxed fallback):")
    order = {"kubernetes": [KUBERNETES, COMPOSE], "container": [COMPOSE, KUBERNETES, DOCKER_RUN]}
    lines += order.get(found.where, [COMPOSE, KUBERNETES])
    if found.where == "host":
        lines.append("  on a host: run the worker as root (`sudo frontier worker judge`)")
    lines.append("docs/deploy.md explains each setting.")
    return "\n".join(lines)
