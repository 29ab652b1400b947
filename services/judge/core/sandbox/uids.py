"""Host-wide allocation of the uids sandbox slots run as: no two live slots share one.

Per-uid kernel state (RLIMIT_NPROC's process count, inotify and message-queue quotas, keyrings) is
shared by every process of a uid on the host, whichever judge process, slot or namespace it is in.
A slot leases a pair of uids (programs, checkers) by taking an open-file-description lock on byte
`m` of one lock file; the lock lasts while any descriptor of that open file lives (the slot's and its
keeper's), and the kernel drops it when they are gone, so a judge that dies frees its pairs.
Judges that do not share the lock file (separate containers) start their search at a random pair of
a large range, which makes a collision unlikely; give them one shared /run/codefrontier to rule it out.
"""

from __future__ import annotations

import errno
import fcntl
import os
import secrets
import struct
from pathlib import Path

UID_BASE = 1 << 24  # pair m is (UID_BASE + 2m, UID_BASE + 2m + 1): clear of system and login uids
UID_PAIRS = 1 << 22
LOCK_FILE = Path("/run/codefrontier/uids.lock")


class NoFreeUids(RuntimeError):
    """Every uid pair of the range is leased."""


class UidLease:
    """A leased pair of uids; `fd` keeps the lease (pass it to processes that run as those uids)."""

    def __init__(self, lock_file: Path = LOCK_FILE, pairs: int | None = None):
        pairs = pairs or UID_PAIRS
        lock_file.parent.mkdir(parents=True, exist_ok=True)
        self.fd = os.open(lock_file, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        start = secrets.randbelow(pairs)
        for i in range(pairs):
            m = (start + i) % pairs
            if self._try_lock(m):
                self.index = m
                self.uid_run = UID_BASE + 2 * m
                self.uid_check = UID_BASE + 2 * m + 1
                return
        os.close(self.fd)
        raise NoFreeUids(f"all {pairs} sandbox uid pairs are in use ({lock_file})")

    def _try_lock(self, m: int) -> bool:
        # struct flock: l_type, l_whence, l_start, l_len, l_pid (0 for OFD locks), padded to 32 bytes
        lock = struct.pack("hhqqi4x", fcntl.F_WRLCK, os.SEEK_SET, m, 1, 0)
        try:
            fcntl.fcntl(self.fd, fcntl.F_OFD_SETLK, lock)
        except OSError as err:
            if err.errno in (errno.EAGAIN, errno.EACCES):
                return False
            raise
        return True

    def release(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
