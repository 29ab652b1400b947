"""The seccomp filter every sandboxed process runs under (programs, checkers and the compiler).

A deny list in the manner of a container runtime's default profile: system calls that reach state
living outside every namespace a slot has (kernel keyrings), that open IPC the slot's per-run clean-up
does not see (POSIX message queues), that make new namespaces, or that inspect or tune the kernel and
other processes. Everything else is allowed; a program needs none of these. libseccomp (through
pyseccomp) compiles the list for the host's architecture, other ABIs (32-bit, x32) included; the
keeper installs the compiled program in each forked child, right before the program starts.
"""

from __future__ import annotations

import errno
import os
from functools import lru_cache

DENIED = (
    # kernel keyrings are per uid, outside every namespace: data would outlive the test
    "add_key",
    "keyctl",
    "request_key",
    # POSIX message queues outlive the run in the slot's IPC namespace
    "mq_open",
    "mq_unlink",
    "mq_timedsend",
    "mq_timedreceive",
    "mq_notify",
    "mq_getsetattr",
    # no new namespaces (a user namespace would give a program capabilities over its own copies)
    "unshare",
    "setns",
    # other processes' memory and the kernel's own interfaces
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "kcmp",
    "perf_event_open",
    "bpf",
    "userfaultfd",
    "syslog",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "lookup_dcookie",
    "name_to_handle_at",
    "open_by_handle_at",
    # privileged anyway (the program is not root); denied so that no kernel path behind them is reached
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "swapon",
    "swapoff",
    "reboot",
    "kexec_load",
    "kexec_file_load",
    "init_module",
    "finit_module",
    "delete_module",
    "acct",
    "settimeofday",
    "clock_settime",
    "clock_adjtime",
    "quotactl",
)
# clone(2) flags that make a namespace; clone3 hides its flags behind a pointer, so it answers ENOSYS
# and the C library falls back to clone, whose flags the filter can see
CLONE_NEW_FLAGS = (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000)


class SeccompUnavailable(RuntimeError):
    """libseccomp (or its Python binding) is missing: the sandbox cannot filter system calls."""


@lru_cache(maxsize=1)
def filter_bpf() -> bytes:
    """The compiled filter: a sock_filter array for prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER)."""
    try:
        import pyseccomp as sc

        f = sc.SyscallFilter(sc.ALLOW)
    except (ImportError, OSError, RuntimeError) as err:
        raise SeccompUnavailable(
            f"libseccomp is not usable ({err}); install libseccomp2 and pyseccomp"
        ) from None
    deny = sc.ERRNO(errno.EPERM)
    for name in DENIED:
        try:
            f.add_rule(deny, name)
        except (ValueError, RuntimeError, OSError):
            pass  # a call this architecture does not have
    for flag in CLONE_NEW_FLAGS:
        f.add_rule(deny, "clone", sc.Arg(0, sc.MASKED_EQ, flag, flag))
    f.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
    with os.fdopen(os.memfd_create("seccomp"), "w+b") as buf:
        f.export_bpf(buf)
        buf.seek(0)
        return buf.read()
